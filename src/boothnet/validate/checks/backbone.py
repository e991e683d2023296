"""Backbone: each device link loaded by the hosts whose traffic crosses it, all at once (planned
by ``plan.backbone_tests``, measured in the throughput check's lanes), judged on the sum against
the link's speed; each wire's counters say what it carried."""

from __future__ import annotations

from pathlib import Path

from boothnet.validate.checks._measured import PairedCheck, both_ways
from boothnet.validate.checks._plots import throughput_plot
from boothnet.validate.checks.base import Context
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.plan import BACKBONE
from boothnet.validate.results import ValidationResults


class Backbone(PairedCheck):
    name = "backbone"
    order = 81
    title = "Backbone aggregates (every host whose traffic crosses the link, at once)"
    kinds = frozenset({"path"})

    def owns(self, row: ThroughputResult) -> bool:
        return row.kind == "path" and row.path.startswith(BACKBONE)

    def execute(self, ctx: Context) -> None:
        """Measured in the throughput check's lanes, beside the host paths."""

    def plot(self, results: ValidationResults, folder: Path) -> Path | None:
        return throughput_plot(both_ways(self.rows(results)), folder / "backbone.png")


CHECK = Backbone()
