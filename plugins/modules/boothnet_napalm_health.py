#!/usr/bin/python
"""Health check after a commit: management, adjacencies, the device's own view."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_napalm_health
short_description: Check a device after a commit, before confirming it
description:
  - Opens a new NAPALM session (management reachability), waits for the OSPF adjacencies
    the candidate needs to be Full and checks that the running config equals the candidate.
  - Never changes the device; returns C(healthy) rather than failing, so the caller decides.
options:
  config_dir:
    description: The committed candidate folder.
    type: path
    required: true
  ospf_before:
    description: The C(ospf_before) return of M(boothnet_napalm_config).
    type: dict
    default: {}
  health_timeout:
    description: Seconds to wait for adjacencies to become Full.
    type: int
    default: 30
extends_documentation_fragment:
  - boothnet_napalm
  - boothnet_napalm.secrets
author: boothnet
"""

EXAMPLES = r"""
- name: Health check
  boothnet_napalm_health:
    hostname: "{{ ansible_host }}"
    username: root
    config_dir: "build/sc-booth/configs/{{ inventory_hostname }}"
    ospf_before: "{{ commit.ospf_before }}"
"""

RETURN = r"""
healthy:
  description: True when every check passed.
  returned: always
  type: bool
report:
  description: Failures by check (management, adjacencies, device).
  returned: always
  type: dict
"""

from pathlib import Path  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible.module_utils.boothnet_napalm import SECRETS_SPEC, secrets, spec, steps, target  # noqa: E402


def main():
    module = AnsibleModule(
        argument_spec=spec(
            **SECRETS_SPEC,
            config_dir=dict(type="path", required=True),
            ospf_before=dict(type="dict", default={}),
            health_timeout=dict(type="int", default=30),
        ),
        supports_check_mode=True,
    )
    t = target(module)
    p = module.params
    try:
        report = steps.health(t, Path(p["config_dir"]), p["ospf_before"], p["health_timeout"],
                              secrets=secrets(module))
    except steps.REJECTED as exc:
        module.fail_json(msg=f"health check: {exc}")
    module.exit_json(changed=False, healthy=report.ok, report=report.as_dict(),
                     reason=report.reason)


if __name__ == "__main__":
    main()
