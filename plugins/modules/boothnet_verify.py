#!/usr/bin/python
"""Ansible module: boothnet's verify stage (offline lint + Batfish checks)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_verify
short_description: Verify rendered configs offline and with Batfish
description:
  - Builds and lints the configs, renders the Batfish view, and runs every Batfish check
    derived from the intent. Writes build/<network>/verify/verify.json and verify.md.
  - Without a reachable Batfish service the Batfish checks are SKIPPED (never passed), with
    the command that starts one; I(require_batfish=true) makes that fatal.
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
  - boothnet.boothnet.boothnet_stage.batfish
author: boothnet
"""

EXAMPLES = r"""
- name: Verify
  boothnet_verify:
    inventory: inventories/sc-booth
    require_batfish: false
"""

RETURN = r"""
status:
  description: PASS, FAIL or SKIPPED (some checks did not run).
  type: str
  returned: always
markdown:
  description: The verify report as Markdown.
  type: str
  returned: always
"""

from pathlib import Path

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import (
    BATFISH_ARGS,
    STAGE_ARGS,
    run_stage,
)


def main() -> None:
    module = AnsibleModule(
        argument_spec={**STAGE_ARGS, **BATFISH_ARGS},
        supports_check_mode=True,
    )
    p = module.params
    report = run_stage(module, "boothnet.verify.stage:run_verify_stage", Path(p["inventory"]), Path(p["build_dir"]),
                       p["batfish_host"] or None, p["require_batfish"],
                       lock=(Path(p["inventory"]), Path(p["build_dir"]), False), takes_run=True)
    markdown = report.to_markdown()
    if str(report.status) == "FAIL":
        module.fail_json(msg="verify failed:\n" + markdown, status="FAIL", markdown=markdown)
    module.exit_json(changed=False, status=str(report.status), markdown=markdown)


if __name__ == "__main__":
    main()
