"""Ask a live Batfish service the questions the checks need; returns answer frames.

Only this module talks to the service, so everything else is testable on recorded answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from boothnet.verify.batfish.intent import OPENING_PACKETS, OpeningPacket, VerifyIntent, Zone


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


def collect(bf: Any, intent: VerifyIntent, snapshot: str) -> Answers:
    """Run every question on `snapshot`; a failing question is recorded, not raised."""
    from pybatfish.datamodel.flow import HeaderConstraints, PathConstraints

    ans = Answers()
    q = bf.q

    def ask(name: str, make: Callable[[], Any]) -> pd.DataFrame | None:
        try:
            return make().answer(snapshot=snapshot).frame()
        except Exception as exc:  # noqa: BLE001 - any service/question error skips the check
            ans.errors[name] = f"{type(exc).__name__}: {exc}"
            return None

    ans.file_status = ask("fileParseStatus", q.fileParseStatus)
    ans.parse_warnings = ask("parseWarning", q.parseWarning)
    ans.init_issues = ask("initIssues", q.initIssues)
    ans.unused_structures = ask("unusedStructures", q.unusedStructures)
    ans.undefined_references = ask("undefinedReferences", q.undefinedReferences)
    ans.vlan_properties = ask("switchedVlanProperties", q.switchedVlanProperties)
    ans.interface_properties = ask("interfaceProperties", q.interfaceProperties)
    ans.layer3_edges = ask("layer3Edges", q.layer3Edges)
    ans.filter_lines = ask("filterLineReachability", q.filterLineReachability)
    ans.ipsec = ask("ipsecSessionStatus", q.ipsecSessionStatus)
    ans.ospf = ask("ospfSessionCompatibility", q.ospfSessionCompatibility)

    iso: list[pd.DataFrame | None] = []
    for src, dst in intent.isolated_pairs():
        start = zone_start(src)
        entry_acls: dict[str, list[str]] = {}  # node -> inbound ACLs where the zone enters
        for b in intent.acl_interfaces:
            if b.direction == "in" and b.iface in src.entries:
                entry_acls.setdefault(b.iface.node, []).append(b.acl)
        for packet in OPENING_PACKETS:
            headers = opening_headers(packet, ",".join(src.prefixes), ",".join(dst.prefixes))
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
    ans.isolation = None if any(f is None for f in iso) else [f for f in iso if f is not None]

    if intent.secure is not None:
        # Search the guard ACL for any conversation a source that is not a listed client can
        # open: searchFilters gives one example per filter, so clients are excluded up front.
        sec = intent.secure
        where: dict[str, Any] = {}
        if sec.guard_filter:
            where["filters"] = sec.guard_filter
        if sec.guard_node:
            where["nodes"] = sec.guard_node
        secure: list[pd.DataFrame | None] = []
        for packet in OPENING_PACKETS:
            headers = opening_headers(packet, ip_space_excluding("0.0.0.0/0", sec.clients),
                                      ",".join(sec.prefixes))
            secure.append(ask(f"searchFilters secure {packet.name}", lambda h=headers: (
                q.searchFilters(headers=h, action="permit", **where))))
        ans.secure = None if any(f is None for f in secure) else [f for f in secure if f is not None]
    else:
        ans.secure = []

    traces: dict[str, pd.DataFrame] = {}
    for pf in intent.flows:
        start = f"@enter({pf.src_node}[{pf.src_interface}])" if pf.src_interface else pf.src_node
        hkw: dict[str, Any] = {"srcIps": pf.src_ip, "dstIps": pf.dst_ip,
                               "ipProtocols": [pf.proto.upper()]}
        if pf.dst_port is not None:
            hkw["dstPorts"] = str(pf.dst_port)
        theaders = HeaderConstraints(**hkw)
        frame = ask(f"traceroute {pf.name}", lambda s=start, h=theaders: (
            q.traceroute(startLocation=s, headers=h)))
        if frame is not None:
            traces[pf.name] = frame
    ans.traces = traces if len(traces) == len(intent.flows) else None
    return ans
