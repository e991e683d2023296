"""WAN sweep: each tool at each window of the sweep on every declared WAN path, judged together
per tool: throughput must follow the window up to the path's limit."""

from __future__ import annotations

from pathlib import Path

from boothnet.validate.checks._plots import window_sweep_plot
from boothnet.validate.checks.base import Context
from boothnet.validate.checks.wan import Wan, declared_paths
from boothnet.validate.perf.calibrate import window_factor
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.perf.wan import run_wan_sweep
from boothnet.validate.results import ValidationResults


class WanSweep(Wan):
    name = "wan sweep"
    order = 120
    title = "WAN paths: window sweep"
    kinds = frozenset({"sweep"})

    def skip(self, ctx: Context) -> str | None:
        if not declared_paths(ctx):
            return self.empty
        return None if ctx.profile.wan_sweep else "--no-wan-sweep"

    def measure(self, ctx: Context) -> list[ThroughputResult]:
        factor = window_factor(ctx.run.build_root, ctx.progress)
        return [point for path in declared_paths(ctx)
                for point in run_wan_sweep(ctx.access.runner, path, ctx.access.node, ctx.net, ctx.progress, factor,
                                           lab=ctx.access.forwards_here)]

    def plot(self, results: ValidationResults, folder: Path) -> Path | None:
        return window_sweep_plot(self.rows(results), {r.path: r.declared_ms for r in results.rtt},
                                 folder / "window_sweep.png")


CHECK = WanSweep()
