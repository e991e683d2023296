"""What to test, from the intent alone: the isolation flows (every ordered pair of host VLANs and
every port of every rule, each with the policy's verdict) and the throughput tests with their
expected goodput (bottleneck speed and path MTU, through the VPN at its inner MTU)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from ipaddress import IPv4Network

from boothnet.derive.policy import PolicyCompiler, policy_decision
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.validate.perf.formula import expected_goodput
from boothnet.validate.perf.wan import route, wan_links_on


@dataclass(frozen=True)
class Flow:
    src: Endpoint
    dst: Endpoint
    proto: str
    port: int | None
    expected: str = "deny"  # what the intent says: permit or deny
    rule: str = "default"  # the policy rule that decides

    def label(self) -> str:
        return f"{self.proto}/{self.port}" if self.port else self.proto


def host_prefix(endpoint: Endpoint) -> IPv4Network:
    return IPv4Network(f"{endpoint.address}/32")


def isolation_flows(net: Network) -> list[Flow]:
    """One flow per ordered pair of VLANs, same zone included (ping), and per port of every
    policy rule, so that no cell of the matrix reads "not tested"."""
    vlans = {v.name: v for v in net.vlans if not v.routers}
    by_vlan: dict[str, list[Endpoint]] = {}
    for endpoint in sorted(net.endpoints.values(), key=lambda e: e.name):
        if endpoint.vlan in vlans:
            by_vlan.setdefault(endpoint.vlan, []).append(endpoint)
    compiler = PolicyCompiler(net)
    flows: dict[tuple, Flow] = {}
    firsts = [members[0] for members in by_vlan.values()]
    for src in firsts:
        for dst in firsts:
            if src.vlan != dst.vlan:
                flows[(src.name, dst.name, "icmp", None)] = Flow(src, dst, "icmp", None)
    for rule in net.policy.rules:
        sources = [
            e
            for e in net.endpoints.values()
            if e.vlan in vlans
            and any(host_prefix(e).subnet_of(p) for p in compiler.part_in(rule.source, vlans[e.vlan]))
        ]
        targets = [
            e
            for e in net.endpoints.values()
            if e.vlan in vlans
            and any(p is None or host_prefix(e).subnet_of(p) for p in compiler.prefixes(rule.destination))
        ]
        for src in sorted(sources, key=lambda e: e.name)[:1]:
            for dst in [t for t in sorted(targets, key=lambda e: e.name) if t.vlan != src.vlan][:1]:
                for port in rule.ports or [None]:
                    proto = rule.proto if rule.proto != "ip" else "tcp"
                    flows[(src.name, dst.name, proto, port)] = Flow(
                        src, dst, proto, port or (22 if proto == "tcp" else None)
                    )
    if net.vpn:
        home = {vlan.name for vlan in net.selected_vlans(net.vpn.home_subnets)}
        booth = {vlan.name for vlan in net.selected_vlans(net.vpn.booth_subnets)}
        clients = [e for e in net.endpoints.values() if e.vlan in booth]
        for server in [e for e in net.endpoints.values() if e.vlan in home][:1]:
            for client in sorted(clients, key=lambda e: e.name):
                flows[(client.name, server.name, "tcp", 22)] = Flow(client, server, "tcp", 22)
    all_vlans = net.vlan_by_name()
    decided = []
    for flow in flows.values():
        action, rule = policy_decision(
            compiler, all_vlans[flow.src.vlan], host_prefix(flow.src), host_prefix(flow.dst), flow.proto, flow.port
        )
        decided.append(replace(flow, expected=action, rule=rule))
    return decided


@dataclass(frozen=True)
class ThroughputTest:
    name: str
    clients: tuple[Endpoint, ...]  # several: all at once to the same server, judged on the sum
    server: Endpoint


def throughput_tests(net: Network) -> list[ThroughputTest]:
    """Each research subnet: every cluster node to its file server alone, then all together;
    then every declared path."""
    tests = []
    for vlan in net.vlans:
        members = sorted((e for e in net.endpoints.values() if e.vlan == vlan.name), key=lambda e: e.name)
        clusters = tuple(e for e in members if e.role == "cluster")
        for server in (e for e in members if e.role == "fileserver"):
            tests += [ThroughputTest(f"{vlan.name}: {c.name} -> {server.name}", (c,), server) for c in clusters]
            if len(clusters) > 1:
                together = "+".join(c.name for c in clusters)
                tests.append(ThroughputTest(f"{vlan.name}: {together} -> {server.name} (together)", clusters, server))
    for path in net.throughput.paths:
        src, dst = net.endpoints[path.source], net.endpoints[path.destination]
        if not wan_links_on(route(net, src, dst)):  # a WAN path gets the WAN stage's tests
            tests.append(ThroughputTest(path.name, (src,), dst))
    return tests


def crosses_vpn(net: Network, src: Endpoint, dst: Endpoint) -> bool:
    zones = {net.vlan_by_name()[e.vlan].zone for e in (src, dst)}
    return net.vpn is not None and len(zones) == 2 and "secure" in zones


def path_mtu(net: Network, src: Endpoint, dst: Endpoint, tunnel_mtu: int | None = None) -> int:
    """The smallest MTU the intent puts on the path: both access VLANs and, through the VPN,
    the tunnel's inner MTU (``tunnel_mtu``: what the lab's backend carries)."""
    vlans = net.vlan_by_name()
    mtu = min(net.vlan_mtu(vlans[e.vlan]) for e in (src, dst))
    if crosses_vpn(net, src, dst):
        mtu = min(mtu, tunnel_mtu or net.mtu_policy.crypto_inner)
    return mtu


def expected_for(net: Network, src: Endpoint, dst: Endpoint, tunnel_mtu: int | None = None) -> float:
    """Goodput limit of the path: bottleneck speed at the path MTU."""
    speed = min(net.port_index[e.attach].speed for e in (src, dst))
    return expected_goodput(speed * 1e6, path_mtu(net, src, dst, tunnel_mtu))
