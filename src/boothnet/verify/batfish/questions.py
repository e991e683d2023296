"""Ask a live Batfish service the questions the checks need; returns answer frames.

Only this module talks to the service, so everything else is testable on recorded answers.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pandas as pd
import requests

from boothnet.family import ICMP_NUMBERS, Family
from boothnet.verify.batfish.intent import (
    OPENING_PACKETS,
    OpeningPacket,
    PolicyQuery,
    SecureNetwork,
    VerifyIntent,
    Zone,
    opening_packet,
)

# A client's source port: a stateless ACL's return line for a UDP service matches the service's
# port as the source, which no new conversation from a client uses.
EPHEMERAL_PORTS = "49152-65535"
OPPOSITE = {"permit": "deny", "deny": "permit"}

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
    policy: list[tuple[PolicyQuery, pd.DataFrame]] | None = None
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


def opening_headers(packet: OpeningPacket, src_ips: str, dst_ips: str, dst_ports: str | None = None,
                    src_ports: str | None = None) -> Any:
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
    if src_ports is not None:
        kw["srcPorts"] = src_ports
    return HeaderConstraints(**kw)


def reply_headers(proto: str, src_ips: str, dst_ips: str, service_ports: str | None = None) -> Any:
    """HeaderConstraints for the replies of conversations dst -> src: from the service's ports
    to a client's ephemeral port, a TCP segment with ACK set (what `established` matches), an
    echo reply. A stateless ACL must permit them by a line of their own."""
    from pybatfish.datamodel.flow import HeaderConstraints, MatchTcpFlags, TcpFlags

    kw: dict[str, Any] = {"srcIps": src_ips, "dstIps": dst_ips, "ipProtocols": [proto.upper()]}
    if proto == "tcp":
        kw["tcpFlags"] = [MatchTcpFlags(TcpFlags(ack=True))]
    if proto == "icmp":
        kw["icmpTypes"] = [0]  # echo reply
    if proto in ("tcp", "udp"):
        kw["dstPorts"] = EPHEMERAL_PORTS
        if service_ports is not None:
            kw["srcPorts"] = service_ports
    return HeaderConstraints(**kw)


def zone_pair_headers(packet: OpeningPacket, src: Zone, dst: Zone) -> Any:
    """Conversations of one kind that zone `src` could open with zone `dst`."""
    return opening_headers(packet, ",".join(src.prefixes), ",".join(dst.prefixes))


def secure_headers(packet: OpeningPacket, secure: SecureNetwork) -> Any:
    """Conversations of one kind that a source other than a listed client could open with the
    secured network (searchFilters gives one example per filter, so clients are left out)."""
    return opening_headers(packet, ip_space_excluding("0.0.0.0/0", secure.clients), ",".join(secure.prefixes))


class _Asker:
    """Questions asked on one snapshot, several at a time (the service answers them
    concurrently); a failing question is recorded in the answers, not raised."""

    def __init__(self, snapshot: str, ans: Answers) -> None:
        self.snapshot, self.ans = snapshot, ans
        self.pool = ThreadPoolExecutor(max_workers=WORKERS)

    def _run(self, name: str, make: Callable[[], Any]) -> pd.DataFrame | None:
        ans = self.ans
        if ans.service_lost:  # the service stopped answering: no question waits out its timeouts again
            ans.errors[name] = f"not asked: {ans.service_lost}"
            return None
        try:
            return make().answer(snapshot=self.snapshot).frame()
        except (requests.ConnectionError, requests.Timeout) as exc:
            ans.service_lost = ans.service_lost or f"{name}: {type(exc).__name__}: {exc}"
            ans.errors[name] = f"{type(exc).__name__}: {exc}"
            return None
        except Exception as exc:  # any service/question error skips the check
            ans.errors[name] = f"{type(exc).__name__}: {exc}"
            return None

    def ask(self, name: str, make: Callable[[], Any]) -> Future[pd.DataFrame | None]:
        return self.pool.submit(self._run, name, make)


def _ask_isolation(asker: _Asker, q: Any, intent: VerifyIntent) -> list[Future[pd.DataFrame | None]]:
    """Each isolated zone pair, per opening packet: reachability, and the zone's inbound ACLs."""
    from pybatfish.datamodel.flow import PathConstraints

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
            iso.append(asker.ask(f"reachability {what}", partial(
                q.reachability, pathConstraints=PathConstraints(startLocation=start), headers=headers,
                actions="SUCCESS")))
            # The inbound ACLs where the zone enters, searched on their own as well (one
            # question per node: searchFilters answers one row per filter).
            for node, acls in sorted(entry_acls.items()):
                iso.append(asker.ask(f"searchFilters {what}@{node}", partial(
                    q.searchFilters, headers=headers, action="permit", filters=", ".join(sorted(set(acls))),
                    nodes=node)))
    return iso


def _ask_secure(asker: _Asker, q: Any, intent: VerifyIntent) -> list[Future[pd.DataFrame | None]]:
    """The guard ACL, for any conversation a source that is not a listed client can open."""
    sec = intent.secure
    if sec is None:
        return []
    where: dict[str, Any] = {}
    if sec.guard_filter:
        where["filters"] = sec.guard_filter
    if sec.guard_node:
        where["nodes"] = sec.guard_node
    asked = []
    for packet in OPENING_PACKETS:
        headers = secure_headers(packet, sec)
        asked.append(asker.ask(f"searchFilters secure {packet.name}", partial(
            q.searchFilters, headers=headers, action="permit", **where)))
    return asked


def _ask_traces(asker: _Asker, q: Any, intent: VerifyIntent) -> dict[str, Future[pd.DataFrame | None]]:
    """A traceroute of each declared flow (its path MTU) and each declared path both ways."""
    from pybatfish.datamodel.flow import HeaderConstraints

    traces: dict[str, Future[pd.DataFrame | None]] = {}
    for pf in (*intent.flows, *intent.routes):
        start = f"@enter({pf.src_node}[{pf.src_interface}])" if pf.src_interface else pf.src_node
        hkw: dict[str, Any] = {"srcIps": pf.src_ip, "dstIps": pf.dst_ip, "ipProtocols": [pf.proto.upper()]}
        if pf.dst_port is not None:
            hkw["dstPorts"] = str(pf.dst_port)
        headers = HeaderConstraints(**hkw)
        traces[pf.name] = asker.ask(f"traceroute {pf.name}", partial(q.traceroute, startLocation=start,
                                                                      headers=headers))
    return traces


def typed_packet(service: str) -> OpeningPacket:
    """The first packet a policy question's service stands for: tcp, udp, icmp (an echo request),
    or `icmp <type>`: an IPv4 ICMP packet of that type (a rule's icmp_types)."""
    proto, _, kind = service.partition(" ")
    if not kind:
        return opening_packet(proto)
    return OpeningPacket(f"ICMP {kind}", "ICMP", icmp_type=ICMP_NUMBERS[kind][Family.V4])


def _ask_policy(asker: _Asker, q: Any, intent: VerifyIntent) -> list[tuple[PolicyQuery, Future[pd.DataFrame | None]]]:
    """Each ACL: any of the intent's flows it decides the other way (one question per group of
    flows the intent decides alike)."""
    asked = []
    for query in intent.policy:
        if query.reply:
            headers = reply_headers(query.proto, ",".join(query.srcs), ",".join(query.dsts),
                                    ",".join(map(str, query.ports)) or None)
        else:
            headers = opening_headers(typed_packet(query.proto), ",".join(query.srcs), ",".join(query.dsts),
                                      ",".join(map(str, query.ports)) or None,
                                      EPHEMERAL_PORTS if query.proto in ("tcp", "udp") else None)
        what = f"searchFilters policy {query.node} {query.acl} {query.proto} {query.action}" + \
            (" (replies)" if query.reply else "")
        asked.append((query, asker.ask(what, partial(q.searchFilters, headers=headers,
                                                     action=OPPOSITE[query.action], nodes=query.node,
                                                     filters=query.acl))))
    return asked


# answer attribute -> the question, asked once per snapshot
SINGLE_QUESTIONS = {
    "file_status": "fileParseStatus", "parse_warnings": "parseWarning", "init_issues": "initIssues",
    "unused_structures": "unusedStructures", "undefined_references": "undefinedReferences",
    "vlan_properties": "switchedVlanProperties", "interface_properties": "interfaceProperties",
    "layer3_edges": "layer3Edges", "filter_lines": "filterLineReachability", "ipsec": "ipsecSessionStatus",
    "ospf": "ospfSessionCompatibility",
}


def collect(bf: Any, intent: VerifyIntent, snapshot: str) -> Answers:
    """Run every question on `snapshot`, several at a time (the service answers them
    concurrently); a failing question is recorded, not raised."""
    ans = Answers()
    q = bf.q
    asker = _Asker(snapshot, ans)
    single = {attr: asker.ask(question, getattr(q, question)) for attr, question in SINGLE_QUESTIONS.items()}
    iso = _ask_isolation(asker, q, intent)
    secure = _ask_secure(asker, q, intent)
    traces = _ask_traces(asker, q, intent)
    policy = _ask_policy(asker, q, intent)
    asker.pool.shutdown(wait=True)

    for attr, future in single.items():
        setattr(ans, attr, future.result())
    ans.isolation = _all_or_none(iso)
    ans.secure = _all_or_none(secure)
    traced = {name: f.result() for name, f in traces.items()}
    ans.traces = None if any(frame is None for frame in traced.values()) else traced
    decided = _all_or_none([future for _, future in policy])
    ans.policy = None if decided is None else list(zip([query for query, _ in policy], decided, strict=True))
    return ans


def _all_or_none(futures: list[Future[pd.DataFrame | None]]) -> list[pd.DataFrame] | None:
    """Every answer, or None when any question did not answer (its check is then SKIPPED)."""
    frames = [f.result() for f in futures]
    return None if any(f is None for f in frames) else [f for f in frames if f is not None]
