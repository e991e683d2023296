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
    bring-up that was killed halfway.
  - Needs root.
options:
  state:
    description: Whether the lab should be up or down.
    type: str
    choices: [up, down]
    default: up
  vlan_mode:
    description: Force 802.1Q trunks (dot1q) or per-VLAN segments; default is what the kernel supports.
    type: str
    choices: [dot1q, segment]
  configs:
    description:
      - C(full) boots routers with their rendered lab configs.
      - C(day0) boots them with cabling, management, sshd and FRR on a hostname-only frr.conf,
        an empty nftables ruleset and no interface addresses, so that a deploy has the work to do.
    type: str
    choices: [full, day0]
    default: full
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
author: boothnet
"""

EXAMPLES = r"""
- name: Lab up
  boothnet_lab:
    inventory: inventories/lab-mini
    state: up
"""

RETURN = r"""
inventory:
  description: Generated Ansible inventory reaching the lab nodes over SSH.
  type: str
  returned: state=up
log:
  description: Progress lines of the run.
  type: list
  elements: str
  returned: always
"""

from pathlib import Path

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import STAGE_ARGS


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            **STAGE_ARGS,
            "state": {"type": "str", "choices": ["up", "down"], "default": "up"},
            "vlan_mode": {"type": "str", "choices": ["dot1q", "segment"]},
            "configs": {"type": "str", "choices": ["full", "day0"], "default": "full"},
        },
        supports_check_mode=False,
    )
    from boothnet.errors import IntentInvalid
    from boothnet.lab.runner import lab_down
    from boothnet.locks import Busy, run_locks
    from boothnet.pipeline import Stopped, bring_up_lab
    from boothnet.run import Run

    log: list[str] = []
    p = module.params
    try:
        run = Run(Path(p["inventory"]), Path(p["build_dir"]))
        what = f"ansible module boothnet_lab state={p['state']}"
        with run_locks(run.build_root, run.net.name, lab=True, command=what):
            if p["state"] == "down":
                result = lab_down(run.net.name, run.layout.lab, progress=log.append)
                module.exit_json(changed=bool(result.get("removed")), log=log)
            mode, state = bring_up_lab(run, p["vlan_mode"], p["configs"], log.append, log.append)
    except Busy as exc:
        module.fail_json(msg=str(exc), log=log)
    except IntentInvalid as exc:
        module.fail_json(msg=exc.summary(), log=log)
    except Stopped as exc:
        module.fail_json(msg="lab configs have findings:\n" + str(exc), log=log)
    except Exception as exc:  # noqa: BLE001 - report any lab failure with its progress log
        module.fail_json(msg=f"lab {p['state']} failed: {exc}", log=log)
    module.exit_json(changed=state.get("changed", True), inventory=str(run.layout.lab_inventory), vlan_mode=mode,
                     configs=p["configs"], log=log)


if __name__ == "__main__":
    main()
