#!/usr/bin/python
"""Documentation of the boothnet_deploy_record action (plugins/action): it has no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_deploy_record
short_description: Start or summarize a deploy run's records in build/<network>/deploy/
description:
  - M(boothnet.boothnet.boothnet_napalm_deploy) writes each device's record (C(results/<device>.json)) and
    refreshes C(summary.json). With O(reset) this module clears a previous run's records;
    otherwise it returns the summary and its table.
  - "Reports C(changed=false): a report on the controller is not a change to a device."
  - Runs on the controller without a module process (an action plugin).
options:
  deploy_dir:
    description: C(build/<network>/deploy).
    type: path
    required: true
  reset:
    description: Remove previous records.
    type: bool
    default: false
author: boothnet maintainers (@boothnet)
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
