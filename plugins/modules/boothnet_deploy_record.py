#!/usr/bin/python
"""Record which config is in force on a device, and keep summary.json current."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_deploy_record
short_description: Record a device's deploy outcome in build/<network>/deploy/
description:
  - Derives the outcome (new-confirmed, unchanged, reverted, failed-before-apply, unknown,
    check-only) from the step results and writes C(results/<device>.json) and
    C(summary.json). With O(reset) clears the records of a previous run; with
    O(summary_only) returns the summary.
  - "Reports C(changed=false): a report on the controller is not a change to a device."
options:
  deploy_dir:
    description: C(build/<network>/deploy).
    type: path
    required: true
  device:
    description: Device name.
    type: str
  commit:
    description: Registered result of M(boothnet_napalm_config).
    type: dict
  health:
    description: Registered result of M(boothnet_napalm_health).
    type: dict
  confirmed:
    description: Whether the confirm succeeded.
    type: bool
    default: false
  revert:
    description: Registered result of M(boothnet_napalm_rollback).
    type: dict
  error:
    description: Failure message of the step that failed.
    type: str
    default: ""
  check:
    description: Whether the run is a check-mode run.
    type: bool
    default: false
  reset:
    description: Remove previous records.
    type: bool
    default: false
  summary_only:
    description: Only return the summary.
    type: bool
    default: false
author: boothnet
"""

EXAMPLES = r"""
- name: Record
  boothnet_deploy_record:
    deploy_dir: build/sc-booth/deploy
    device: "{{ inventory_hostname }}"
    commit: "{{ commit }}"
"""

RETURN = r"""
result:
  description: The device's record (outcome, in_force, reason, changed_parts, backup).
  returned: when device is given
  type: dict
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
    from boothnet.deploy import results, steps
except ImportError:
    results = steps = None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            deploy_dir=dict(type="path", required=True),
            device=dict(type="str"),
            commit=dict(type="dict"),
            health=dict(type="dict"),
            confirmed=dict(type="bool", default=False),
            revert=dict(type="dict"),
            error=dict(type="str", default=""),
            check=dict(type="bool", default=False),
            reset=dict(type="bool", default=False),
            summary_only=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    if results is None:
        module.fail_json(msg="boothnet is not importable by the module's Python")
    p = module.params
    d = Path(p["deploy_dir"])
    out = {}
    if p["reset"]:
        shutil.rmtree(d / "results", ignore_errors=True)
        d.mkdir(parents=True, exist_ok=True)
        results.write_summary(d)
    elif not p["summary_only"]:
        commit = p["commit"] if p["commit"] and "skipped" not in p["commit"] else None
        health = p["health"] if p["health"] and "skipped" not in p["health"] else None
        revert = p["revert"] if p["revert"] and "skipped" not in p["revert"] else None
        rec = steps.outcome(p["device"], commit, health, p["confirmed"], revert,
                            error=p["error"], check=p["check"])
        results.record(d, rec)
        out["result"] = rec.as_dict()
    recs = results.load_results(d)
    module.exit_json(changed=False, summary=results.summarize(recs),
                     table=results.summary_table(recs), **out)


if __name__ == "__main__":
    main()
