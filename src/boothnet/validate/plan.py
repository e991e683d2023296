"""What to test, from the intent alone: the isolation flows (every ordered pair of host VLANs and
every port of every rule, each with the policy's verdict) and the throughput tests with their
expected goodput (bottleneck speed and path MTU, through the VPN at its inner MTU)."""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from ipaddress import IPv4Network, IPv6Address, IPv6Network
from typing import Literal

from boothnet.booth.cables import cable_plan, cables_by_ref
from boothnet.derive.policy import PolicyCompiler, compiler_of, policy_decision
from boothnet.family import Family
from boothnet.intent import Network
from boothnet.intent.model import Endpoint, Link
from boothnet.validate.perf.formula import expected_goodput
from boothnet.validate.perf.ports import TOOL_PORTS
from boothnet.validate.perf.wan_path import WanPath, wan_links_on, wan_paths


@dataclass(frozen=True)
class Flow:
    src: Endpoint
    dst: Endpoint
    proto: str
    port: int | None
    expected: str = "deny"  # what the intent says: permit or deny
    rule: str = "default"  # the policy rule that decides
    sample: tuple[int, ...] = ()  # a sample of ports no rule names, one verdict for them all
    # Batfish traces it too: icmp, and a port a rule names from this source's VLAN to this destination
    ask_batfish: bool = False
    family: Literal[4, 6] = 4
    addresses6: tuple[IPv6Address, IPv6Address] | None = None  # IPv6: (source's, destination's)

    @property
    def src_address(self) -> str:
        return str(self.addresses6[0] if self.addresses6 else self.src.address)

    @property
    def dst_address(self) -> str:
        return str(self.addresses6[1] if self.addresses6 else self.dst.address)

    def label(self) -> str:
        name = (f"{self.proto}/sample x{len(self.sample)}" if self.sample
                else f"{self.proto}/{self.port}" if self.port else self.proto)
        return f"{name} (IPv6)" if self.family == 6 else name

    def ports(self) -> tuple[int, ...]:
        return self.sample or ((self.port,) if self.port else ())


def host_prefix(endpoint: Endpoint) -> IPv4Network:
    return IPv4Network(f"{endpoint.address}/32")


# Ports a leak is likely on (file, database, remote desktop, web, directory services), probed
# on every pair beside the ports the rules name and a random sample.
COMMON_TCP = (21, 23, 25, 53, 80, 110, 135, 139, 143, 389, 443, 445, 636, 993, 995, 1433, 1521, 2049,
              3306, 3389, 5432, 5900, 6379, 8000, 8080, 8443, 8888, 9000, 9090, 9200, 11211, 27017)
COMMON_UDP = (53, 67, 69, 123, 137, 161, 500, 514, 1812, 1900, 4500, 5353)
SAMPLE_TCP, SAMPLE_UDP = 16, 8
# Every port can leak: the responders bind theirs before any prober picks an ephemeral port
SAMPLE_RANGE = range(1, 65536)


@dataclass(frozen=True)
class IsolationPlan:
    flows: list[Flow]
    seed: int
    named: dict[str, tuple[int, ...]]  # proto -> the ports the policy's rules name
    sampled: dict[str, tuple[int, ...]]  # proto -> the other ports probed (common + random)

    def ports_per_pair(self) -> int:
        return 1 + sum(len(p) for p in self.named.values()) + sum(len(p) for p in self.sampled.values())

    def describe(self) -> str:
        tcp, udp = (len(self.named[p]) + len(self.sampled[p]) for p in ("tcp", "udp"))
        pairs = len({(f.src.name, f.dst.name) for f in self.flows})
        return (f"{pairs} host pairs x {self.ports_per_pair()} probes: icmp, {tcp} TCP and {udp} UDP ports "
                f"(every port a rule names, {len(COMMON_TCP)}/{len(COMMON_UDP)} common service ports, "
                f"{SAMPLE_TCP}/{SAMPLE_UDP} random ports, seed {self.seed})")


def _sample(named: set[int], common: tuple[int, ...], count: int, rng: random.Random) -> tuple[int, ...]:
    free = [p for p in SAMPLE_RANGE if p not in named and p not in common]
    return tuple(sorted({*(p for p in common if p not in named), *rng.sample(free, count)}))


def representatives(net: Network, compiler: PolicyCompiler) -> dict[str, list[Endpoint]]:
    """The hosts each host VLAN is probed from and to: every host of a VLAN that a rule splits
    (a group, such as the listed VPN clients, covers some of its hosts but not all), else its first."""
    vlans = {v.name: v for v in net.vlans if not v.routers}
    by_vlan: dict[str, list[Endpoint]] = {}
    for endpoint in sorted(net.endpoints.values(), key=lambda e: e.name):
        if endpoint.vlan in vlans:
            by_vlan.setdefault(endpoint.vlan, []).append(endpoint)

    def split(vlan: str, members: list[Endpoint]) -> bool:
        for rule in net.policy.rules:
            for prefixes in (compiler.part_in(rule.source, vlans[vlan]), compiler.prefixes(rule.destination)):
                covered = sum(any(p is None or host_prefix(e).subnet_of(p) for p in prefixes) for e in members)
                if 0 < covered < len(members):
                    return True
        return False

    return {vlan: members if split(vlan, members) else members[:1] for vlan, members in by_vlan.items()}


def isolation_plan(net: Network, seed: int = 0) -> IsolationPlan:
    """Every ordered pair of representative hosts in different VLANs, probed with icmp, every TCP
    and UDP port any rule names (so each permit's reverse is probed on its own ports too), and a
    sample of other ports, each flow with the policy's verdict."""
    compiler = compiler_of(net)
    named = {proto: tuple(sorted({p for r in net.policy.rules if r.proto in (proto, "ip") for p in r.ports}))
             for proto in ("tcp", "udp")}
    rng = random.Random(seed)
    sampled = {"tcp": _sample(set(named["tcp"]), COMMON_TCP, SAMPLE_TCP, rng),
               "udp": _sample(set(named["udp"]), COMMON_UDP, SAMPLE_UDP, rng)}
    all_vlans = net.vlan_by_name()

    def covers(selector: str, host: Endpoint) -> bool:
        return any(p is None or host_prefix(host).subnet_of(p) for p in compiler.prefixes(selector))

    hosts = [e for members in representatives(net, compiler).values() for e in members]
    flows: list[Flow] = []
    for src in hosts:
        for dst in hosts:
            if src.vlan == dst.vlan:
                continue

            def decide(proto: str, port: int | None, src: Endpoint = src, dst: Endpoint = dst) -> tuple[str, str]:
                return policy_decision(compiler, all_vlans[src.vlan], host_prefix(src), host_prefix(dst), proto, port)

            action, rule = decide("icmp", None)
            pair = [Flow(src, dst, "icmp", None, action, rule, ask_batfish=True)]
            for proto in ("tcp", "udp"):
                for port in named[proto]:
                    action, rule = decide(proto, port)
                    asked = any(port in r.ports and r.proto in (proto, "ip") and covers(r.destination, dst)
                                and compiler.part_in(r.source, all_vlans[src.vlan]) for r in net.policy.rules)
                    pair.append(Flow(src, dst, proto, port, action, rule, ask_batfish=asked))
                # no rule names these ports: one decision for them all, unless a rule for any port
                # of the protocol splits them, which gives one row per decision
                groups: dict[tuple[str, str], list[int]] = {}
                for port in sampled[proto]:
                    groups.setdefault(decide(proto, port), []).append(port)
                for (action, rule), ports in groups.items():
                    pair.append(Flow(src, dst, proto, None, action, rule, sample=tuple(ports)))
            flows += pair + _in_ipv6(net, pair)
    return IsolationPlan(flows, seed, named, sampled)


def _in_ipv6(net: Network, pair: list[Flow]) -> list[Flow]:
    """The pair's flows in IPv6 where both hosts have a known IPv6 address, each with the
    intent's IPv6 decision (the same rules; a rule naming IPv4 prefixes does not apply). A
    sample's ports split as IPv4's did, so a port IPv6 decides otherwise is a row of its own."""
    src, dst = pair[0].src, pair[0].dst
    addresses = (net.endpoint_address(src, Family.V6), net.endpoint_address(dst, Family.V6))
    if addresses[0] is None or addresses[1] is None:
        return []
    both = (addresses[0], addresses[1])
    vlans = net.vlan_by_name()
    compiler6 = compiler_of(net, Family.V6)

    def decide(proto: str, port: int | None) -> tuple[str, str]:
        return policy_decision(compiler6, vlans[src.vlan], IPv6Network(both[0]), IPv6Network(both[1]),
                               proto, port)

    flows: list[Flow] = []
    for flow in pair:
        groups: dict[tuple[str, str], list[int | None]] = {}
        for port in flow.sample or (flow.port,):
            groups.setdefault(decide(flow.proto, port), []).append(port)
        for (action, rule), ports in groups.items():
            sample = tuple(p for p in ports if p is not None) if flow.sample else ()
            flows.append(Flow(src, dst, flow.proto, flow.port, action, rule, sample, family=6, addresses6=both))
    return flows


def isolation_flows(net: Network, seed: int = 0) -> list[Flow]:
    return isolation_plan(net, seed).flows


@dataclass(frozen=True)
class ThroughputTest:
    name: str
    flows: tuple[tuple[Endpoint, Endpoint], ...]  # (client, server), all at once, judged on the sum
    links: frozenset[str] = frozenset()  # what it loads: host ports and device links; disjoint tests run at once
    across: Link | None = None  # a backbone aggregate: the device link it exists to load
    expected_bps: float | None = None  # an aggregate's limit (a path's comes from its two ends)
    family: Literal[4, 6] = 4  # 6: the same hosts over IPv6 (their intent addresses)

    def address_of(self, net: Network, host: Endpoint) -> str:
        """Where the test reaches ``host``: its IPv4 address, or for an IPv6 test its IPv6 one."""
        return str(net.endpoint_address(host, Family.V6) if self.family == 6 else host.address)

    @property
    def clients(self) -> tuple[Endpoint, ...]:
        return tuple(client for client, _ in self.flows)

    @property
    def servers(self) -> tuple[Endpoint, ...]:
        return tuple({server.name: server for _, server in self.flows}.values())

    @property
    def hosts(self) -> tuple[Endpoint, ...]:
        return tuple({host.name: host for flow in self.flows for host in flow}.values())


def links_loaded(net: Network, src: Endpoint, dst: Endpoint,
                 between: Callable[[str, str], list[Link]] | None = None) -> frozenset[str]:
    """The ports and links a transfer from ``src`` to ``dst`` loads: both host ports, and the
    device links from the source's switch through its VLAN's gateway (where VLANs are routed) and
    the destination's gateway to the destination's switch. ``between``: net.links_between, or a
    cached one when every pair of hosts is asked."""
    between = between or net.links_between
    vlans = net.vlan_by_name()
    stops = [src.attach.split(":", 1)[0]]
    if src.vlan != dst.vlan:
        stops += [vlans[src.vlan].gateway, vlans[dst.vlan].gateway]
    stops.append(dst.attach.split(":", 1)[0])
    hops = [link for here, there in itertools.pairwise(stops) for link in between(here, there)]
    return frozenset({src.attach, dst.attach, *(link.key for link in hops)})


def device_links(net: Network, test: ThroughputTest) -> list[Link]:
    """The intent's device links ``test`` loads."""
    return [link for link in net.links if link.key in test.links]


def _test(net: Network, name: str, clients: tuple[Endpoint, ...], server: Endpoint) -> ThroughputTest:
    return ThroughputTest(name, tuple((c, server) for c in clients),
                          frozenset().union(*(links_loaded(net, c, server) for c in clients)))


SERVER_ROLES = ("fileserver", "server")


def _spread(pairs: list[tuple[Endpoint, Endpoint]]) -> list[tuple[Endpoint, Endpoint]]:
    """Each client of ``pairs`` once, to the server it may reach that has the fewest so far."""
    load: dict[str, int] = {}
    flows = []
    for client in {c.name: c for c, _ in pairs}.values():
        server = min((s for c, s in pairs if c is client), key=lambda s: (load.get(s.name, 0), s.name))
        load[server.name] = load.get(server.name, 0) + 1
        flows.append((client, server))
    return flows


BACKBONE = "backbone "  # what a backbone aggregate's name starts with


def backbone_tests(net: Network) -> list[ThroughputTest]:
    """Each device link loaded with traffic that crosses it, two ways:

    - as SC2000 loaded its trunks: every client host (cluster nodes first) at once, each to a
      server in another VLAN, spread over the servers;
    - one VLAN's hosts at once (the VLAN with the most), each to its own host beyond: a trunk
      that is slower than its speed for one VLAN fails here even where each VLAN has its own
      wire (the lab without 802.1Q).

    Only flows the policy permits on the tools' ports; no WAN or VPN path (the WAN stage measures
    those). Each is judged on its sum against the link's speed, or what the sources can drive
    into their servers' ports when that is less."""
    compiler = compiler_of(net)
    vlans = net.vlan_by_name()
    ports = net.port_index
    hosts = sorted(net.endpoints.values(), key=lambda e: e.name)
    between = functools.cache(net.links_between)  # one search per pair of devices, not per pair of hosts
    cables = cables_by_ref(cable_plan(net))

    def usable(client: Endpoint, server: Endpoint) -> bool:
        return (client.vlan != server.vlan and not crosses_vpn(net, client, server)
                and not wan_links_on(net.route(client, server))
                and policy_decision(compiler, vlans[client.vlan], host_prefix(client), host_prefix(server), "tcp",
                                    TOOL_PORTS["iperf3"])[0] == "permit")

    loads = {(c.name, s.name): links_loaded(net, c, s, between) for c in hosts for s in hosts if usable(c, s)}
    tests: list[ThroughputTest] = []
    for link in net.links:
        if link.delay_ms:
            continue
        label = cables[link.a].text
        key = link.key
        candidates = [(c, s) for c in hosts for s in hosts if key in loads.get((c.name, s.name), ())]
        by_role = [(c, s) for c, s in candidates if c.role not in SERVER_ROLES and s.role in SERVER_ROLES]
        everyone = _spread(by_role or candidates)
        by_vlan: dict[str, list[tuple[Endpoint, Endpoint]]] = {}
        for c, s in candidates:
            by_vlan.setdefault(c.vlan, []).append((c, s))
        densest = max(by_vlan, key=lambda v: len({c.name for c, _ in by_vlan[v]}), default=None)
        one_vlan: list[tuple[Endpoint, Endpoint]] = []
        for client in {c.name: c for c, _ in by_vlan.get(densest or "", [])}.values():
            taken = {s.name for _, s in one_vlan} | {c.name for c, _ in one_vlan}
            beyond = [s for c, s in by_vlan[densest or ""] if c is client and s.name not in taken]
            if beyond:
                one_vlan.append((client, beyond[0]))
        named = [(f"{BACKBONE}{label}: {len(everyone)} clients at once", everyone)]
        if {c.name for c, _ in one_vlan} != {c.name for c, _ in everyone}:
            named.append((f"{BACKBONE}{label}: {densest}'s {len(one_vlan)} hosts at once", one_vlan))
        for name, flows in named:
            if not flows:
                continue
            feed = sum(min(ports[s.attach].speed, sum(ports[c.attach].speed for c, t in flows if t is s))
                       for s in {s.name: s for _, s in flows}.values())
            mtu = min(path_mtu(net, c, s) for c, s in flows)
            tests.append(ThroughputTest(
                name, tuple(flows), frozenset().union(*(loads[c.name, s.name] for c, s in flows)), across=link,
                expected_bps=expected_goodput(min(net.link_speed(link), feed) * 1e6, mtu)))
    return tests


def throughput_tests(net: Network) -> list[ThroughputTest]:
    """Each research subnet: every cluster node to its file server alone, then all together;
    then every declared path; then each device link's aggregate."""
    tests = []
    for vlan in net.vlans:
        members = sorted((e for e in net.endpoints.values() if e.vlan == vlan.name), key=lambda e: e.name)
        clusters = tuple(e for e in members if e.role == "cluster")
        for server in (e for e in members if e.role == "fileserver"):
            tests += [_test(net, f"{vlan.name}: {c.name} -> {server.name}", (c,), server) for c in clusters]
            if len(clusters) > 1:
                together = "+".join(c.name for c in clusters)
                tests.append(_test(net, f"{vlan.name}: {together} -> {server.name} (together)", clusters, server))
    for path in net.throughput.paths:
        src, dst = net.endpoints[path.source], net.endpoints[path.destination]
        if not wan_links_on(net.route(src, dst)):  # a WAN path gets the WAN stage's tests
            tests.append(_test(net, path.name, (src,), dst))
    return tests + _in_ipv6_too(net, tests) + backbone_tests(net)


def _in_ipv6_too(net: Network, tests: list[ThroughputTest]) -> list[ThroughputTest]:
    """Each host test again over IPv6 where every host of it has a known IPv6 address and the
    intent lets each client reach its server in IPv6."""
    if not net.dual_stack:
        return []
    return [replace(test, name=f"{test.name} (IPv6)", family=6) for test in tests
            if all(reaches_in_ipv6(net, c, s) for c, s in test.flows)]


def reaches_in_ipv6(net: Network, client: Endpoint, server: Endpoint) -> bool:
    """Whether both hosts have a known IPv6 address, every routed link between them carries IPv6,
    and the intent lets the client open the measuring tools' port on the server in IPv6 (the VPN's
    tunnel carries IPv4 only)."""
    if crosses_vpn(net, client, server):
        return False
    if any(link.mode == "routed" and link.addresses6 is None for link in net.route(client, server)):
        return False
    action = action6(net, client, server, "tcp", TOOL_PORTS["iperf3"])
    return action is not None and (client.vlan == server.vlan or action == "permit")


def action6(net: Network, src: Endpoint, dst: Endpoint, proto: str, port: int | None = None) -> str | None:
    """What the intent does with ``src`` -> ``dst`` in IPv6 ("permit", "deny"); None where either
    host's IPv6 address is not known."""
    src6, dst6 = net.endpoint_address(src, Family.V6), net.endpoint_address(dst, Family.V6)
    if src6 is None or dst6 is None:
        return None
    return policy_decision(compiler_of(net, Family.V6), net.vlan_by_name()[src.vlan], IPv6Network(src6),
                           IPv6Network(dst6), proto, port)[0]


def declared_wan_paths(net: Network, tunnel_mtu: int | None) -> list[WanPath]:
    """The intent's paths that cross a WAN link, each again in IPv6 where it reaches in IPv6."""
    paths = wan_paths(net, lambda src, dst: path_mtu(net, src, dst, tunnel_mtu))
    twins = [path.in_ipv6(address) for path in paths if net.dual_stack
             and reaches_in_ipv6(net, path.source, path.destination)
             and (address := net.endpoint_address(path.destination, Family.V6)) is not None]
    return paths + twins


def crosses_vpn(net: Network, src: Endpoint, dst: Endpoint) -> bool:
    zones = {net.vlan_by_name()[e.vlan].zone for e in (src, dst)}
    return net.vpn is not None and len(zones) == 2 and "secure" in zones


def path_mtu(net: Network, src: Endpoint, dst: Endpoint, tunnel_mtu: int | None = None) -> int:
    """The smallest MTU the intent puts on the path: both access VLANs, and the device links the
    route crosses (a 1500 uplink to the show network shrinks the path) or, through the VPN, the tunnel's
    inner MTU (``tunnel_mtu``: what the lab's backend carries)."""
    vlans = net.vlan_by_name()
    mtu = min(net.vlan_mtu(vlans[e.vlan]) for e in (src, dst))
    if crosses_vpn(net, src, dst):
        return min(mtu, tunnel_mtu or net.mtu_policy.crypto_inner)
    return min([mtu, *(net.link_mtu(link) for link in net.route(src, dst))])


def expected_for(net: Network, src: Endpoint, dst: Endpoint, tunnel_mtu: int | None = None, family: int = 4) -> float:
    """Goodput limit of the path: bottleneck speed at the path MTU, in the family's headers."""
    speed = min(net.port_index[e.attach].speed for e in (src, dst))
    return expected_goodput(speed * 1e6, path_mtu(net, src, dst, tunnel_mtu), family)
