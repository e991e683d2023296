"""Ask a live Batfish service the questions the checks need; returns answer frames.

Only this module talks to the service, so everything else is testable on recorded answers.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import requests

from boothnet.verify.batfish.intent import OPENING_PACKETS, OpeningPacket, SecureNetwork, VerifyIntent, Zone

# The service answers questions concurrently; 4 clients were about 3.5x faster than 1 on 2 cores.
WORKERS = 4


@dataclass
class Answers:
    """Answer frames per question; None means the question was not answered (check SKIPPED)."""

    file_status: pd.DataFrame | None = None
    parse_warnings: pd.DataFrame | None = None
    init_issues: pd.DataFrame | None = None
    unused_structures: pd.DataFrame | None = None
    undefined_references: pd.DataFrame | None = None
    vlan_properties: pd.DataFrame | None = None
    interface_properties: pd.DataFrame | None = None
    layer3_edges: pd.DataFrame | None = None
    isolation: list[pd.DataFrame] | None = None
    secure: list[pd.DataFrame] | None = None
    filter_lines: pd.DataFrame | None = None
    ipsec: pd.DataFrame | None = None
    ospf: pd.DataFrame | None = None
    traces: dict[str, pd.DataFrame] | None = None
    service_lost: str | None = None  # the first question the service stopped answering, and how
    errors: dict[str, str] = field(default_factory=dict)  # question -> error text


def ip_space_excluding(prefix: str, hosts: tuple[str, ...]) -> str:
    """Batfish IP space `prefix \\ h1 \\ h2` (set difference, left to right)."""
    return " \\ ".join((prefix, *hosts))


def zone_start(zone: Zone) -> str | None:
    """Where a zone's flows start: entering its interfaces (None lets Batfish pick)."""
    if not zone.entries:
        return None
    return ", ".join(f"@enter({e.spec()})" for e in zone.entries)


def opening_headers(packet: OpeningPacket, src_ips: str, dst_ips: str, dst_ports: str | None = None) -> Any:
    """HeaderConstraints for the packets of one kind that open a conversation src -> dst."""
    from pybatfish.datamodel.flow import HeaderConstraints, MatchTcpFlags, TcpFlags

    kw: dict[str, Any] = {"srcIps": src_ips, "dstIps": dst_ips, "ipProtocols": [packet.ip_protocol]}
    if packet.tcp_syn_only:
        # exactly SYN: a SYN with RST or ACK set matches `established` but opens nothing
        kw["tcpFlags"] = [MatchTcpFlags(TcpFlags(syn=True))]
    if packet.icmp_type is not None:
        kw["icmpTypes"] = [packet.icmp_type]
    if dst_ports is not None:
        kw["dstPorts"] = dst_ports
    return HeaderConstraints(**kw)


def zone_pair_headers(packet: OpeningPacket, src: Zone, dst: Zone) -> Any:
    """Conversations of one kind that zone `src` could open with zone `dst`."""
    return opening_headers(packet, ",".join(src.prefixes), ",".join(dst.prefixes))


def secure_headers(packet: OpeningPacket, secure: SecureNetwork) -> Any:
    """Conversations of one kind that a source other than a listed client could open with the
    secured network (searchFilters gives one example per filter, so clients are left out)."""
    return opening_headers(packet, ip_space_excluding("0.0.0.0/0", secure.clients), ",".join(secure.prefixes))


def collect(bf: Any, intent: VerifyIntent, snapshot: str) -> Answers:
    """Run every question on `snapshot`, several at a time (the service answers them
    concurrently); a failing question is recorded, not raised."""
    from pybatfish.datamodel.flow import HeaderConstraints, PathConstraints

    ans = Answers()
    q = bf.q
    pool = ThreadPoolExecutor(max_workers=WORKERS)

    def run(name: str, make: Callable[[], Any]) -> pd.DataFrame | None:
        if ans.service_lost:  # the service stopped answering: no question waits out its timeouts again
            ans.errors[name] = f"not asked: {ans.service_lost}"
            return None
        try:
            return make().answer(snapshot=snapshot).frame()
        except (requests.ConnectionError, requests.Timeout) as exc:
            ans.service_lost = ans.service_lost or f"{name}: {type(exc).__name__}: {exc}"
            ans.errors[name] = f"{type(exc).__name__}: {exc}"
            return None
        except Exception as exc:  # noqa: BLE001 - any service/question error skips the check
            ans.errors[name] = f"{type(exc).__name__}: {exc}"
            return None

    def ask(name: str, make: Callable[[], Any]) -> Future[pd.DataFrame | None]:
        return pool.submit(run, name, make)

    single: dict[str, Future[pd.DataFrame | None]] = {}
    single["file_status"] = ask("fileParseStatus", q.fileParseStatus)
    single["parse_warnings"] = ask("parseWarning", q.parseWarning)
    single["init_issues"] = ask("initIssues", q.initIssues)
    single["unused_structures"] = ask("unusedStructures", q.unusedStructures)
    single["undefined_references"] = ask("undefinedReferences", q.undefinedReferences)
    single["vlan_properties"] = ask("switchedVlanProperties", q.switchedVlanProperties)
    single["interface_properties"] = ask("interfaceProperties", q.interfaceProperties)
    single["layer3_edges"] = ask("layer3Edges", q.layer3Edges)
    single["filter_lines"] = ask("filterLineReachability", q.filterLineReachability)
    single["ipsec"] = ask("ipsecSessionStatus", q.ipsecSessionStatus)
    single["ospf"] = ask("ospfSessionCompatibility", q.ospfSessionCompatibility)

    iso: list[Future[pd.DataFrame | None]] = []
    for src, dst in intent.isolated_pairs():
        start = zone_start(src)
        entry_acls: dict[str, list[str]] = {}  # node -> inbound ACLs where the zone enters
        for b in intent.acl_interfaces:
            if b.direction == "in" and b.iface in src.entries:
                entry_acls.setdefault(b.iface.node, []).append(b.acl)
        for packet in OPENING_PACKETS:
            headers = zone_pair_headers(packet, src, dst)
            what = f"{src.name}->{dst.name} {packet.name}"
            iso.append(ask(f"reachability {what}", lambda h=headers, s=start: (
                q.reachability(pathConstraints=PathConstraints(startLocation=s), headers=h,
                               actions="SUCCESS"))))
            # The inbound ACLs where the zone enters, searched on their own as well (one
            # question per node: searchFilters answers one row per filter).
            for node, acls in sorted(entry_acls.items()):
                iso.append(ask(f"searchFilters {what}@{node}", lambda h=headers, n=node, a=acls: (
                    q.searchFilters(headers=h, action="permit", filters=", ".join(sorted(set(a))),
                                    nodes=n))))

    if intent.secure is not None:
        # the guard ACL, for any conversation a source that is not a listed client can open
        sec = intent.secure
        where: dict[str, Any] = {}
        if sec.guard_filter:
            where["filters"] = sec.guard_filter
        if sec.guard_node:
            where["nodes"] = sec.guard_node
        secure: list[Future[pd.DataFrame | None]] = []
        for packet in OPENING_PACKETS:
            headers = secure_headers(packet, sec)
            secure.append(ask(f"searchFilters secure {packet.name}", lambda h=headers: (
                q.searchFilters(headers=h, action="permit", **where))))
    else:
        secure = []

    traces: dict[str, Future[pd.DataFrame | None]] = {}
    for pf in intent.flows:
        start = f"@enter({pf.src_node}[{pf.src_interface}])" if pf.src_interface else pf.src_node
        hkw: dict[str, Any] = {"srcIps": pf.src_ip, "dstIps": pf.dst_ip,
                               "ipProtocols": [pf.proto.upper()]}
        if pf.dst_port is not None:
            hkw["dstPorts"] = str(pf.dst_port)
        theaders = HeaderConstraints(**hkw)
        traces[pf.name] = ask(f"traceroute {pf.name}", lambda s=start, h=theaders: (
            q.traceroute(startLocation=s, headers=h)))
    pool.shutdown(wait=True)

    for attr, future in single.items():
        setattr(ans, attr, future.result())
    ans.isolation = _all_or_none(iso)
    ans.secure = _all_or_none(secure)
    traced = {name: f.result() for name, f in traces.items()}
    ans.traces = None if any(frame is None for frame in traced.values()) else traced  # type: ignore[assignment]
    return ans


def _all_or_none(futures: list[Future[pd.DataFrame | None]]) -> list[pd.DataFrame] | None:
    """Every answer, or None when any question did not answer (its check is then SKIPPED)."""
    frames = [f.result() for f in futures]
    return None if any(f is None for f in frames) else [f for f in frames if f is not None]
