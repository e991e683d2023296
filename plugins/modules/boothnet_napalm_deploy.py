#!/usr/bin/python
"""Deploy one device: backup, diff, commit-confirm, health check, confirm or revert (NAPALM)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_napalm_deploy
short_description: Replace a device's config with its rendered candidate, commit-confirm style
description:
  - In one session, loads the candidate as a replace candidate, returns the diff (shown with
    C(--diff)), backs up the running config and commits with a device-side revert timer.
  - A health check over a second session follows (management reachable, the intent's
    interfaces up, OSPF neighbors Full, nothing left between running and candidate); the
    first session then confirms, or the commit stays unconfirmed and the module waits for
    the device to restore its previous config by itself.
  - In check mode only the diff is computed; the device is not changed.
  - Writes the device's record (which config is in force) under O(deploy_dir); fails unless
    the new config is in force.
  - "Runs on the controller; use C(connection: local)."
options:
  config_dir:
    description: Rendered candidate (C(build/<network>/configs/<device>); IOS/EOS read C(<device>.cfg) beside it).
    type: path
    required: true
  revert_in:
    description: Seconds after which the device restores its backup unless confirmed (IOS whole minutes, 60-7200).
    type: int
    default: 120
  backup_dir:
    description: Controller folder for the backup of the running config.
    type: path
  device:
    description: Device name for messages and records.
    type: str
    required: true
  deploy_dir:
    description: Folder of the run's records (C(build/<network>/deploy)).
    type: path
    required: true
  health_timeout:
    description: Seconds the health check waits for OSPF adjacencies.
    type: int
    default: 30
  revert_margin:
    description: Seconds to wait beyond O(revert_in) for a device that reverts by itself.
    type: int
    default: 30
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_napalm
  - boothnet.boothnet.boothnet_napalm.secrets
author: boothnet
"""

EXAMPLES = r"""
- name: Deploy core1 with a 120 s revert timer
  boothnet_napalm_deploy:
    hostname: "{{ ansible_host | default(mgmt_address) }}"
    username: "{{ ansible_user }}"
    password: "{{ ansible_password }}"
    platform: cisco_ios
    config_dir: "build/sc-booth/configs/{{ inventory_hostname }}"
    device: "{{ inventory_hostname }}"
    deploy_dir: build/sc-booth/deploy
    revert_in: 120
"""

RETURN = r"""
result:
  description: The device's record (outcome, in_force, reason, changed_parts, backup).
  returned: always
  type: dict
commit:
  description: The load/diff/commit step (changed, diff, parts, committed, backup).
  returned: when the device was reached
  type: dict
health:
  description: The health report (healthy, reason, management, interfaces, adjacencies, device).
  returned: when committed
  type: dict
revert:
  description: What the device said while reverting (reverted, reachable, reason).
  returned: when a commit was left unconfirmed
  type: dict
"""

import time  # noqa: E402
from pathlib import Path  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_napalm import (  # noqa: E402
    SECRETS_SPEC,
    Busy,
    hold,
    results,
    secrets,
    spec,
    steps,
    target,
)

IN_FORCE_OK = ("new-confirmed", "unchanged", "check-only")


def main():
    module = AnsibleModule(
        argument_spec=spec(
            **SECRETS_SPEC,
            config_dir=dict(type="path", required=True),
            revert_in=dict(type="int", default=120),
            backup_dir=dict(type="path"),
            device=dict(type="str", required=True),
            deploy_dir=dict(type="path", required=True),
            health_timeout=dict(type="int", default=30),
            revert_margin=dict(type="int", default=30),
        ),
        supports_check_mode=True,
    )
    t = target(module)
    p = module.params
    started = time.monotonic()
    network_dir = Path(p["deploy_dir"]).parent  # build/<network>: shared by the devices of this deploy
    try:
        with hold(network_dir / ".lock", str(network_dir), f"ansible deploy of {p['device']}", shared=True):
            run = steps.deploy(
                t, Path(p["config_dir"]), revert_in=p["revert_in"], check=module.check_mode,
                backup_root=Path(p["backup_dir"]) if p["backup_dir"] else None, device=p["device"],
                secrets=secrets(module), health_timeout=p["health_timeout"], revert_margin=p["revert_margin"],
            )
    except Busy as exc:
        module.fail_json(msg=f"{p['device']}: not deployed: {exc}")
    record = run.result(p["device"], module.check_mode, round(time.monotonic() - started, 2), t)
    results.record(Path(p["deploy_dir"]), record)
    would_change = bool(run.commit and (run.commit["committed"] or (module.check_mode and run.commit["changed"])))
    out = dict(result=record.as_dict(), commit=run.commit, health=run.health, revert=run.revert, changed=would_change)
    if run.commit is not None:
        out["diff"] = {"before_header": "running", "after_header": "candidate", "prepared": run.commit["diff"]}
    if record.outcome not in IN_FORCE_OK:
        module.fail_json(msg=f"{p['device']}: {record.outcome}: {record.reason} (config in force: {record.in_force})",
                         **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
