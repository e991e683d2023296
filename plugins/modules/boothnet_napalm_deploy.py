#!/usr/bin/python
"""Deploy devices: backup, diff, commit-confirm, health check, confirm or revert (NAPALM)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_napalm_deploy
short_description: Replace devices' configs with their rendered candidates, commit-confirm style
description:
  - "One process, one session per device for the whole run, devices at once (threads). First, when
    O(cabling_devices) is given, their cables are read by LLDP; one out of place fails the task before
    any device is changed. Then each device of O(devices): load its candidate as a replace candidate,
    diff, back up the running config, commit with a device-side revert timer, a health check over a
    second session (management, the intent's interfaces up, OSPF Full, nothing left between running
    and candidate), then confirm, or leave the commit unconfirmed and wait for the device's revert."
  - In check mode only the diffs are computed. Each device's record (which config is in force) goes to
    O(deploy_dir); a device's failure is its record's, never the task's (M(boothnet.boothnet.boothnet_deploy_report)).
  - "Runs on the controller: C(connection: local), C(run_once: true)."
options:
  deploy_dir:
    description: Folder of the run's records (C(build/<network>/deploy)).
    type: path
    required: true
  inventory:
    description:
      - The intent's inventory folder, where the cables of O(cabling_devices) come from.
      - The open sessions are judged against the policy derived from it (O(sessions)); without it they are not checked.
    type: path
  sessions:
    description:
      - "After the deploy, on each frr_linux device that tracks connections and runs the new config
        (confirmed or unchanged), the conntrack entries of the forwarded sessions the new policy denies
        (the offline end-to-end evaluator of the models the configs were rendered from):
        V(cut) deletes exactly those entries (C(conntrack -D) with each entry's tuple), V(list) leaves them
        open and lists them. Either way each device's record says how many, and which (C(sessions))."
      - In check mode they are listed as the ones the deploy would end. A table that cannot be read (no
        C(conntrack) tool, not root) is recorded as not checked, with why.
    type: str
    choices: [cut, list]
    default: cut
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_napalm.deploy_devices
  - boothnet.boothnet.boothnet_napalm.cabling
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Deploy core1 with a 120 s device-side revert timer, after its cables are checked
  boothnet.boothnet.boothnet_napalm_deploy:
    deploy_dir: build/sc-booth/deploy
    inventory: inventories/sc-booth
    devices:
      - device: core1
        hostname: 192.0.2.11
        username: admin
        platform: cisco_ios
        config_dir: build/sc-booth/configs/core1
        backup_dir: build/sc-booth/backups/core1
    cabling_devices:
      - {device: core1, hostname: 192.0.2.11, username: admin, platform: cisco_ios}
"""

RETURN = r"""
devices:
  description:
    - Per device, its record (C(result)), C(commit) (diff, parts, committed, backup), C(health), C(revert).
    - C(result.sessions) the open sessions the new policy denies (C(ended), C(left), C(checked), C(why)), or null.
  returned: success
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_napalm import (
    DEPLOY_SPEC,
    deploy_devices,
)


def main():
    module = AnsibleModule(argument_spec=DEPLOY_SPEC, supports_check_mode=True)
    module.exit_json(changed=False, devices=deploy_devices(module))


if __name__ == "__main__":
    main()
