#!/usr/bin/python
"""Ansible module: run boothnet's build stage (validate, derive, render, lint) for one inventory."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_build
short_description: Validate the intent, derive and render every device's config, lint offline
description:
  - Runs the whole build stage in one Python call (not one template task per host), so it
    scales to hundreds of devices. Nothing is written when the intent is invalid.
options:
  run_tools:
    description: Check frr_linux output with vtysh --dryrun and nft -c.
    type: bool
    default: true
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
author: boothnet
"""

EXAMPLES = r"""
- name: Build configs
  boothnet_build:
    inventory: inventories/sc-booth
"""

RETURN = r"""
summary:
  description: Devices, VLANs, configs written, findings and tool checks.
  type: dict
  returned: always
errors:
  description: Every intent error, each naming file, field path, value and what is allowed.
  type: list
  elements: str
  returned: on invalid intent
"""

from pathlib import Path

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import STAGE_ARGS, run_stage


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            **STAGE_ARGS,
            "run_tools": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    p = module.params
    result = run_stage(module, "boothnet.render.build:build", Path(p["inventory"]), Path(p["build_dir"]),
                       lock=(Path(p["inventory"]), Path(p["build_dir"]), False), takes_run=True,
                       run_tools=p["run_tools"])
    summary = {
        "network": result.network,
        "devices": result.devices,
        "vlans": result.vlans,
        "configs_written": len(result.files),
        "configs_changed": result.changed,
        "findings": result.findings,
        "tool_checks": result.tool_results(),
        "out_dir": str(result.out_dir),
        "seconds": result.seconds,
        "table": result.summary_table(),
    }
    if not result.ok:
        module.fail_json(msg="build findings:\n" + "\n".join(result.findings), summary=summary)
    for warning in result.warnings:
        module.warn(f"intent: {warning}")
    module.exit_json(changed=bool(result.changed), summary=summary)


if __name__ == "__main__":
    main()
