"""Drift: each router's running state against what was deployed to it (the lab's routers from
its state folder; a floor's devices as deploy reaches them)."""

from __future__ import annotations

from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.drift import run_drift
from boothnet.validate.results import DriftRow


class Drift(LiveCheck):
    name = section = field = "drift"
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
