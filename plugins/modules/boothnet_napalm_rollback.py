#!/usr/bin/python
"""Roll a device back to the backup of its last commit, or wait for it to do so itself."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_napalm_rollback
short_description: Roll back the last NAPALM commit, or wait for the device's own revert
description:
  - With O(wait_for_device_revert=false) restores the backup taken by the last commit now.
  - With O(wait_for_device_revert=true) changes nothing and waits until the device's revert
    timer has restored the backup (the path when management is cut), returning the
    device's own reason.
options:
  wait_for_device_revert:
    description: Wait for the device's timer instead of rolling back.
    type: bool
    default: false
  wait_timeout:
    description: Seconds to wait for the device (revert_in plus a margin).
    type: int
    default: 180
extends_documentation_fragment:
  - boothnet_napalm
author: boothnet
"""

EXAMPLES = r"""
- name: Wait for the device to revert by itself
  boothnet_napalm_rollback:
    hostname: "{{ ansible_host }}"
    username: root
    wait_for_device_revert: true
    wait_timeout: 150
"""

RETURN = r"""
reverted:
  description: True when the previous config is back in force.
  returned: always
  type: bool
reason:
  description: The device's account of the revert, or why it is not known.
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible.module_utils.boothnet_napalm import spec, steps, target  # noqa: E402


def main():
    module = AnsibleModule(
        argument_spec=spec(
            wait_for_device_revert=dict(type="bool", default=False),
            wait_timeout=dict(type="int", default=180),
        ),
        supports_check_mode=False,
    )
    t = target(module)
    p = module.params
    if p["wait_for_device_revert"]:
        res = steps.wait_for_revert(t, p["wait_timeout"])
        module.exit_json(changed=res["reverted"], **res)
    try:
        steps.rollback(t)
    except Exception as exc:
        module.fail_json(msg=str(exc), reverted=False, reason=str(exc))
    module.exit_json(changed=True, reverted=True, reason="rolled back on request")


if __name__ == "__main__":
    main()
