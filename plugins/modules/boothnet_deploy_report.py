#!/usr/bin/python
"""Documentation of the boothnet_deploy_report action (plugins/action): it has no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_deploy_report
short_description: Report one device's part of a deploy run as the host's own result
description:
  - "The deploy runs every device in one task (M(boothnet.boothnet.boothnet_napalm_deploy), C(run_once));
    this action, per host, takes that device's entry: C(changed) when a commit was made (in check mode:
    would be) or an open session the new policy denies was cut, the diff (shown with C(--diff)), and a
    failure unless the new config is in force."
  - Runs on the controller without a module process.
options:
  run:
    description: The deploy task's C(devices) result.
    type: dict
    required: true
  device:
    description: The device to report; by default the host.
    type: str
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Say which config is in force on this device
  boothnet_deploy_report:
    run: "{{ deploy_run.devices }}"
"""

RETURN = r"""
result:
  description: The device's record (outcome, in_force, reason, changed_parts, backup, driver, sessions).
  returned: always
  type: dict
"""
