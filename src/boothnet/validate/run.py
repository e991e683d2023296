"""The lanes every measuring check shares: tests that load no common link run at once, in this
machine's measurement turn, each flow on its own block of ports. A check puts its measurements in
the lanes as ``LaneJob``s (``LiveCheck.lane_jobs``); what it plans, measures and judges is its own
module's (``validate/checks/``). Here: the lanes, the TCP measurement of a test that throughput
and backbone both make, and the port blocks that production's transfers take too."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property, partial

from boothnet.booth.cables import cable_plan
from boothnet.derive.policy import PolicyCompiler, compiler_of, policy_decision
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.locks import measurement_turn
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.counters import carried, describe
from boothnet.validate.lanes import run_disjoint
from boothnet.validate.perf.calibrate import LabLimits
from boothnet.validate.perf.ports import TOOL_PORTS, PortAllocator, PortBlock
from boothnet.validate.perf.probes import duplicates_meanwhile
from boothnet.validate.perf.quiet import LaneControl, MachineLoad, measure_again, proven_by_another_tool
from boothnet.validate.perf.run import ToolName, ToolRequest, combine, run_throughput
from boothnet.validate.perf.runner import listening_ports
from boothnet.validate.perf.schema import LinkLoad, ThroughputResult, busy_share, judge, lab_cpu_bound, machine_cpu
from boothnet.validate.plan import ThroughputTest, device_links, expected_for, host_prefix, path_mtu, throughput_tests

DEFAULT_LANES = 8  # sc-booth's 196 LAN measurements on 2 cores: 311 s in 2 lanes, 89 s in 8, every ratio >= 0.997


class Unprobed(RuntimeError):
    """A host of the test cannot run it (unreachable, or without the tool): ERROR, not a verdict."""


@dataclass(frozen=True)
class LaneJob:
    """One measurement in the lanes: a test, by one tool, in one direction (reverse: the server
    sends); ``measure`` is its check's: it measures and judges the job, and says its line."""

    test: ThroughputTest
    tool: ToolName
    reverse: bool
    measure: Callable[[LaneJob], ThroughputResult] = field(compare=False, repr=False)

    def __call__(self) -> ThroughputResult:
        return self.measure(self)


@dataclass
class Lanes:
    """What the measurements of one turn share: the network, how it is reached, the ports taken,
    the planned tests, and what this machine's lab carries (``limits``, calibrate.LabLimits,
    measured before any lane starts: none on a floor or for a spot check). ``spot`` (watch's spot
    check): only that one measurement of a host path, counted round the list."""

    net: Network
    access: Access
    progress: Progress
    tunnel_mtu: int | None = None
    spot: int | None = None
    limits: LabLimits | None = None
    allocator: PortAllocator = field(default_factory=PortAllocator)

    def __post_init__(self) -> None:
        if self.access.on_floor or self.spot is not None:
            self.limits = None

    @cached_property
    def compiler(self) -> PolicyCompiler:
        return compiler_of(self.net)

    @cached_property
    def tests(self) -> list[ThroughputTest]:
        return throughput_tests(self.net)

    @cached_property
    def _host_cables(self) -> dict[str, str]:
        return {end.device: cable.text for cable in cable_plan(self.net) for end in (cable.a, cable.b)
                if end.device in self.net.endpoints}

    def cables_of(self, test: ThroughputTest) -> str:
        return ", ".join(self._host_cables[h.name] for h in test.hosts if h.name in self._host_cables)

    def mtu_of(self, test: ThroughputTest) -> int:
        return min(path_mtu(self.net, c, s, self.tunnel_mtu) for c, s in test.flows)

    def expected(self, test: ThroughputTest) -> float:
        """Its limit, b/s: together, the clients share the server's access link, so the sum's."""
        client, server = test.flows[0]
        return test.expected_bps or expected_for(self.net, client, server, self.tunnel_mtu, test.family)

    def run(self, jobs: list[LaneJob]) -> list[ThroughputResult]:
        """Every job, tests that load no common link at once, in up to ``throughput.parallel``
        lanes (DEFAULT_LANES); the rows in the jobs' order."""
        lanes = self.net.throughput.parallel or DEFAULT_LANES
        if not self.access.forwards_here or self.spot is not None:
            return run_disjoint(jobs, _links, LaneJob.__call__, lanes)
        # in the lab the tools share the cores with the forwarding: fewer lanes where they starve
        control, started = LaneControl(lanes), time.monotonic()
        results = run_disjoint(jobs, _links, lambda job: control.done(job()), lanes, admit=control.has_room)
        return proven_by_another_tool(measure_again(jobs, results, LaneJob.__call__, MachineLoad(), self.progress,
                                                    time.monotonic() - started))


def _links(job: LaneJob) -> frozenset[str]:
    return job.test.links


def in_turn(lanes: Lanes, jobs: Callable[[Lanes], list[LaneJob]]) -> list[ThroughputResult]:
    """The lanes' jobs planned and run in this machine's measurement turn (a nested turn holds it once)."""
    with measurement_turn(lanes.progress):
        return lanes.run(jobs(lanes))


def measure_tcp(lanes: Lanes, job: LaneJob, expected: float, capped: str = "",
                judged: Callable[[ThroughputResult], ThroughputResult] | None = None) -> ThroughputResult:
    """A TCP test's flows at once, each client to its server on its own port block, judged against
    ``expected`` (b/s; ``capped``: why that is this lab's limit rather than the intent's), then by
    ``judged`` (a backbone aggregate's link); an aggregate's wires say what each carried."""
    net, access, test, tool = lanes.net, lanes.access, job.test, job.tool
    blocks: list[PortBlock] = []  # one per flow, each its own server: taken here, not in the threads
    try:
        for host in test.hosts:
            if why := access.why_not(host.name, tool):
                raise Unprobed(why)
        blocks = flow_blocks(net, access, lanes.compiler, lanes.allocator, test, tool)
        together = threading.Barrier(len(test.flows))
        crossed = device_links(net, test) if test.across else []
        senders = sorted({access.node((s if job.reverse else c).name) for c, s in test.flows})
        cpu_before = machine_cpu()
        with carried(net, access, crossed, net.throughput.duration_s) as loads, \
                ThreadPoolExecutor(max_workers=len(test.flows)) as pool:
            measured, duplicates = duplicates_meanwhile(access.runner, senders, lambda: list(pool.map(
                partial(_measure, net, access, job, together), test.flows, blocks)))
        busy = busy_share(cpu_before, machine_cpu()) if access.forwards_here else None
        result = judge(combine(measured, test.name).model_copy(update={
            "duplicates": duplicates, "machine_busy": busy, "family": test.family}), expected,
            net.throughput.pass_ratio, path_mtu=lanes.mtu_of(test), cables=lanes.cables_of(test))
        result = _lab_said(judged(result) if judged else result, capped, loads if test.across is not None else None)
    except (ValueError, RuntimeError) as exc:  # no port block; a server that never listened
        result = _unmeasured(job, exc, expected, net.throughput.pass_ratio)
    finally:
        for block in blocks:
            lanes.allocator.release(block)
    lanes.progress(f"[throughput] {test.name}{' (reverse)' if job.reverse else ''} {tool}: "
                   f"{result.throughput / 1e6:.1f} Mb/s (expected {expected / 1e6:.1f}) {result.verdict}")
    return result


def _measure(net: Network, access: Access, job: LaneJob, start_together: threading.Barrier,
             flow: tuple[Endpoint, Endpoint], block: PortBlock) -> ThroughputResult:
    client, server = flow
    return run_throughput(access.runner, ToolRequest(
        job.tool, access.node(server.name), access.node(client.name), job.test.address_of(net, server), block,
        streams=net.throughput.streams, duration=net.throughput.duration_s, reverse=job.reverse,
        path=job.test.name, source=client.name, destination_label=server.name), start_together=start_together)


def _lab_said(result: ThroughputResult, capped: str, loads: list[LinkLoad] | None) -> ThroughputResult:
    """A judged run, said CPU-bound in the lab where the machine's load accounts for it
    (lab_cpu_bound); with why its limit is the lab's (``capped``) and, for an aggregate, what each
    wire carried (``loads``)."""
    if result.machine_busy is not None:
        result = lab_cpu_bound(result, result.machine_busy)
    said = "; ".join(filter(None, [result.explanation, capped, describe(loads) if loads is not None else ""]))
    wires = {"link_loads": loads} if loads is not None else {}
    return result.model_copy(update={"explanation": said or None, **wires})


def _unmeasured(job: LaneJob, exc: Exception, expected: float, ratio: float) -> ThroughputResult:
    """The row of a test that could not run: a FAIL, or an ERROR where a host cannot run the tool."""
    first_client, first_server = job.test.flows[0]
    ends = [first_client.name, first_server.name]
    result = judge(ThroughputResult(tool=job.tool, succeeded=False, error=str(exc), path=job.test.name,
                                    reverse=job.reverse, source=ends[job.reverse], destination=ends[not job.reverse]),
                   expected, ratio)
    return result.model_copy(update={"verdict": Status.ERROR}) if isinstance(exc, Unprobed) else result


def _ports_needed(tool: ToolName, streams: int) -> int:
    """What each tool needs open on the server: iperf3 one port; nuttcp control + one per stream."""
    return 1 if tool == "iperf3" else streams + 1


def port_block(
    net: Network,
    compiler: PolicyCompiler,
    allocator: PortAllocator,
    test: ThroughputTest,
    tool: ToolName,
    flow: tuple[Endpoint, Endpoint],
    busy: set[int],
    protos: tuple[str, ...] = ("tcp",),
) -> PortBlock:
    """The allocator's block when the policy lets the client reach all of it (the usual case
    inside a VLAN); otherwise the first free run of ports the policy opens toward the server
    (a path through a firewall or the VPN: list the tools' ports in the rule). ``busy``:
    ports that listen on the server already (sshd's 22) or other clients of this test took."""
    client, server = flow
    needed = _ports_needed(tool, net.throughput.streams)
    src_vlan = net.vlan_by_name()[client.vlan]
    same_vlan = client.vlan == server.vlan

    def open_(port: int) -> bool:
        return same_vlan or all(
            policy_decision(compiler, src_vlan, host_prefix(client), host_prefix(server), proto, port)[0] == "permit"
            for proto in protos)

    block = allocator.allocate(f"{test.name}/{client.name}/{tool}", server.name, busy)
    if all(open_(p) for p in block.ports[:needed]):
        return block
    allocator.release(block)
    listed = sorted({p for rule in net.policy.rules if rule.proto in protos for p in rule.ports})
    for first in [TOOL_PORTS[tool], *listed]:  # the tool's own port first: what a rule is likely to name
        run = range(first, first + needed)
        if busy.isdisjoint(run) and all(open_(p) for p in run):
            return PortBlock(f"{test.name}/{client.name}/{tool}", server.name, first, needed)
    raise ValueError(
        f"{test.name}: the policy opens no {needed} consecutive TCP port(s) from {client.name} to "
        f"{server.name} for {tool}; add them to a rule (iperf3: 5201; nuttcp: 5000 and 5001)"
    )


def flow_blocks(net: Network, access: Access, compiler: PolicyCompiler, allocator: PortAllocator,
                test: ThroughputTest, tool: ToolName) -> list[PortBlock]:
    """One port block per flow of ``test``, each server asked once what already listens there, and
    no two flows into one server on the same ports; none kept when one cannot be had."""
    listening = {s.name: listening_ports(access.runner, access.node(s.name)) for s in test.servers}
    blocks: list[PortBlock] = []
    try:
        for flow in test.flows:
            busy = listening[flow[1].name] | {p for b in blocks if b.node == flow[1].name for p in b.ports}
            blocks.append(port_block(net, compiler, allocator, test, tool, flow, busy))
    except ValueError:
        for block in blocks:
            allocator.release(block)
        raise
    return blocks
