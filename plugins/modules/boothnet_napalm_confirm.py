#!/usr/bin/python
"""Confirm a pending commit (stop the device's revert timer)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_napalm_confirm
short_description: Confirm a pending NAPALM commit
description:
  - Cancels the device's revert timer so the committed config stays.
  - Fails when the device has already reverted (the reason is in the message).
options:
  hostname:
    description: Management address of the device.
    type: str
    required: true
  username:
    description: SSH user.
    type: str
    required: true
  password:
    description:
      - SSH password (hardware), from E(BOOTHNET_DEPLOY_PASSWORD) or ansible-vault.
      - Never a file in the repository.
    type: str
    default: ""
  driver:
    description: NAPALM driver (C(frr_linux), C(ios), C(eos)).
    type: str
    default: frr_linux
  key_file:
    description: SSH private key file.
    type: path
  known_hosts:
    description: OpenSSH known_hosts file; the device key must be in it (no trust on first use).
    type: path
  ssh_common_args:
    description:
      - The inventory ssh arguments.
      - C(UserKnownHostsFile=) is taken from them when O(known_hosts) is not set.
    type: str
    default: ""
  optional_args:
    description:
      - NAPALM optional_args.
      - For frr_linux C(pathspace), C(state_dir), C(netns), C(swanctl_uri), ...
    type: dict
    default: {}
  timeout:
    description: Connection timeout in seconds.
    type: int
    default: 30
author: boothnet
"""

EXAMPLES = r"""
- name: Confirm
  boothnet_napalm_confirm:
    hostname: "{{ ansible_host }}"
    username: root
"""

RETURN = r"""
confirmed:
  description: True when the commit was confirmed.
  returned: success
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible.module_utils.boothnet_napalm import spec, steps, target  # noqa: E402


def main():
    module = AnsibleModule(argument_spec=spec(), supports_check_mode=False)
    try:
        steps.confirm(target(module))
    except Exception as exc:
        module.fail_json(msg=str(exc), confirmed=False)
    module.exit_json(changed=True, confirmed=True)


if __name__ == "__main__":
    main()
