"""Drift: every device's running state against what was deployed to it, read the way a deploy
reads it (the NAPALM driver's load_replace_candidate and compare, then discard: FRR, the nftables
ruleset, swanctl.conf and the interfaces for frr_linux; the running config for IOS and EOS).
A rule added by hand is a difference like any other, named with its device and lines."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from boothnet.deploy.steps import Job, Secrets, Target, deploy
from boothnet.progress import Progress
from boothnet.validate.results import DriftRow, Stage
from boothnet.validate.verdicts import timed_stage

WORKERS = 8
SHOWN_LINES = 12  # changed lines quoted in the row; the whole diff is in the report's JSON
# the lab inventory's host vars the deploy role hands the frr_linux driver (roles/deploy/tasks)
_OPTIONAL = {"pathspace": "boothnet_frr_pathspace", "netns": "boothnet_netns",
             "state_dir": "boothnet_deploy_state_dir", "strongswan_conf": "boothnet_strongswan_conf",
             "swanctl_conf": "boothnet_swanctl_conf", "swanctl_uri": "boothnet_swanctl_uri",
             "key_file": "ansible_ssh_private_key_file", "lldp_socket": "boothnet_lldp_socket"}


@dataclass(frozen=True)
class DriftTarget:
    device: str
    target: Target
    config_dir: Path
    secrets: Secrets


def lab_targets(lab_dir: Path) -> list[DriftTarget]:
    """The lab's routers as the deploy role reaches them, from the lab's generated inventory."""
    data: dict[str, Any] = yaml.safe_load((lab_dir / "inventory.yml").read_text(encoding="utf-8"))
    shared = data["all"].get("vars") or {}
    routers = (data["all"]["children"].get("routers") or {}).get("hosts") or {}
    out = []
    for device, host_vars in sorted(routers.items()):
        found = {**shared, **(host_vars or {})}
        optional = {arg: found[var] for arg, var in _OPTIONAL.items() if var in found}
        optional["known_hosts"] = str(lab_dir / "known_hosts")
        psk = found.get("boothnet_vpn_psk_file")
        target = Target(hostname=found["ansible_host"], username=found.get("ansible_user", "root"),
                        optional_args=optional)
        out.append(DriftTarget(device, target, Path(found["boothnet_config_dir"]),
                               Secrets(files={"BOOTHNET_VPN_PSK": psk} if psk else {})))
    return out


def changed_lines(diff: str) -> list[str]:
    return [line for line in diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def check_drift(item: DriftTarget) -> DriftRow:
    lowest = item.target.capabilities.deploy.revert_in[0]  # check mode: no timer is ever armed
    run = deploy(Job(item.device, item.target, item.config_dir, secrets=item.secrets, revert_in=lowest), check=True)
    if run.error:
        return DriftRow(device=item.device, verdict="ERROR", cause=f"could not read its running state: {run.error}")
    diff = (run.commit or {}).get("diff") or ""
    lines = changed_lines(diff)
    if not lines:
        return DriftRow(device=item.device, verdict="PASS")
    shown = "; ".join(lines[:SHOWN_LINES]) + (f"; ... {len(lines) - SHOWN_LINES} more" if len(lines) > SHOWN_LINES
                                               else "")
    return DriftRow(device=item.device, verdict="FAIL", diff=diff,
                    cause=f"running differs from what was deployed in {len(lines)} lines (- only running, "
                          f"+ only deployed): {shown}")


def run_drift(devices: Path | list[DriftTarget], progress: Progress) -> list[DriftRow]:
    """``devices``: the lab's state folder (its routers), or a floor's devices as deploy reaches them."""
    targets = lab_targets(devices) if isinstance(devices, Path) else devices
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        rows = list(pool.map(check_drift, targets))
    for row in rows:
        progress(f"[drift] {row.device}: {row.verdict}{f': {row.cause}' if row.cause else ''}")
    return rows


def drift_stage(lab_dir: Path, progress: Progress, name: str = "drift after deploy") -> Stage:
    """The drift check as one stage (right after a deploy): FAIL or ERROR names each device."""
    stages: list[Stage] = []
    rows = timed_stage(stages, name, lambda: run_drift(lab_dir, progress), "no routers in the lab")
    stage = stages[0]
    if bad := [f"{row.device}: {row.cause}" for row in rows if row.verdict != "PASS"]:
        stage.reason = "; ".join(bad)
    stage.note = f"{len(rows)} devices compared"
    return stage
