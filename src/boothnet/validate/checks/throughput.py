"""Throughput: every host path by every tool, both ways, against the theoretical limit. Its lanes
also carry the backbone aggregates and the loss tests (checks ``backbone`` and ``loss``): tests
that load no common link run at once. A watch round with a spot check measures one path."""

from __future__ import annotations

from pathlib import Path

from boothnet.validate.checks._measured import PairedCheck, both_ways
from boothnet.validate.checks._plots import throughput_plot
from boothnet.validate.checks.base import Context
from boothnet.validate.perf.calibrate import LabLimits
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.plan import BACKBONE
from boothnet.validate.results import ValidationResults
from boothnet.validate.run import run_throughput_tests
from boothnet.validate.verdicts import timed_stage


class Throughput(PairedCheck):
    name = "throughput"
    order = 80
    title = "Throughput"
    kinds = frozenset({"path"})

    def owns(self, row: ThroughputResult) -> bool:
        return row.kind == "path" and not row.path.startswith(BACKBONE)

    def execute(self, ctx: Context) -> None:
        if ctx.profile.spot_s:  # a watch round's share: one path, the next each round
            short = ctx.net.throughput.model_copy(update={"duration_s": ctx.profile.spot_s})
            net = ctx.net.model_copy(update={"throughput": short})
            self.store(ctx.results, timed_stage(ctx.stages, self.name, lambda: run_throughput_tests(
                net, ctx.access, ctx.progress, spot=ctx.profile.spot_index), "no path"))
        elif ctx.profile.throughput:
            super().execute(ctx)

    def measure(self, ctx: Context) -> list[ThroughputResult]:
        limits = None if ctx.access.on_floor else LabLimits.of(ctx.run.build_root, ctx.progress)
        return run_throughput_tests(ctx.net, ctx.access, ctx.progress, ctx.tunnel_mtu, limits=limits)

    def first_screen(self, results: ValidationResults) -> str | None:
        """The lab's limits the measurements met: rows judged against what this machine's lab
        carries, rows measured again alone, rows no tool could prove here."""
        rows = [r for r in results.throughput if r.kind in ("path", "loss")]
        capped = sorted({said[said.index("judged against what"):] for r in rows
                         if (said := r.explanation or "") and "judged against what" in said})
        again = sum(1 for r in rows if r.retried)
        proven = sum(1 for r in rows if "the path is proven by" in (r.explanation or ""))
        if not (capped or again or proven):
            return None
        parts = [f"This machine's lab limits: {'; '.join(capped)}"] if capped else []
        parts += [f"{again} test(s) this machine's load decided were measured again alone"] if again else []
        parts += [f"{proven} tool row(s) at that tool's own ceiling here, the path proven by the other tool "
                  "(SKIPPED)"] if proven else []
        return ". ".join(parts) + "."

    def plot(self, results: ValidationResults, folder: Path) -> Path | None:
        return throughput_plot(both_ways(self.rows(results)), folder / "throughput.png")


CHECK = Throughput()
