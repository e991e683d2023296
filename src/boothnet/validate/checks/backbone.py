"""Backbone: each device link loaded by the hosts whose traffic crosses it, all at once (planned
by ``plan.backbone_tests``, measured in the throughput check's lanes), judged on the sum against
the link's speed, and in the lab against what its stand-in routers forward; each wire's counters
say what it carried."""

from __future__ import annotations

from pathlib import Path

from boothnet.booth.cables import cable_label
from boothnet.intent import Network
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks._measured import PairedCheck, both_ways
from boothnet.validate.checks._plots import throughput_plot
from boothnet.validate.counters import lab_shapers
from boothnet.validate.perf.judges import CEILING_SHARE
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.plan import BACKBONE, ThroughputTest
from boothnet.validate.results import ValidationResults
from boothnet.validate.run import LaneJob, Lanes, measure_tcp

SHAPED_AT_SPEED = 0.98  # an htb class's rate is its frames' share of line rate: 0.984 at MTU 1500, more for jumbo


class Backbone(PairedCheck):
    name = "backbone"
    order = 81
    title = "Backbone aggregates (every host whose traffic crosses the link, at once)"
    kinds = frozenset({"path"})
    rides = "throughput"

    def owns(self, row: ThroughputResult) -> bool:
        return row.kind == "path" and row.path.startswith(BACKBONE)

    def lane_jobs(self, lanes: Lanes) -> list[LaneJob]:
        """Each aggregate by each tool, both ways; none in a spot check."""
        if lanes.spot is not None:
            return []
        tests = [test for test in lanes.tests if test.across is not None]
        ceilings = {} if lanes.limits is None else \
            {test.name: lanes.limits.forwarding(len(test.flows), lanes.mtu_of(test)) for test in tests}

        def measure(job: LaneJob) -> ThroughputResult:
            return measure_tcp(lanes, job, lanes.expected(job.test), judged=lambda result: judge_across(
                lanes.net, lanes.access, job.test, result, ceilings.get(job.test.name)))

        return [LaneJob(test, tool, reverse, measure)
                for test in tests for tool in lanes.net.throughput.tools for reverse in (False, True)]

    def plot(self, results: ValidationResults, folder: Path) -> Path | None:
        return throughput_plot(both_ways(self.rows(results)), folder / "backbone.png")


CHECK = Backbone()


def judge_across(net: Network, access: Access, test: ThroughputTest, result: ThroughputResult,
                 forwards: float | None) -> ThroughputResult:
    """A backbone aggregate names its link. Slower than its limit: the hosts' own tests reach
    their ports' speed, so the link does not; in the lab, only when the lab's own cable (the
    link's shaper) runs below its speed, and judged against what a stand-in router forwards here
    (``forwards``, b/s for the test's flows) when the intent asks more. Faster than a trunk: in a
    lab that wires each VLAN of a trunk on its own (segment mode), the trunk's shared capacity
    cannot be proven."""
    link = test.across
    if link is None or result.verdict != Status.FAIL or not result.succeeded or not result.expected:
        return result
    label, expected = cable_label(net, link), result.expected
    if result.throughput > expected:
        if link.mode == "trunk" and access.trunk_per_vlan():
            return result.model_copy(update={"verdict": Status.PASS, "explanation": (
                f"faster than {label} allows ({result.throughput / 1e6:.1f} Mb/s): this lab wires each VLAN of a "
                "trunk on its own, so the trunk's shared capacity is proven only on the floor")})
        return result
    lab_limit = CEILING_SHARE * (forwards or 0)
    asks_more = not access.on_floor and forwards is not None and expected > lab_limit
    dropped = None
    if asks_more and "lossy" in result.causes:
        # a router forwarding in software drops what it cannot carry, as a congested queue does:
        # asked more than it forwards, its retransmits tell nothing of the cable
        dropped = (f"its {result.retransmits} retransmits are frames this lab's software forwarding could not "
                   "carry, not a cable's")
        result = result.model_copy(update={"causes": [c for c in result.causes if c != "lossy"],
                                           "explanation": None})
    if result.explanation:  # retransmits, or CPU-bound: said already
        return result
    speed = net.link_speed(link)
    said = (f"{result.throughput / 1e6:.1f} Mb/s across {label}, {result.throughput / expected:.0%} of the "
            f"{expected / 1e6:.1f} Mb/s it should carry")
    cable = f"the link runs below its {speed} Mb/s (a slower optic or DAC, a speed or duplex mismatch, a shaper)"
    if access.on_floor:
        return result.model_copy(update={"explanation": f"{said}: {cable}"})
    ceiling = None
    if asks_more and forwards is not None:
        ceiling = (f"judged against what this lab's stand-in routers forward here, {lab_limit / 1e6:.0f} Mb/s "
                   f"({forwards / 1e6:.0f} Mb/s for {len(test.flows)} flows through one scratch router, alone): "
                   f"the intent's {expected / 1e6:.0f} Mb/s can only be proven on the floor")
        if result.throughput >= net.throughput.pass_ratio * lab_limit:
            return result.model_copy(update={"verdict": Status.PASS,
                                             "explanation": "; ".join(filter(None, [ceiling, dropped]))})
    shapers = lab_shapers(net, access, link)
    slow = [f"{end} at {rate / 1e6:.0f} Mb/s" for end, rate in shapers.items()
            if rate is not None and rate < SHAPED_AT_SPEED * speed * 1e6]
    if slow or not shapers or None in shapers.values():
        shaped = f"; the lab shapes {', '.join(slow)}" if slow else ""
        return result.model_copy(update={"explanation": "; ".join(filter(None, [f"{said}: {cable}{shaped}", ceiling]))})
    lab = (f"{said}, yet the lab shapes {label} at its {speed} Mb/s on every end: not the cable but this lab's "
           "software forwarding on this machine's cores (no verdict; on the floor there is no such cap)")
    return result.model_copy(update={"verdict": Status.ERROR, "causes": [*result.causes, "lab_ceiling"],
                                     "explanation": "; ".join(filter(None, [lab, ceiling, dropped]))})
