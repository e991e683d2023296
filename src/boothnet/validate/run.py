"""How to run the tests: probes and measurements in the lab's namespaces through a Runner, in
parallel lanes, and Batfish's answer to the same isolation flows."""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from ipaddress import IPv4Address, IPv6Address
from pathlib import Path
from typing import TYPE_CHECKING

from boothnet.booth.cables import cable_label, cable_plan
from boothnet.derive.policy import PolicyCompiler, compiler_of, policy_decision
from boothnet.derive.ports import bound_acl6_name
from boothnet.family import Family
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.layout import model_of
from boothnet.locks import measurement_turn
from boothnet.poll import poll
from boothnet.progress import Progress
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.counters import carried, describe, lab_shapers
from boothnet.validate.lanes import run_disjoint
from boothnet.validate.paths import gateway_rows, north_south, path_rows
from boothnet.validate.perf.calibrate import LabLimits
from boothnet.validate.perf.judges import CEILING_SHARE, UDP_BUFFER, judge_loss
from boothnet.validate.perf.ports import TOOL_PORTS, PortAllocator, PortBlock
from boothnet.validate.perf.probes import (
    IPV4_ICMP_HEADERS,
    IPV6_ICMP_HEADERS,
    drops_meanwhile,
    duplicates_meanwhile,
    mtu_probe,
    ping,
)
from boothnet.validate.perf.quiet import LaneControl, MachineLoad, measure_again, proven_by_another_tool
from boothnet.validate.perf.run import ToolName, ToolRequest, combine, run_throughput
from boothnet.validate.perf.runner import listening_ports
from boothnet.validate.perf.schema import LinkLoad, ThroughputResult, busy_share, judge, lab_cpu_bound, machine_cpu
from boothnet.validate.plan import (
    Flow,
    ThroughputTest,
    device_links,
    expected_for,
    host_prefix,
    path_mtu,
    throughput_tests,
)
from boothnet.validate.results import MtuRow, Stage
from boothnet.verify.batfish.from_intent import batfish_view, vlan_entries, vpn_tunnel_ends
from boothnet.verify.batfish.service import find_host, probe
from boothnet.verify.batfish.snapshot import snapshot_name

if TYPE_CHECKING:
    from boothnet.verify.batfish.traces import FlowAnswer


class Unprobed(RuntimeError):
    """A host of the test cannot run it (unreachable, or without the tool): ERROR, not a verdict."""


def routing_off(lab_dir: Path | None) -> list[str]:
    """The lab's stand-ins that hold gateway addresses but route no IPv4, because the vendor config
    they run as read leaves routing off (EOS and Catalyst IOS default to off without `ip routing`)."""
    path = model_of(lab_dir / "configs") if lab_dir else None
    if path is None or not path.is_file():
        return []
    models = json.loads(path.read_text())
    return [f"{name} routes no IPv4 although it is the gateway of {', '.join(addresses)}: its config has "
            f"IPv4 routing off (no `ip routing`)"
            for name, model in sorted(models.items()) if not model.get("ip_routing", True)
            and (addresses := [i["address"] for i in model["interfaces"] if i.get("address")])]


def wait_converged(net: Network, access: Access, flows: list[Flow], timeout_s: float = 60) -> Stage:
    """Routing converges before probing: every permitted ping of the matrix must pass once, and
    so must every booth VLAN's ping to the show network's next hop (north-south)."""
    targets = {(f.src.name, f.dst_address): f"{f.src.name} -> {f.dst.name}{' (IPv6)' if f.family == 6 else ''}"
               for f in flows
               if f.proto == "icmp" and f.expected == "permit" and not access.why_not(f.src.name, "ping")}
    outside = [ns for ns in north_south(net) if not access.why_not(ns.src.name, "ping")]
    targets.update({(ns.src.name, str(ns.address)): f"north-south {ns.label}" for ns in outside})
    if not targets:  # a watch round's share may hold no permitted ping: routing unchecked is no PASS
        return Stage(name="convergence", status=Status.NOT_RUN,
                     reason="no permitted ping between VLANs, and none north-south, in this sample")
    pending = list(targets)
    started = time.monotonic()

    def still_pending() -> list[tuple[str, str]]:
        pending[:] = [(src, dst) for src, dst in pending
                      if not ping(access.runner, access.node(src), dst, count=1, wait_s=1).ok]
        return pending

    poll(still_pending, lambda left: not left, timeout_s)
    waited = round(time.monotonic() - started, 1)
    if pending:
        names = ", ".join(targets[key] for key in pending)
        causes = access.devices.ospf_down() if access.devices else routing_off(access.lab_dir)
        return Stage(
            name="convergence", status=Status.FAIL, duration_s=waited,
            reason=f"not converged after {timeout_s:g} s: {names}" + (f"; {'; '.join(causes)}" if causes else ""),
        )
    return Stage(name="convergence", status=Status.PASS, duration_s=waited,
                 note=f"{len(targets)} pings, {len(outside)} of them north-south")


def batfish_answers(
    run: Run, flows: list[Flow], host: str | None, progress: Progress
) -> tuple[list[FlowAnswer | None], Stage]:
    """Batfish's answer to every flow of the matrix, asked of the Batfish view of the intent's
    configs (the snapshot verify loaded in this run, when it did on this service); SKIPPED
    (answers None) when no service answers."""
    # here, not at the top: they bring pandas and pybatfish (0.75 s) into every process that imports validate
    from boothnet.verify.batfish.traces import FlowQuery, ask_flows, load_view
    from boothnet.verify.batfish.verify import LoadedSnapshot

    started = time.monotonic()
    net = run.net
    status = probe(find_host(host, run.layout.batfish_service))
    if not status.reachable:
        return [None] * len(flows), Stage(name="isolation (Batfish)", status=Status.SKIPPED, reason=status.skip_reason)
    asked = [i for i, f in enumerate(flows) if f.ask_batfish]
    view = batfish_view(run)
    entries = vlan_entries(net, view.models)
    progress(f"Batfish at {status.host}: {len(asked)} of the {len(flows)} isolation flows (icmp and each rule's "
             "own ports), asked of the configs")
    loaded = run.batfish_snapshot
    if loaded is None or loaded.host != status.host:
        name = snapshot_name("validate", run.layout.validate_snapshot)
        bf = load_view(status, net.name, view.configs.out_dir, view.intent.links, run.layout.validate_snapshot, name)
        loaded = run.batfish_snapshot = LoadedSnapshot(status.host, bf, name)
    tunnels = vpn_tunnel_ends(net, view.models)
    answers: list[FlowAnswer | None] = [None] * len(flows)
    for i, answer in zip(asked, ask_flows(loaded.session, loaded.name, [
            FlowQuery(entries[f.src.vlan], str(f.src.address), str(f.dst.address), f.proto, f.port,
                      tunnels.get((f.src.vlan, f.dst.vlan)),
                      # a permit works only when its replies come back (both directions asked)
                      entries.get(f.dst.vlan) if f.expected == "permit" else None)
            for f in (flows[i] for i in asked)]), strict=True):
        answers[i] = answer
    return answers, Stage(name="isolation (Batfish)", status=Status.PASS,
                          duration_s=round(time.monotonic() - started, 1), note=f"{len(asked)} flows traced")


def offline_answers(run: Run, flows: list[Flow]) -> list[FlowAnswer | None]:
    """The configs' answer to each IPv6 flow, where Batfish 0.36 traces none: the compiled IPv6 ACLs
    on its path (verify's PolicyPaths: the source VLAN's gateway in, the secured network's out),
    evaluated as the devices evaluate them. IPv4 flows: None (Batfish answers those)."""
    from boothnet.verify.batfish.traces import FlowAnswer
    from boothnet.verify.flows import Probe, port_acl_views
    from boothnet.verify.policy import PolicyPaths

    if not any(f.family == 6 for f in flows):
        return [None] * len(flows)
    paths = PolicyPaths(run.net, run.models("hardware"), family=Family.V6)
    ports = port_acl_views(run.models("hardware"))  # a bound host's IPv6 meets its port's ACL first

    def decide(flow: Flow, port: int | None) -> tuple[str, str]:
        assert flow.addresses6 is not None
        probe = Probe(*flow.addresses6, flow.proto, port)
        device, port_name = flow.src.attach.split(":", 1)
        at_port = ports.get((device, port_name))
        met = [*([at_port] if at_port else []), *(view for view, _ in paths.on_path(probe))]
        for view in met:
            action, line, _ = view.decide(probe, via_tunnel=False)
            if action == "deny":
                return "deny", f"{view.acl.name} on {view.device}: {line}"
        return "permit", f"permitted by {', '.join(f'{v.acl.name} on {v.device}' for v in met) or 'no IPv6 ACL'}"

    def answer(flow: Flow) -> FlowAnswer | None:
        if flow.family != 6:
            return None
        said = {port: decide(flow, port) for port in flow.ports() or (None,)}
        differ = [p for p, (action, _) in said.items() if action != flow.expected]
        if not differ or len(differ) == len(said):
            return FlowAnswer(*next(iter(said.values())), "offline evaluator")
        action, why = said[differ[0]]
        return FlowAnswer(action, f"{len(differ)} of {len(said)} ports {action}: {', '.join(map(str, differ))} "
                                  f"({why})", "offline evaluator")

    return [answer(f) for f in flows]


def _dropped_at_port(net: Network, access: Access, endpoint: Endpoint, gateway: str) -> str | None:
    """Why a host's IPv6 never reaches its gateway, where a small ping fails as the DF one did:
    not a black hole of the size; on a bound port, its binding, with the source the host sends
    from (a default OS picks a temporary address). None: a small ping passes (the size's fault)."""
    node = access.node(endpoint.name)
    if ping(access.runner, node, gateway, count=2, wait_s=1.0).ok:
        return None
    route = access.runner(node, ["ip", "-6", "route", "get", gateway], 10).output
    source = found.group(1) if (found := re.search(r" src (\S+)", route)) else "no source address"
    sources = net.bound_sources(endpoint, Family.V6)
    said = "a small ping to its gateway fails too: its IPv6 dies whatever its size, not an MTU black hole"
    if sources is None:
        return f"{said}; it sends from {source}"
    acl = bound_acl6_name(endpoint.attach.partition(":")[2])
    return (f"{said}: its port's IPv6 binding drops its source {source} ({endpoint.attach}: port ACL {acl}, "
            f"the port admits {', '.join(map(str, sources))} from {endpoint.mac_address} as rendered; check the "
            f"switch's running port ACL and port security)")


def run_mtu(net: Network, access: Access, progress: Progress,
            share: Callable[[str], bool] = lambda _: True) -> list[MtuRow]:
    """``share``: the hosts, VLANs and path sources to probe (a watch round's share), by name."""
    vlans = net.vlan_by_name()
    rows: list[MtuRow] = []
    for endpoint in sorted((e for e in net.endpoints.values() if share(e.name)), key=lambda e: e.name):
        vlan = vlans[endpoint.vlan]
        mtu = net.vlan_mtu(vlan)
        # its link to its gateway in each family it has: a host without IPv6 probes IPv4 alone
        gateways: list[tuple[int, IPv4Address | IPv6Address, int, str]] = [
            (4, net.gateway_address(vlan), IPV4_ICMP_HEADERS, "")]
        if (gateway6 := net.gateway_address(vlan, Family.V6)) is not None and \
                net.endpoint_address(endpoint, Family.V6) is not None:
            gateways.append((6, gateway6, IPV6_ICMP_HEADERS, " (IPv6)"))
        for family, address, headers, suffix in gateways:
            path = f"{endpoint.name} -- {endpoint.attach}{suffix}"
            row = partial(MtuRow, path=path, mtu=mtu, source=endpoint.name, destination=f"{vlan.gateway} ({address})",
                          device=endpoint.attach.split(":")[0], family=family)
            if why := access.why_not(endpoint.name, "ping"):
                rows.append(row(verdict=Status.ERROR, cause=why))
                continue
            result = mtu_probe(access.runner, access.node(endpoint.name), str(address), mtu, count=1, link=path,
                               headers=headers)
            cause = result.cause
            if family == 6 and not result.at_mtu.ok and result.at_mtu.cause == "timeout":
                cause = _dropped_at_port(net, access, endpoint, str(address)) or cause
            rows.append(row(verdict=result.verdict, cause=cause))
            progress(f"[mtu] {endpoint.name} -> {vlan.gateway}{suffix} at {mtu}: {result.verdict}")
    return rows + gateway_rows(net, access, progress, share) + path_rows(net, access, progress, share)


@dataclass(frozen=True)
class _Job:
    """One measurement: a test, by one tool, in one direction (reverse: the server sends)."""

    test: ThroughputTest
    tool: ToolName
    reverse: bool
    udp: bool = False  # the path family's loss test: iperf3 UDP at LOSS_RATE_SHARE of the limit


def _measure(net: Network, access: Access, job: _Job, start_together: threading.Barrier,
             flow: tuple[Endpoint, Endpoint], block: PortBlock) -> ThroughputResult:
    client, server = flow
    return run_throughput(access.runner, ToolRequest(
        job.tool, access.node(server.name), access.node(client.name), job.test.address_of(net, server), block,
        streams=net.throughput.streams, duration=net.throughput.duration_s, reverse=job.reverse,
        path=job.test.name, source=client.name, destination_label=server.name), start_together=start_together)


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


def run_throughput_tests(
    net: Network, access: Access, progress: Progress, tunnel_mtu: int | None = None,
    spot: int | None = None, limits: LabLimits | None = None,
) -> list[ThroughputResult]:
    """Every test by every tool, both ways, and each path family's loss test; tests that load
    no common link run at once, in up to ``throughput.parallel`` lanes (DEFAULT_LANES), all in
    this machine's measurement turn.
    ``spot`` (watch's spot check): only that one measurement of a host path (not a backbone
    aggregate, not a loss test), counted round the list, so that each round takes the next.
    ``limits``: what this machine's lab carries (calibrate.LabLimits: a stand-in router's
    forwarding, one tool's stream), measured before any lane starts; a test that asks more is
    judged against that, and says so."""
    with measurement_turn(progress):
        return _throughput_tests(net, access, progress, tunnel_mtu, spot, limits)


def _throughput_tests(
    net: Network, access: Access, progress: Progress, tunnel_mtu: int | None,
    spot: int | None, limits: LabLimits | None,
) -> list[ThroughputResult]:
    allocator = PortAllocator()
    compiler = compiler_of(net)
    host_cables = {end.device: cable.text for cable in cable_plan(net) for end in (cable.a, cable.b)
                   if end.device in net.endpoints}

    def cables_of(test: ThroughputTest) -> str:
        return ", ".join(host_cables[h.name] for h in test.hosts if h.name in host_cables)

    tests = throughput_tests(net)
    lab_limits = None if access.on_floor or spot is not None else limits
    ceilings = {} if lab_limits is None else \
        {test.name: lab_limits.forwarding(len(test.flows), min(path_mtu(net, c, s, tunnel_mtu) for c, s in test.flows))
         for test in tests if test.across is not None}
    streams = stream_limits(net, tests, tunnel_mtu, lab_limits, progress)
    jobs = _jobs(net, tests, spot)

    def measure(job: _Job) -> ThroughputResult:
        if job.udp:
            return _measure_loss(net, access, compiler, allocator, job, cables_of(job.test), progress)
        test, tool = job.test, job.tool
        first_client, first_server = test.flows[0]
        # together, the clients share the server's access link: its limit is the sum's
        expected = test.expected_bps or expected_for(net, first_client, first_server, tunnel_mtu, test.family)
        expected, capped = streams.get((test.name, tool), (expected, ""))
        # one port block per flow, each its own server: taken here, not in the threads
        blocks: list[PortBlock] = []
        try:
            for host in test.hosts:
                if why := access.why_not(host.name, tool):
                    raise Unprobed(why)
            blocks = flow_blocks(net, access, compiler, allocator, test, tool)
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
                net.throughput.pass_ratio, path_mtu=min(path_mtu(net, c, s, tunnel_mtu) for c, s in test.flows),
                cables=cables_of(test))
            if test.across is not None:  # judged against what the lab forwards before the load excuses it
                result = _judge_across(net, access, test, result, ceilings.get(test.name))
            result = _lab_said(result, capped, loads if test.across is not None else None)
        except (ValueError, RuntimeError) as exc:  # no port block; a server that never listened
            result = _unmeasured(job, exc, expected, net.throughput.pass_ratio)
        finally:
            for block in blocks:
                allocator.release(block)
        progress(f"[throughput] {test.name}{' (reverse)' if job.reverse else ''} {tool}: "
                 f"{result.throughput / 1e6:.1f} Mb/s (expected {expected / 1e6:.1f}) {result.verdict}")
        return result

    lanes = net.throughput.parallel or DEFAULT_LANES
    if not access.forwards_here or spot is not None:
        return run_disjoint(jobs, lambda job: job.test.links, measure, lanes)
    # in the lab the tools share the cores with the forwarding: fewer lanes where they starve
    control, started = LaneControl(lanes), time.monotonic()
    results = run_disjoint(jobs, lambda job: job.test.links, lambda job: control.done(measure(job)), lanes,
                           admit=control.has_room)
    return proven_by_another_tool(measure_again(jobs, results, measure, MachineLoad(), progress,
                                                time.monotonic() - started))


STREAM_SHARE = 0.7  # of what one stream carries on a bare veth pair: a lab path adds hops on the same cores
FAST_PATH_BPS = 2e9  # a slower path is within one stream's reach on any machine the lab runs on


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


def _lab_said(result: ThroughputResult, capped: str, loads: list[LinkLoad] | None) -> ThroughputResult:
    """A judged run, said CPU-bound in the lab where the machine's load accounts for it
    (lab_cpu_bound); with why its limit is the lab's (``capped``, stream_limits) and, for an
    aggregate, what each wire carried (``loads``)."""
    if result.machine_busy is not None:
        result = lab_cpu_bound(result, result.machine_busy)
    said = "; ".join(filter(None, [result.explanation, capped, describe(loads) if loads is not None else ""]))
    wires = {"link_loads": loads} if loads is not None else {}
    return result.model_copy(update={"explanation": said or None, **wires})


def _unmeasured(job: _Job, exc: Exception, expected: float, ratio: float) -> ThroughputResult:
    """The row of a test that could not run: a FAIL, or an ERROR where a host cannot run the tool."""
    first_client, first_server = job.test.flows[0]
    ends = [first_client.name, first_server.name]
    result = judge(ThroughputResult(tool=job.tool, succeeded=False, error=str(exc), path=job.test.name,
                                    reverse=job.reverse, source=ends[job.reverse], destination=ends[not job.reverse]),
                   expected, ratio)
    return result.model_copy(update={"verdict": Status.ERROR}) if isinstance(exc, Unprobed) else result


def _jobs(net: Network, tests: list[ThroughputTest], spot: int | None) -> list[_Job]:
    """Each test with each tool, both ways, and the loss tests (iperf3 UDP); ``spot``: one path
    test only, the spot-th (a watch round's spot check)."""
    jobs = [_Job(test, tool, reverse) for test in tests for tool in net.throughput.tools for reverse in (False, True)]
    if spot is not None:
        paths = [job for job in jobs if job.test.across is None]
        return [paths[spot % len(paths)]] if paths else []
    if "iperf3" in net.throughput.tools:
        jobs += [_Job(test, "iperf3", reverse, udp=True) for test in loss_families(tests) for reverse in (False, True)]
    return jobs


LOSS_RATE_SHARE = 0.5  # a loss test sends at half the path's limit: loss there is the path's, not congestion
DEFAULT_LANES = 8  # sc-booth's 196 LAN measurements on 2 cores: 311 s in 2 lanes, 89 s in 8, every ratio >= 0.997


SHAPED_AT_SPEED = 0.98  # an htb class's rate is its frames' share of line rate: 0.984 at MTU 1500, more for jumbo


def _judge_across(net: Network, access: Access, test: ThroughputTest, result: ThroughputResult,
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


def loss_families(tests: list[ThroughputTest]) -> list[ThroughputTest]:
    """One single-flow path test per family (source VLAN to destination VLAN): what a loss test runs on."""
    families: dict[tuple[str, str], ThroughputTest] = {}
    for test in tests:
        if test.across is None and len(test.flows) == 1:
            client, server = test.flows[0]
            families.setdefault((client.vlan, server.vlan), test)
    return list(families.values())


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


def _measure_loss(net: Network, access: Access, compiler: PolicyCompiler, allocator: PortAllocator, job: _Job,
                  cables: str, progress: Progress) -> ThroughputResult:
    """A UDP test below the path's limit, judged on the datagrams lost against what the intent
    declares on the links crossed (loss_pct, most often none)."""
    test = job.test
    client, server = test.flows[0]
    rate = LOSS_RATE_SHARE * expected_for(net, client, server)
    declared = 100 * (1 - math.prod(1 - link.loss_pct / 100 for link in device_links(net, test)))
    name = f"{test.name} (loss)"
    block = None
    try:
        for host in test.hosts:
            if why := access.why_not(host.name, "iperf3"):
                raise Unprobed(why)
        block = port_block(net, compiler, allocator, test, "iperf3", (client, server),
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
            allocator.release(block)
    progress(f"[loss] {name}{' (reverse)' if job.reverse else ''}: {result.lost_pct or 0:.3f} % lost at "
             f"{rate / 1e6:.0f} Mb/s {result.verdict}")
    return result
