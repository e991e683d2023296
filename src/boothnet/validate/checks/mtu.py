"""MTU: a DF ping at the VLAN's MTU from each endpoint to its gateway, across each routed link,
and along each declared path; a black hole (no reply, no frag-needed) names its first hop.

Along paths, not just first hops: each gateway probes its hosts at the VLAN MTU (a shrunk gateway
interface refuses there, although it would still answer a host's probe by fragmenting its reply),
and every routed jumbo path is probed host to host in both directions with the sender's interface
raised by one byte for the +1 probe, so that its failure is the router's, not the sender's."""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from ipaddress import IPv4Address, IPv6Address, ip_interface
from typing import Literal

from boothnet.derive.policy import compiler_of, policy_decision
from boothnet.derive.ports import bound_acl6_name
from boothnet.family import Family
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.lab import HOST_IFNAME
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks.base import Context, LiveCheck, Suspect
from boothnet.validate.paths import first_hosts
from boothnet.validate.perf.probes import (
    IPV4_ICMP_HEADERS,
    IPV6_ICMP_HEADERS,
    PingResult,
    forget_path_mtus,
    mtu_probe,
    ping,
)
from boothnet.validate.perf.runner import Runner
from boothnet.validate.plan import action6, crosses_vpn, host_prefix, path_mtu
from boothnet.validate.results import MtuRow

WORKERS = 8


class Mtu(LiveCheck):
    name = section = field = "mtu"
    row_type = MtuRow
    order = 60
    title = "MTU probes"
    rows_first = "failed"
    header = ("verdict", "link / path", "MTU", "from -> to", "probe", "cause")
    rotates = True
    alarm = "effect"
    alarm_rank = 80

    def measure(self, ctx: Context) -> list[MtuRow]:
        return run_mtu(ctx.net, ctx.access, ctx.progress, ctx.in_share)

    def subject(self, row: MtuRow) -> str:
        return f"link {row.path}" + (f" [{row.device}]" if row.device else "")

    def message(self, row: MtuRow) -> str:
        return f"MTU {row.mtu} {row.source} -> {row.destination}: {row.cause or 'failed'}"

    def action(self, row: MtuRow) -> str:
        return f"set MTU {row.mtu} on every hop of {row.path}" + (f" (first: {row.device})" if row.device else "")

    def key(self, row: MtuRow) -> str:
        return f"mtu {row.path} {row.source} -> {row.destination} ({row.kind})"

    def suspect(self, row: MtuRow) -> Suspect | None:
        return Suspect(f"MTU {row.mtu} {row.path}: {row.cause}", path=row.path, source=row.source,
                       destination=row.destination) if row.verdict == "FAIL" else None

    def cells(self, row: MtuRow) -> list[str]:
        return [row.verdict, row.path, str(row.mtu), f"{row.source} -> {row.destination}", row.kind, row.cause or ""]


CHECK = Mtu()


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


def address_owner(net: Network, address: str | None) -> str | None:
    """The device (and interface) an address of the intent belongs to: names the hop that said
    "frag needed"."""
    if address is None:
        return None
    for vlan in net.vlans:
        if str(net.gateway_address(vlan)) == address:
            return f"{vlan.gateway} (gateway of {vlan.name})"
        for router, routed in vlan.routers.items():
            if str(routed) == address:
                return f"{router} (on {vlan.name})"
    for link in net.links:
        if link.addresses is not None:
            for end, interface in ((link.a, link.addresses.a), (link.b, link.addresses.b)):
                if str(ip_interface(interface).ip) == address:
                    return end
    return None


def _hop(net: Network, cause: str, result: PingResult, dst: Endpoint) -> str:
    """Name where a path shrinks: a router answers "frag needed" from the address it received on,
    so the shrinking interface is its next one, towards the destination."""
    owner = address_owner(net, result.reporter)
    if owner is None:
        return cause
    device = owner.split(" ", 1)[0].split(":", 1)[0]
    dst_vlan = net.vlan_by_name()[dst.vlan]
    where = (f"{device}'s interface in {dst_vlan.name}" if dst_vlan.gateway == device
             else f"the hop after {owner}")
    return f"{cause}: the path shrinks to {result.reported_mtu} at {where}"


def gateway_rows(net: Network, access: Access, progress: Progress,
                 share: Callable[[str], bool] = lambda _: True) -> list[MtuRow]:
    """Each host VLAN's gateway to its first host at the VLAN MTU: the gateway's own interface
    refuses a larger frame as the sender, naming itself. A gateway without a shell (an IOS or
    EOS switch on the floor) is NOT RUN: its hosts' own probes to it still cover the VLAN."""
    rows = []
    vlans = net.vlan_by_name()
    for vlan_name, host in sorted(first_hosts(net).items()):
        if not share(vlan_name):
            continue
        vlan = vlans[vlan_name]
        mtu = net.vlan_mtu(vlan)
        name = f"{vlan.gateway} ({vlan.name} gateway) -> {host.name}"
        if why := access.why_not(vlan.gateway, "ping"):
            rows.append(MtuRow(path=name, mtu=mtu, source=vlan.gateway, destination=host.name,
                               verdict=Status.ERROR, device=vlan.gateway, cause=why))
            continue
        if not access.has_shell(vlan.gateway):
            rows.append(MtuRow(path=name, mtu=mtu, source=vlan.gateway, destination=host.name,
                               verdict=Status.NOT_RUN, device=vlan.gateway,
                               cause=f"{vlan.gateway} answers NAPALM only: no DF ping from it"))
            continue
        result = mtu_probe(access.runner, access.node(vlan.gateway), str(host.address), mtu, count=1, link=name)
        cause = result.cause
        if result.at_mtu.reporter == "local":
            cause = f"{cause}: {vlan.gateway}'s interface in {vlan.name} is smaller than the VLAN MTU {mtu}"
        rows.append(MtuRow(path=name, mtu=mtu, source=vlan.gateway, destination=host.name,
                           verdict=result.verdict, cause=cause, device=vlan.gateway))
        progress(f"[mtu] {name} at {mtu}: {result.verdict}")
    return rows


@dataclass(frozen=True)
class RoutedPath:
    src: Endpoint
    dst: Endpoint
    mtu: int
    name: str
    family: Literal[4, 6] = 4
    dst_address6: IPv6Address | None = None

    @property
    def dst_address(self) -> str:
        return str(self.dst_address6 if self.family == 6 else self.dst.address)

    @property
    def headers(self) -> int:
        return IPV6_ICMP_HEADERS if self.family == 6 else IPV4_ICMP_HEADERS


def in_ipv6(net: Network, paths: list[RoutedPath]) -> list[RoutedPath]:
    """Each path again in IPv6 where both hosts have a known IPv6 address and the intent lets the
    source ping the destination in IPv6 too."""
    if not net.dual_stack:
        return []
    return [RoutedPath(path.src, path.dst, path.mtu, f"{path.name} (IPv6)", 6,
                       net.endpoint_address(path.dst, Family.V6))
            for path in paths if action6(net, path.src, path.dst, "icmp") == "permit"]


def declared_paths(net: Network) -> list[RoutedPath]:
    """The intent's throughput paths outside the VPN (the VPN section probes the tunnel at what
    the lab's backend carries)."""
    out = []
    for path in net.throughput.paths:
        src, dst = net.endpoints[path.source], net.endpoints[path.destination]
        if not crosses_vpn(net, src, dst):
            out.append(RoutedPath(src, dst, path_mtu(net, src, dst), f"{path.name}: {src.name} -> {dst.name}"))
    return out


def routed_jumbo_paths(net: Network) -> list[RoutedPath]:
    """Every ordered pair of host VLANs (first host of each) from a jumbo one the policy lets
    ping, outside the VPN (the VPN section probes the tunnel): to another jumbo VLAN, and to a
    smaller one, where a router must answer one byte more with "frag needed" (Packet Too Big)."""
    compiler = compiler_of(net)
    vlans = net.vlan_by_name()
    hosts = {name: host for name, host in first_hosts(net).items() if not vlans[name].routers}
    firsts = {name: host for name, host in hosts.items() if net.vlan_mtu(vlans[name]) > net.mtu_policy.default}
    paths = []
    for src in firsts.values():
        for dst in hosts.values():
            if src.vlan == dst.vlan or crosses_vpn(net, src, dst):
                continue
            if policy_decision(compiler, vlans[src.vlan], host_prefix(src), host_prefix(dst), "icmp")[0] != "permit":
                continue
            paths.append(RoutedPath(src, dst, path_mtu(net, src, dst),
                                    f"routed {src.name} ({src.vlan}) -> {dst.name} ({dst.vlan})"))
    return paths


def _set_mtu(runner: Runner, ns: str, mtu: int) -> None:
    runner(ns, ["ip", "link", "set", "dev", HOST_IFNAME, "mtu", str(mtu)], 10)


def path_rows(net: Network, access: Access, progress: Progress,
              share: Callable[[str], bool] = lambda _: True) -> list[MtuRow]:
    """Every declared path and every routed jumbo path: DF at the path MTU must pass; one byte
    more, sent from an interface raised by one byte for the probe, must not arrive (a port drops a
    frame over its MTU, a router says frag needed). On a floor a booth host's interface is never
    changed: one byte more is sent only where the host's own MTU is larger than the path's."""
    runner = access.runner
    paths = [p for p in declared_paths(net) + routed_jumbo_paths(net) if share(p.src.name)]
    paths += in_ipv6(net, paths)
    by_src: dict[str, list[RoutedPath]] = {}
    for path in paths:
        by_src.setdefault(path.src.name, []).append(path)

    def probe(src: str) -> list[MtuRow]:
        group = by_src[src]
        if why := access.why_not(src, "ping", "ip"):
            return [MtuRow(path=p.name, mtu=p.mtu, source=src, destination=p.dst.name, verdict=Status.ERROR, cause=why,
                           device=net.vlan_by_name()[p.src.vlan].gateway) for p in group]
        ns = access.node(src)
        forget_path_mtus(runner, ns)
        at = [ping(runner, ns, p.dst_address, count=1, payload=p.mtu - p.headers, df=True) for p in group]
        own = net.endpoint_mtu(group[0].src)
        raise_own = not access.on_floor
        if raise_own:
            _set_mtu(runner, ns, own + 1)
        sent = [p for p in group if raise_own or p.mtu < own]
        try:  # each +1 waits out its timeout (a switch port drops a frame over its MTU): all at once
            with ThreadPoolExecutor(max_workers=max(1, len(sent))) as pool:
                over = dict(zip([p.name for p in sent], pool.map(
                    lambda p: ping(runner, ns, p.dst_address, count=1, payload=p.mtu - p.headers + 1, df=True),
                    sent),
                    strict=True))
        finally:
            if raise_own:
                _set_mtu(runner, ns, own)
        rows = []
        for path, at_mtu in zip(group, at, strict=True):
            above = over.get(path.name)
            if not at_mtu.ok:
                cause = _hop(net, f"DF ping of {path.mtu} bytes failed: {at_mtu.describe()}", at_mtu, path.dst)
            elif above is not None and above.ok:
                cause = (f"DF ping of {path.mtu + 1} bytes, sent from an interface of {own + raise_own}, passed: "
                         f"the path MTU is larger than declared")
            elif above is not None and path.mtu < own and above.cause == "timeout":
                # the sender's own interface passed it: a router had to refuse it and say so
                said = "Packet Too Big" if path.family == 6 else '"frag needed"'
                cause = (f"DF ping of {path.mtu + 1} bytes vanished: no {said} came back from the router where "
                         f"the path shrinks to {path.mtu}: a router on the way drops them, a black hole for "
                         f"every packet over {path.mtu} ({above.describe()})")
            else:
                cause = None
            rows.append(MtuRow(path=path.name, mtu=path.mtu, source=path.src.name, destination=path.dst.name,
                               verdict=Status.of(cause is None), cause=cause,
                               device=net.vlan_by_name()[path.src.vlan].gateway, family=path.family))
        progress(f"[mtu] paths from {src}: {sum(r.verdict == 'PASS' for r in rows)}/{len(rows)} PASS")
        return rows

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return [row for rows in pool.map(probe, sorted(by_src)) for row in rows]
