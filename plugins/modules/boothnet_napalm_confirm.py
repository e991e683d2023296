#!/usr/bin/python
"""Confirm a pending commit (stop the device's revert timer)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_napalm_confirm
short_description: Confirm a pending NAPALM commit
description:
  - Cancels the device's revert timer so the committed config stays.
  - Fails when the device has already reverted (the reason is in the message).
extends_documentation_fragment:
  - boothnet_napalm
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
