#!/usr/bin/python
"""Load a rendered candidate, diff it and commit it with a revert timer (NAPALM)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_napalm_config
short_description: Replace a device config with a rendered candidate, commit-confirm style
description:
  - Loads the candidate as a replace candidate, returns the diff (shown with C(--diff)),
    backs up the running config and commits with a device-side revert timer.
  - In check mode only the diff is computed; the device is not changed.
  - A candidate the device rejects fails the task before anything is applied
    (C(failed_before_apply=true)).
  - "Runs on the controller; use C(connection: local)."
options:
  config_dir:
    description: Rendered candidate folder (C(build/<network>/configs/<device>/)).
    type: path
    required: true
  revert_in:
    description: Seconds after which the device restores its backup unless confirmed.
    type: int
    default: 120
  backup_dir:
    description: Controller folder for the backup of the running config.
    type: path
  device:
    description: Device name for messages and the commit message.
    type: str
    default: ""
extends_documentation_fragment:
  - boothnet_napalm
  - boothnet_napalm.secrets
author: boothnet
"""

EXAMPLES = r"""
- name: Commit with a 120 s revert timer
  boothnet_napalm_config:
    hostname: "{{ ansible_host }}"
    username: "{{ ansible_user }}"
    key_file: "{{ ansible_ssh_private_key_file }}"
    known_hosts: build/sc-booth/lab/known_hosts
    optional_args:
      pathspace: "{{ boothnet_frr_pathspace }}"
    config_dir: "build/sc-booth/configs/{{ inventory_hostname }}"
    revert_in: 120
"""

RETURN = r"""
diff:
  description: Unified diff of every part against the running config.
  returned: always
  type: dict
parts:
  description: Names of the parts that differ.
  returned: always
  type: list
committed:
  description: Whether a commit was made (and awaits confirmation).
  returned: always
  type: bool
backup:
  description: Controller folder holding the running config taken before the commit.
  returned: when committed
  type: str
ospf_before:
  description: OSPF neighbors per interface before the commit, for the health check.
  returned: always
  type: dict
failed_before_apply:
  description: True when the device rejected the candidate; nothing was changed.
  returned: failure
  type: bool
"""

from pathlib import Path  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible.module_utils.boothnet_napalm import SECRETS_SPEC, secrets, spec, steps, target  # noqa: E402


def main():
    module = AnsibleModule(
        argument_spec=spec(
            **SECRETS_SPEC,
            config_dir=dict(type="path", required=True),
            revert_in=dict(type="int", default=120),
            backup_dir=dict(type="path"),
            device=dict(type="str", default=""),
        ),
        supports_check_mode=True,
    )
    t = target(module)
    p = module.params
    try:
        res = steps.config(
            t,
            Path(p["config_dir"]),
            revert_in=p["revert_in"],
            check=module.check_mode,
            backup_root=Path(p["backup_dir"]) if p["backup_dir"] else None,
            device=p["device"],
            secrets=secrets(module),
        )
    except steps.REJECTED as exc:
        module.fail_json(msg=f"rejected before apply: {exc}", failed_before_apply=True,
                         committed=False)
    except Exception as exc:  # unreachable device, apply failure (device restored itself)
        module.fail_json(msg=str(exc), failed_before_apply=False, committed=False,
                         error_type=type(exc).__name__)
    diff = {"before_header": "running", "after_header": "candidate", "prepared": res["diff"]}
    module.exit_json(
        changed=res["changed"], diff=diff, parts=res["parts"], committed=res["committed"],
        backup=res["backup"], ospf_before=res["ospf_before"],
    )


if __name__ == "__main__":
    main()
