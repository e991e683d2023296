"""Batfish's answer to concrete flows (the live isolation matrix, asked of the configs too).

Each flow enters the network at its source VLAN's gateway interface as the packet that opens the
conversation (intent.OPENING_PACKETS), and Batfish's traceroute says whether it gets through.
Batfish does not route through IPsec tunnels, so a flow through the VPN is asked in two legs:
from its source until it leaves the local VPN gateway's crypto interface, then from the remote
gateway's crypto interface (where it arrives decrypted) to its destination.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.intent import IfaceRef, opening_packet
from boothnet.verify.batfish.questions import WORKERS, opening_headers, reply_headers
from boothnet.verify.batfish.service import ServiceStatus, open_session
from boothnet.verify.batfish.snapshot import Edge, build_snapshot_dir, init_snapshot


@dataclass(frozen=True)
class FlowQuery:
    start: IfaceRef  # where the flow enters the network: the source VLAN's gateway interface
    src_ip: str
    dst_ip: str
    proto: str  # tcp, udp or icmp
    port: int | None = None
    # Through the VPN: the local gateway's crypto interface (leg 1 must leave by it) and the
    # remote gateway's (leg 2 starts there).
    tunnel: tuple[IfaceRef, IfaceRef] | None = None
    # A flow the intent permits: where its replies enter the network (the destination VLAN's
    # gateway interface). It works only when they come back: a stateless ACL must permit them.
    back: IfaceRef | None = None


@dataclass(frozen=True)
class FlowAnswer:
    action: str  # permit or deny
    detail: str  # the trace's disposition and the ACLs on its way
    engine: str = "Batfish"  # who read the configs: Batfish, or the offline evaluator where it models nothing


def load_view(status: ServiceStatus, network: str, configs: Path, edges: Iterable[Edge], out_dir: Path,
              snapshot: str) -> Any:
    """A session with the Batfish view of `configs` loaded as `snapshot`."""
    bf = open_session(status, network)
    init_snapshot(bf, build_snapshot_dir(configs, edges, out_dir), snapshot)
    return bf


def _words(trace: Any) -> str:
    acls = ", ".join(f"{a.lower()} by {n} {f}" for n, f, a in fr.trace_filters(trace))
    return fr.trace_disposition(trace) + (f"; {acls}" if acls else "")


def _both_ways(trace: Callable[..., Any], query: FlowQuery, first: Any) -> FlowAnswer:
    """The request's answer; for a permit asked both ways, a reply that does not come back denies it."""
    if fr.trace_disposition(first) not in fr.SUCCESS:
        return FlowAnswer("deny", _words(first))
    back = trace(query, query.back, reply=True) if query.back is not None else first
    if back is None or fr.trace_disposition(back) not in fr.SUCCESS:
        return FlowAnswer("deny", f"{_words(first)}; its reply: {_words(back) if back is not None else 'no trace'}")
    return FlowAnswer("permit", _words(first))


def ask_flows(bf: Any, snapshot: str, queries: list[FlowQuery]) -> list[FlowAnswer]:
    """Batfish's answer to each query, in order."""

    def trace(query: FlowQuery, start: IfaceRef, reply: bool = False) -> Any:
        port = str(query.port) if query.port is not None and query.proto in ("tcp", "udp") else None
        headers = (reply_headers(query.proto, query.dst_ip, query.src_ip, port) if reply
                   else opening_headers(opening_packet(query.proto), query.src_ip, query.dst_ip, port))
        frame = bf.q.traceroute(startLocation=f"@enter({start.spec()})", headers=headers).answer(
            snapshot=snapshot).frame()
        traces = [t for r in fr.rows(frame) for t in fr.as_list(r.get("Traces"))]
        ok = fr.trace_ok(traces)
        return next((t for t in traces if (fr.trace_disposition(t) in fr.SUCCESS) == ok), None)

    def ask(query: FlowQuery) -> FlowAnswer:
        first = trace(query, query.start)
        if first is None:
            return FlowAnswer("deny", "no trace")
        if query.tunnel is None:
            return _both_ways(trace, query, first)
        local, remote = query.tunnel
        entered = (local.node, local.interface, "out") in fr.trace_interfaces(first)
        if not entered:
            return FlowAnswer("deny", f"never reaches the VPN at {local}: {_words(first)}")
        second = trace(query, remote)
        if second is None:
            return FlowAnswer("deny", f"into the VPN at {local}; from {remote}: no trace")
        ok = fr.trace_disposition(second) in fr.SUCCESS
        return FlowAnswer("permit" if ok else "deny",
                          f"into the VPN at {local} ({_words(first)}); from {remote}: {_words(second)}")

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(ask, queries))
