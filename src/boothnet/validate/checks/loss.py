"""Loss: each LAN path family (source VLAN to destination VLAN) sends UDP at half its limit, both
ways, judged on the datagrams lost against what the intent declares on the links crossed;
measured in the throughput check's lanes."""

from __future__ import annotations

import math

from boothnet.status import Status
from boothnet.validate.checks._measured import MeasuredCheck, mbps, why_cell
from boothnet.validate.perf.judges import UDP_BUFFER, judge_loss
from boothnet.validate.perf.probes import drops_meanwhile
from boothnet.validate.perf.run import ToolRequest, run_throughput
from boothnet.validate.perf.runner import listening_ports
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.plan import ThroughputTest, device_links, expected_for
from boothnet.validate.run import LaneJob, Lanes, Unprobed, port_block

LOSS_RATE_SHARE = 0.5  # a loss test sends at half the path's limit: loss there is the path's, not congestion


class Loss(MeasuredCheck):
    name = "loss"
    order = 82
    title = "Loss (UDP below the limit, each LAN path family, both ways)"
    header = ("verdict", "path", "from -> to", "rate Mb/s", "datagrams", "lost %", "jitter ms", "why")
    kinds = frozenset({"loss"})
    rides = "throughput"

    def lane_jobs(self, lanes: Lanes) -> list[LaneJob]:
        """Each path family's iperf3 UDP test, both ways (none without iperf3, none in a spot check)."""
        if lanes.spot is not None or "iperf3" not in lanes.net.throughput.tools:
            return []
        return [LaneJob(test, "iperf3", reverse, lambda job: measure_loss(lanes, job))
                for test in loss_families(lanes.tests) for reverse in (False, True)]

    def cells(self, row: ThroughputResult) -> list[str]:
        return [row.status, row.path, f"{row.source} -> {row.destination}",
                mbps(row.throughput if row.succeeded else None), "-" if row.packets is None else str(row.packets),
                "-" if row.lost_pct is None else f"{row.lost_pct:.3f}",
                "-" if row.jitter_ms is None else f"{row.jitter_ms:.3f}", why_cell(row)]


CHECK = Loss()


def loss_families(tests: list[ThroughputTest]) -> list[ThroughputTest]:
    """One single-flow path test per family (source VLAN to destination VLAN): what a loss test runs on."""
    families: dict[tuple[str, str], ThroughputTest] = {}
    for test in tests:
        if test.across is None and len(test.flows) == 1:
            client, server = test.flows[0]
            families.setdefault((client.vlan, server.vlan), test)
    return list(families.values())


def measure_loss(lanes: Lanes, job: LaneJob) -> ThroughputResult:
    """A UDP test below the path's limit, judged on the datagrams lost against what the intent
    declares on the links crossed (loss_pct, most often none)."""
    net, access, test = lanes.net, lanes.access, job.test
    client, server = test.flows[0]
    rate = LOSS_RATE_SHARE * expected_for(net, client, server)
    declared = 100 * (1 - math.prod(1 - link.loss_pct / 100 for link in device_links(net, test)))
    name, cables = f"{test.name} (loss)", lanes.cables_of(test)
    block = None
    try:
        for host in test.hosts:
            if why := access.why_not(host.name, "iperf3"):
                raise Unprobed(why)
        block = port_block(net, lanes.compiler, lanes.allocator, test, "iperf3", (client, server),
                           listening_ports(access.runner, access.node(server.name)), ("tcp", "udp"))
        receiver = (client if job.reverse else server).name
        measured, dropped_here = drops_meanwhile(access.runner, {receiver: access.node(receiver)},
                                                 lambda: run_throughput(access.runner, ToolRequest(
            "iperf3", access.node(server.name), access.node(client.name), str(server.address), block,
            duration=net.throughput.duration_s, window=UDP_BUFFER, udp_rate_bps=rate, reverse=job.reverse,
            path=name, source=client.name, destination_label=server.name)))
        result = judge_loss(measured.model_copy(update={"kind": "loss"}), declared, rate,
                            where=f"{test.name} (its host cables {cables})" if cables else test.name,
                            dropped_here=dropped_here)
    except (ValueError, RuntimeError) as exc:
        ends = [client.name, server.name]
        result = ThroughputResult(tool="iperf3", succeeded=False, error=str(exc), path=name, kind="loss",
                                  protocol="udp", reverse=job.reverse, source=ends[job.reverse],
                                  destination=ends[not job.reverse],
                                  verdict=Status.ERROR if isinstance(exc, Unprobed) else Status.FAIL,
                                  explanation=str(exc))
    finally:
        if block is not None:
            lanes.allocator.release(block)
    lanes.progress(f"[loss] {name}{' (reverse)' if job.reverse else ''}: {result.lost_pct or 0:.3f} % lost at "
                   f"{rate / 1e6:.0f} Mb/s {result.verdict}")
    return result
