"""Drift: each router's running state against what was deployed to it (the lab's routers from
its state folder; a floor's devices as deploy reaches them), read the way a deploy reads it (the
NAPALM driver's load_replace_candidate and compare, then discard: FRR, the nftables ruleset,
swanctl.conf and the interfaces for frr_linux; the running config for IOS and EOS). A rule added
by hand is a difference like any other, named with its device and lines."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from boothnet.deploy.steps import Job, deploy
from boothnet.progress import Progress
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.drift import DriftTarget, lab_targets
from boothnet.validate.results import DriftRow, Stage
from boothnet.validate.verdicts import timed_stage

WORKERS = 8
SHOWN_LINES = 12  # changed lines quoted in the row; the whole diff is in the report's JSON


class Drift(LiveCheck):
    name = section = field = "drift"
    row_type = DriftRow
    order = 150
    title = "Drift: running against deployed"
    header = ("verdict", "device", "difference")
    empty = "no routers to compare"
    alarm_rank = 40

    def measure(self, ctx: Context) -> list[DriftRow]:
        return run_drift(ctx.access.routers(), ctx.progress)

    def subject(self, row: DriftRow) -> str:
        return f"device {row.device}"

    def message(self, row: DriftRow) -> str:
        return row.cause or "differs from what was deployed"

    def action(self, row: DriftRow) -> str:
        return f"find who changed {row.device}; redeploy (make deploy) or put the change into the intent"

    def key(self, row: DriftRow) -> str:
        return f"drift {row.device}"

    def cells(self, row: DriftRow) -> list[str]:
        return [row.verdict, row.device, row.cause or ""]


CHECK = Drift()


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
