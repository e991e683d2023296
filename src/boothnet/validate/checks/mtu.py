"""MTU: a DF ping at the VLAN's MTU from each endpoint to its gateway, across each routed link,
and along each declared path; a black hole (no reply, no frag-needed) names its first hop."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from ipaddress import IPv4Address, IPv6Address

from boothnet.derive.ports import bound_acl6_name
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks.base import Context, LiveCheck, Suspect
from boothnet.validate.paths import gateway_rows, path_rows
from boothnet.validate.perf.probes import IPV4_ICMP_HEADERS, IPV6_ICMP_HEADERS, mtu_probe, ping
from boothnet.validate.results import MtuRow


class Mtu(LiveCheck):
    name = section = field = "mtu"
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
    sources = net.bound_sources6(endpoint)
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
        if (gateway6 := net.gateway_address6(vlan)) is not None and net.endpoint_address6(endpoint) is not None:
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
