#!/usr/bin/python
"""Ansible module: bring the netns lab of an inventory up or down."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_lab
short_description: Build or remove an intent's network in Linux network namespaces
description:
  - C(state=up) plans the lab from the intent (every device as frr_linux, hardware port names
    mapped to kernel names, VLAN segments by kernel capability), renders the lab configs and
    builds namespaces, shaped veths, the management bridge, sshd and FRR. Idempotent.
  - C(state=down) removes every namespace, link and process of the lab, also after a
    bring-up that was killed halfway. Needs root.
options:
  state: {description: Whether the lab should be up or down., type: str, choices: [up, down], default: up}
  vlan_mode:
    description: Force 802.1Q trunks (dot1q) or per-VLAN segments; default is what the kernel supports.
    type: str
    choices: [dot1q, segment]
  configs:
    description: "C(full): routers boot with their rendered lab configs. C(day0): with cabling, management,
      sshd and FRR on a hostname-only frr.conf, no nftables rules and no addresses (a deploy's work)."
    type: str
    choices: [full, day0]
    default: full
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Lab up
  boothnet_lab:
    inventory: inventories/lab-mini
    state: up
"""

RETURN = r"""
inventory: {description: Generated Ansible inventory reaching the lab nodes over SSH., type: str, returned: state=up}
log: {description: Progress lines of the run., type: list, elements: str, returned: always}
"""

from pathlib import Path

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import STAGE_ARGS, run_stage


def main() -> None:
    module = AnsibleModule(argument_spec={
        **STAGE_ARGS,
        "state": {"type": "str", "choices": ["up", "down"], "default": "up"},
        "vlan_mode": {"type": "str", "choices": ["dot1q", "segment"]},
        "configs": {"type": "str", "choices": ["full", "day0"], "default": "full"},
    })
    p, log = module.params, []
    inventory, build_dir = Path(p["inventory"]), Path(p["build_dir"])
    facts = run_stage(module, "boothnet.pipeline:lab_task", inventory, p["state"], p["vlan_mode"], p["configs"],
                      log.append, lock=(inventory, build_dir, True), takes_run=True, failed_with={"log": log},
                      unexpected=f"lab {p['state']} failed")
    module.exit_json(log=log, **facts)


if __name__ == "__main__":
    main()
