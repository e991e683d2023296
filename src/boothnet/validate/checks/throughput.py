"""Throughput: every host path by every tool, both ways, against the theoretical limit. Its lanes
also carry the checks that ride them (``rides = "throughput"``: backbone and loss), each through
its ``lane_jobs``: tests that load no common link run at once. A watch round with a spot check
measures one path."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from boothnet.intent import Network
from boothnet.progress import Progress
from boothnet.validate.access import Access
from boothnet.validate.checks._measured import PairedCheck, both_ways
from boothnet.validate.checks._plots import throughput_plot
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.perf.calibrate import LabLimits
from boothnet.validate.perf.run import ToolName
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.plan import BACKBONE, ThroughputTest, expected_for, path_mtu
from boothnet.validate.results import ValidationResults
from boothnet.validate.run import LaneJob, Lanes, in_turn, measure_tcp
from boothnet.validate.verdicts import timed_stage

STREAM_SHARE = 0.7  # of what one stream carries on a bare veth pair: a lab path adds hops on the same cores
FAST_PATH_BPS = 2e9  # a slower path is within one stream's reach on any machine the lab runs on


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
        """Its rows and those of the checks that ride its lanes (one field, in the lanes' order)."""
        limits = None if ctx.access.on_floor else LabLimits.of(ctx.run.build_root, ctx.progress)
        return run_throughput_tests(ctx.net, ctx.access, ctx.progress, ctx.tunnel_mtu, limits=limits)

    def store(self, results: ValidationResults, rows: Sequence[ThroughputResult]) -> None:
        """The lanes' rows, each through the check it is of: its riders' (backbone, loss) through
        theirs, the rest as its own; in the lanes' order, which is the checks' order."""
        riders = _riders()
        super().store(results, [row for row in rows if not any(rider.owns(row) for rider in riders)])
        for rider in riders:
            rider.store(results, [row for row in rows if rider.owns(row)])

    def lane_jobs(self, lanes: Lanes) -> list[LaneJob]:
        """Each host path by each tool, both ways; a spot check's one of them."""
        tests = [test for test in lanes.tests if test.across is None]
        streams = stream_limits(lanes.net, tests, lanes.tunnel_mtu, lanes.limits, lanes.progress)

        def measure(job: LaneJob) -> ThroughputResult:
            expected, capped = streams.get((job.test.name, job.tool), (lanes.expected(job.test), ""))
            return measure_tcp(lanes, job, expected, capped)

        jobs = [LaneJob(test, tool, reverse, measure)
                for test in tests for tool in lanes.net.throughput.tools for reverse in (False, True)]
        if lanes.spot is not None:
            return [jobs[lanes.spot % len(jobs)]] if jobs else []
        return jobs

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


def run_throughput_tests(
    net: Network, access: Access, progress: Progress, tunnel_mtu: int | None = None,
    spot: int | None = None, limits: LabLimits | None = None,
) -> list[ThroughputResult]:
    """Every host path by every tool, both ways, and the jobs of each check that rides these lanes
    (backbone aggregates, each path family's loss test), all in this machine's measurement turn.
    ``spot`` (watch's spot check): only that one measurement of a host path (not a backbone
    aggregate, not a loss test), counted round the list, so that each round takes the next.
    ``limits``: what this machine's lab carries (calibrate.LabLimits: a stand-in router's
    forwarding, one tool's stream), measured before any lane starts; a test that asks more is
    judged against that, and says so."""
    return in_turn(Lanes(net, access, progress, tunnel_mtu, spot, limits),
                   lambda lanes: [job for check in (CHECK, *_riders()) for job in check.lane_jobs(lanes)])


def _riders() -> list[LiveCheck]:
    """The catalog's checks measured in these lanes, in their order (found at run time: the
    catalog imports this module)."""
    from boothnet.validate.checks import catalog

    return [check for check in catalog() if check.rides == CHECK.name]


def stream_limits(net: Network, tests: list[ThroughputTest], tunnel_mtu: int | None, limits: LabLimits | None,
                  progress: Progress) -> dict[tuple[str, ToolName], tuple[float, str]]:
    """For each host path test and tool whose limit is above what the tool's streams carry on this
    machine (STREAM_SHARE of LabLimits.stream, a stream per flow): that share, and the sentence that
    says it; said once, before any lane starts."""
    capped: dict[tuple[str, ToolName], tuple[float, str]] = {}
    if limits is None:
        return capped
    for test in tests:
        client, server = test.flows[0]
        expected = test.expected_bps or expected_for(net, client, server, tunnel_mtu, test.family)
        if test.across is not None or expected <= FAST_PATH_BPS:
            continue
        mtu = min(path_mtu(net, c, s, tunnel_mtu) for c, s in test.flows)
        for tool in net.throughput.tools:
            carried = limits.stream(tool, mtu) * len(test.flows)
            if STREAM_SHARE * carried < net.throughput.pass_ratio * expected:
                capped[(test.name, tool)] = (STREAM_SHARE * carried, (
                    f"judged against what {len(test.flows)} {tool} stream(s) carry in this machine's lab, "
                    f"{STREAM_SHARE * carried / 1e6:.0f} Mb/s ({STREAM_SHARE:.0%} of {carried / 1e6:.0f} Mb/s between "
                    f"two namespaces at MTU {mtu}): the intent's {expected / 1e6:.0f} Mb/s can only be proven on the "
                    "floor"))
    for (name, tool), (_, said) in sorted(capped.items()):
        progress(f"[throughput] {name} {tool}: {said}")
    return capped
