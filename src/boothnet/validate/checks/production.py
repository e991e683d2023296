"""Production under research load, SC2000's "No impact on the production network was seen" as a
check. The production VLANs' probes run on the idle network, then again while the research
traffic the plan knows (its research-only aggregates and paths) runs at full rate:

- pings from the first host of each production VLAN to its gateway and to the first host of
  each other production VLAN the policy lets it ping (RTT and loss), in IPv6 too on a dual-stack
  network;
- a small TCP transfer (iperf3 paced at TRANSFER_BPS) into each of those hosts from the next
  production VLAN's: what a user's file copy or video call needs, not the link's limit (the
  lab's limit under load is its CPU's).

A probe fails when production's RTT rises, its pings are lost or its transfer slows beyond the
bounds below: what research traffic does to production on a network where nothing shared (a
mirror session, a trunk, an uplink without the shaping that protects production) carries both.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import NamedTuple, TypeVar

from boothnet.derive.policy import compiler_of, policy_decision
from boothnet.family import Family
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.locks import measurement_turn
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.paths import first_hosts
from boothnet.validate.perf.ports import PortAllocator
from boothnet.validate.perf.probes import PingResult, parse_ping, ping_argv
from boothnet.validate.perf.run import ToolRequest, run_throughput
from boothnet.validate.perf.runner import Background, pidfile_for, stop_background
from boothnet.validate.perf.schema import CPU_SATURATED, ThroughputResult, busy_share, machine_cpu
from boothnet.validate.plan import ThroughputTest, action6, host_prefix, throughput_tests
from boothnet.validate.results import ProductionRow
from boothnet.validate.run import flow_blocks

T = TypeVar("T")
Probed = tuple[list[tuple[PingResult, float]], list[tuple[ThroughputResult, float]]]

# The bounds, set on the clean sc-booth lab: its RTT rose 0.01-0.05 ms, no ping was lost and the
# paced transfers kept 19-20 of 20 Mb/s while 32 research clients loaded a 2-core machine (an
# unpaced one kept 44-100 %: the CPU's share, not the network's); research mirrored into a
# 100 Mb/s production port loses every ping through it.
RTT_BOUND_MS = 1.0  # production's mean RTT may rise this much under research load
LOST_BOUND = 1  # pings of PINGS production may lose under load (one: a single unlucky one)
TRANSFER_BPS = 20e6
TRANSFER_SHARE = 0.8  # of its idle rate a production transfer keeps under research load
PINGS, INTERVAL_S = 50, 0.02
TRANSFER_S = 2
SETTLE_S = 1.5  # the load's slow start, before production is probed
# the probes under load took up to this many times as long as idle (sc-booth's lab, 2 cores)
LOADED_SLOWDOWN = 3
# the load's length, as a multiple of the estimates below: it stops once the probes have ended,
# so a longer bound costs nothing and keeps slow probes under load (sc-booth's: 21-30 s of 22;
# with twice, rows outlasted it while the load itself held 2 cores at a load average of 35: ci107)
LOAD_MARGIN = 4
# In the lab every research flow is forwarded by the stand-ins on this machine's own cores: a few
# flows per core fill them; sc-booth's 35 only added processes (a load average of 35, ci107) and
# starved every other lab on the machine.
LAB_FLOWS_PER_CORE = 2


def load_seconds(pings: int, transfers: int) -> int:
    """How long the research load may run: the probes under it took up to 8 s on sc-booth's 2-core lab
    (25 pings, 5 transfers: process start-up is slow then), so about twice what they need, and at
    least 8 s (lab-mini's one ping). Later, alone on this machine under sc-booth's 35 research
    flows, they took 21-30 s: hence LOAD_MARGIN."""
    return max(8, round(SETTLE_S + 0.4 * pings + (2 * TRANSFER_S + 2 if transfers else 0) + 4))


def production_hosts(net: Network) -> list[Endpoint]:
    """The first host (by name) of each production VLAN with hosts; transit VLANs have none."""
    vlans = net.vlan_by_name()
    return [host for vlan, host in first_hosts(net).items() if vlans[vlan].zone == "production"]


class ProductionProbe(NamedTuple):
    host: Endpoint
    address: str
    what: str  # the destination column: a host, or "<device> (gateway)"; " (IPv6)" in IPv6
    family: int = 4


def production_probes(net: Network) -> list[ProductionProbe]:
    """Each production host to its gateway, and to each other production host the policy lets it
    ping; on a dual-stack network again in IPv6: to its gateway wherever its VLAN has IPv6 (a SLAAC
    host holds an address whether or not the intent knows it), to another host where both
    addresses are known and the policy lets it ping in IPv6."""
    compiler, vlans, hosts = compiler_of(net), net.vlan_by_name(), production_hosts(net)
    probes = [ProductionProbe(host, str(net.gateway_address(vlans[host.vlan])), f"{vlans[host.vlan].gateway} (gateway)")
              for host in hosts]
    probes += [ProductionProbe(src, str(dst.address), dst.name) for src in hosts for dst in hosts
               if src.vlan != dst.vlan and policy_decision(compiler, vlans[src.vlan], host_prefix(src),
                                                           host_prefix(dst), "icmp", None)[0] == "permit"]
    if not net.dual_stack:
        return probes
    probes += [ProductionProbe(host, str(gateway6), f"{vlans[host.vlan].gateway} (gateway) (IPv6)", 6)
               for host in hosts if (gateway6 := net.gateway_address(vlans[host.vlan], Family.V6)) is not None]
    probes += [ProductionProbe(src, str(net.endpoint_address(dst, Family.V6)), f"{dst.name} (IPv6)", 6)
               for src in hosts for dst in hosts if src.vlan != dst.vlan and action6(net, src, dst, "icmp") == "permit"]
    return probes


def production_transfers(net: Network) -> list[tuple[Endpoint, Endpoint]]:
    """(sender, receiver): into each production host from the next one (a ring), where the
    policy lets the sender reach iperf3's port."""
    compiler, vlans, hosts = compiler_of(net), net.vlan_by_name(), production_hosts(net)
    pairs = [(hosts[(i + 1) % len(hosts)], host) for i, host in enumerate(hosts)] if len(hosts) > 1 else []
    return [(src, dst) for src, dst in pairs
            if policy_decision(compiler, vlans[src.vlan], host_prefix(src), host_prefix(dst), "tcp", 5201)[0]
            == "permit"]


def research_load(net: Network) -> list[ThroughputTest]:
    """What loads the research VLANs at once: the link aggregates of research hosts only, or
    else each research subnet's cluster nodes together, or else each research VLAN's first path."""
    zone = {e.name: net.vlan_by_name()[e.vlan].zone for e in net.endpoints.values()}
    research = [t for t in throughput_tests(net) if all(zone[h.name] == "research" for h in t.hosts)]
    first_per_vlan = list({t.flows[0][0].vlan: t for t in reversed(research) if t.across is None}.values())
    return ([t for t in research if t.across is not None] or [t for t in research if len(t.flows) > 1]
            or first_per_vlan)


def lab_share(load: list[ThroughputTest], flows: int) -> list[ThroughputTest]:
    """The load cut to about ``flows`` flows, each test keeping its share of them and at least its
    first flow (the lab's research load: LAB_FLOWS_PER_CORE)."""
    total = sum(len(test.flows) for test in load)
    if total <= flows:
        return load
    return [replace(test, flows=test.flows[:max(1, flows * len(test.flows) // total)]) for test in load]


def production_under_load(net: Network, access: Access, progress: Progress) -> list[ProductionRow]:
    """The probes idle, then under the research load, judged, in this machine's measurement turn;
    [] when there is nothing to probe or nothing to load the network with."""
    with measurement_turn(progress):
        return _production_under_load(net, access, progress)


def _production_under_load(net: Network, access: Access, progress: Progress) -> list[ProductionRow]:
    probes = [p for p in production_probes(net) if not access.why_not(p.host.name, "ping")]
    transfers = [t for t in production_transfers(net) if not access.why_not(t[0].name, "iperf3")
                 and not access.why_not(t[1].name, "iperf3")]
    load = research_load(net)
    if access.forwards_here:
        load = lab_share(load, LAB_FLOWS_PER_CORE * (os.cpu_count() or 1))
    if not (probes or transfers) or not load:
        return []
    allocator = PortAllocator()

    def probe_all() -> Probed:
        """The pings at once, then the transfers at once (a transfer would queue a ping); each
        with the time it ended."""
        with ThreadPoolExecutor(max_workers=max(len(probes), len(transfers), 1)) as pool:
            pings = list(pool.map(lambda p: _ended(_pings(access, p.host, p.address)), probes))
            return pings, list(pool.map(lambda t: _ended(_transfer(net, access, allocator, *t)), transfers))

    started = time.monotonic()
    idle_pings, idle_sent = probe_all()
    # a busy machine starts the probes' processes slowly, idle or loaded: the load lasts for that,
    # twice over, since it stops when the probes end: its length is only a bound
    load_s = LOAD_MARGIN * max(load_seconds(len(probes), len(transfers)),
                               round(SETTLE_S + LOADED_SLOWDOWN * (time.monotonic() - started) + 2))
    progress(f"[production] {len(probes)} ping probe(s) and {len(transfers)} transfer(s) idle; "
             f"loading research with {sum(len(t.flows) for t in load)} flow(s) of {len(load)} test(s)")
    (loaded_pings, loaded_sent), load_ended, busy = _under(net, access, allocator, load, probe_all, load_s)
    rows = [_outlasted(_judge_ping(probe.host, probe.what, before, after, probe.family), at, load_ended, load_s)
            for probe, (before, _), (after, at) in zip(probes, idle_pings, loaded_pings, strict=True)]
    if access.forwards_here:
        rows = [_slowed_by_this_machine(row, busy) for row in rows]
    rows += [_outlasted(_judge_transfer(src, dst, before, after), at, load_ended, load_s)
             for (src, dst), (before, _), (after, at) in zip(transfers, idle_sent, loaded_sent, strict=True)]
    for row in rows:
        progress(f"[production] {row.probe} {row.source} -> {row.destination}: {row.verdict} {row.cause}")
    return rows


def _pings(access: Access, host: Endpoint, address: str) -> PingResult:
    argv = ping_argv(address, count=PINGS, interval=INTERVAL_S)
    res = access.runner(access.node(host.name), argv, PINGS * INTERVAL_S + 10)
    return parse_ping(res.output, res.returncode, node=host.name, destination=address, argv=argv)


def _transfer(net: Network, access: Access, allocator: PortAllocator, src: Endpoint, dst: Endpoint
              ) -> ThroughputResult:
    test = ThroughputTest(name=f"production {src.name} -> {dst.name}", flows=((src, dst),))
    (block,) = flow_blocks(net, access, compiler_of(net), allocator, test, "iperf3")
    try:
        return run_throughput(access.runner, ToolRequest(
            "iperf3", access.node(dst.name), access.node(src.name), str(dst.address), block, duration=TRANSFER_S,
            tcp_rate_bps=TRANSFER_BPS, path=test.name, source=src.name, destination_label=dst.name))
    finally:
        allocator.release(block)


def _under(net: Network, access: Access, allocator: PortAllocator, load: list[ThroughputTest],
           probe: Callable[[], Probed], load_s: int) -> tuple[Probed, float, float]:
    """``probe()`` while every flow of ``load`` sends (iperf3, SETTLE_S into the load), when the
    first of those flows ended, and how busy this machine's cores were while it probed."""
    flows = [flow for test in load for flow in test.flows]
    blocks = [block for test in load for block in flow_blocks(net, access, compiler_of(net), allocator, test, "iperf3")]
    together = threading.Barrier(len(flows) + 1)
    with ThreadPoolExecutor(max_workers=len(flows)) as pool:
        running = [pool.submit(lambda client, server, block: _ended(run_throughput(access.runner, ToolRequest(
                                   "iperf3", access.node(server.name), access.node(client.name),
                                   str(server.address), block, duration=load_s), start_together=together)),
                               client, server, block)
                   for (client, server), block in zip(flows, blocks, strict=True)]
        together.wait(timeout=60)
        time.sleep(SETTLE_S)
        cpu = machine_cpu()
        seen = probe()
        busy = busy_share(cpu, machine_cpu())
        # the load was there for the probes: it stops now, not load_s later (its rates are not judged)
        for (_, server), block in zip(flows, blocks, strict=True):
            node = access.node(server.name)
            pidfile = pidfile_for(access.runner, node, "iperf3", block.first)
            stop_background(access.runner, Background(node, (), pidfile))
        ended = min(future.result()[1] for future in running)
    for block in blocks:
        allocator.release(block)
    return seen, ended, busy


def _ended(result: T) -> tuple[T, float]:
    return result, time.monotonic()


def _outlasted(row: ProductionRow, ended: float, load_ended: float, load_s: int) -> ProductionRow:
    """A probe that passed but ended after the load did was partly not under load: not judged.
    One that failed even so has failed."""
    if ended <= load_ended or row.verdict != Status.PASS:
        return row
    return row.model_copy(update={"verdict": Status.ERROR, "cause": f"it outlasted the research load ({load_s} s), "
                                  f"so it was not measured under load: {row.cause}", "causes": ["outlasted"]})


def _slowed_by_this_machine(row: ProductionRow, busy: float) -> ProductionRow:
    """In the lab, a ping that lost no more than it may but came back slower while this machine's
    cores were saturated was slowed by the cores the stand-ins forward on, not by the network: no
    verdict (ERROR, cause cpu_bound). Lost pings keep their FAIL: a busy core delays frames."""
    if (row.probe != "ping" or row.verdict != Status.FAIL or row.loaded is None or (row.lost or 0) > LOST_BOUND
            or busy < CPU_SATURATED):
        return row
    said = (f"CPU-bound: this machine's cores were {busy:.0%} busy while it probed: the lab's stand-ins forward in "
            "software on the cores that also run the tools, so the RTT rose with the machine's load, not the "
            "network's (no verdict; on the floor there is no such cap): ")
    return row.model_copy(update={"verdict": Status.ERROR, "cause": said + row.cause.removesuffix(DEGRADED),
                                  "causes": ["cpu_bound"]})


def _judge_ping(host: Endpoint, what: str, idle: PingResult, loaded: PingResult, family: int = 4) -> ProductionRow:
    row = ProductionRow(probe="ping", source=host.name, destination=what, sent=loaded.transmitted,
                        lost=loaded.transmitted - loaded.received, idle=idle.rtt_avg_ms, loaded=loaded.rtt_avg_ms,
                        verdict=Status.ERROR, cause="", family=family)
    if idle.rtt_avg_ms is None:
        return row.model_copy(update={"cause": f"no reply on the idle network: {idle.cause}"})
    if not loaded.transmitted:  # ping's own count missing: it never ran to its end
        return row.model_copy(update={"cause": f"the ping under load did not finish: {loaded.cause}"})
    rise = None if loaded.rtt_avg_ms is None else loaded.rtt_avg_ms - idle.rtt_avg_ms
    ok = rise is not None and rise <= RTT_BOUND_MS and (row.lost or 0) <= LOST_BOUND
    said = (f"RTT idle {idle.rtt_avg_ms:.3f} ms, under load "
            + ("no reply" if rise is None else f"{loaded.rtt_avg_ms:.3f} ms ({rise:+.3f})")
            + f" (at most +{RTT_BOUND_MS:g}); {row.lost} of {row.sent} lost under load (at most {LOST_BOUND})")
    return row.model_copy(update={"verdict": Status.of(ok), "cause": said if ok else said + DEGRADED})


def _judge_transfer(src: Endpoint, dst: Endpoint, idle: ThroughputResult, loaded: ThroughputResult
                    ) -> ProductionRow:
    row = ProductionRow(probe="tcp", source=src.name, destination=dst.name, verdict=Status.ERROR, cause="",
                        idle=_mbps(idle), loaded=_mbps(loaded))
    if row.idle is None:
        return row.model_copy(update={"cause": f"the idle transfer failed: {idle.error or 'no result'}"})
    ok = row.loaded is not None and row.loaded >= TRANSFER_SHARE * row.idle
    said = (f"{TRANSFER_S} s of iperf3 at {TRANSFER_BPS / 1e6:.0f} Mb/s: idle {row.idle:.0f} Mb/s, under load "
            + ("failed: " + (loaded.error or "no result") if row.loaded is None else f"{row.loaded:.0f} Mb/s")
            + f" (at least {TRANSFER_SHARE:.0%} of idle)")
    return row.model_copy(update={"verdict": Status.of(ok), "cause": said if ok else said + DEGRADED})


DEGRADED = (": research traffic degrades production; find what carries both (a mirror session into a "
            "production port, a shared trunk or uplink without the shaping or QoS that protects production)")


def _mbps(result: ThroughputResult) -> float | None:
    return round(result.throughput / 1e6, 1) if result.succeeded and result.throughput else None


def _figure(probe: str, value: float | None) -> str:
    """A ping's mean RTT, a transfer's rate."""
    return "no reply" if value is None else f"{value:.3f} ms" if probe == "ping" else f"{value:.0f} Mb/s"


class ProductionUnderLoad(LiveCheck):
    name = "production under load"
    section = field = "production"
    row_type = ProductionRow
    order = 90
    title = "Production under research load (idle, then while the research aggregates run)"
    header = ("verdict", "probe", "from -> to", "idle", "under load", "lost under load", "why")
    empty = "no production host to probe, or no research traffic to load the network with"
    measures = True
    alarm = "effect"
    alarm_rank = 110

    def measure(self, ctx: Context) -> list[ProductionRow]:
        return production_under_load(ctx.net, ctx.access, ctx.progress)

    def subject(self, row: ProductionRow) -> str:
        return f"{row.probe} {row.source} -> {row.destination} under research load"

    def message(self, row: ProductionRow) -> str:
        return row.cause

    def action(self, row: ProductionRow) -> str:
        return ("find what carries research traffic into this production host's path: a mirror (SPAN) session, a "
                "shared trunk or uplink, shaping or QoS removed")

    def key(self, row: ProductionRow) -> str:
        return f"production {row.probe} {row.source} -> {row.destination}"

    def cells(self, row: ProductionRow) -> list[str]:
        return [row.verdict, row.probe, f"{row.source} -> {row.destination}", _figure(row.probe, row.idle),
                _figure(row.probe, row.loaded), "-" if row.sent is None else f"{row.lost} of {row.sent}", row.cause]


CHECK = ProductionUnderLoad()
