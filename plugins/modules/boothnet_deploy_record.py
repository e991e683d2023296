#!/usr/bin/python
"""Record which config is in force on a device, and keep summary.json current."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_deploy_record
short_description: Start or summarize a deploy run's records in build/<network>/deploy/
description:
  - M(boothnet_napalm_deploy) writes each device's record (C(results/<device>.json)) and
    refreshes C(summary.json). With O(reset) this module clears a previous run's records;
    otherwise it returns the summary and its table.
  - "Reports C(changed=false): a report on the controller is not a change to a device."
options:
  deploy_dir:
    description: C(build/<network>/deploy).
    type: path
    required: true
  reset:
    description: Remove previous records.
    type: bool
    default: false
author: boothnet
"""

EXAMPLES = r"""
- name: Summary
  boothnet_deploy_record:
    deploy_dir: build/sc-booth/deploy
"""

RETURN = r"""
summary:
  description: All records of the run, counts and overall ok.
  returned: always
  type: dict
table:
  description: The summary as a plain-text table.
  returned: always
  type: str
"""

import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402

try:
    from boothnet.deploy import results
except ImportError:
    results = None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            deploy_dir=dict(type="path", required=True),
            reset=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    if results is None:
        module.fail_json(msg="boothnet is not importable by the module's Python")
    d = Path(module.params["deploy_dir"])
    if module.params["reset"]:
        shutil.rmtree(d / "results", ignore_errors=True)
        d.mkdir(parents=True, exist_ok=True)
        results.write_summary(d)
    recs = results.load_results(d)
    module.exit_json(changed=False, summary=results.summarize(recs), table=results.summary_table(recs))


if __name__ == "__main__":
    main()
