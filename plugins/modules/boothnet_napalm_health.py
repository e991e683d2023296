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
from ansible.module_utils.boothnet_napalm import spec, steps, target  # noqa: E402


def main():
    module = AnsibleModule(
        argument_spec=spec(
            config_dir=dict(type="path", required=True),
            ospf_before=dict(type="dict", default={}),
            health_timeout=dict(type="int", default=30),
        ),
        supports_check_mode=True,
    )
    t = target(module)
    p = module.params
    report = steps.health(t, Path(p["config_dir"]), p["ospf_before"], p["health_timeout"])
    module.exit_json(changed=False, healthy=report.ok, report=report.as_dict(),
                     reason=report.reason)


if __name__ == "__main__":
    main()
