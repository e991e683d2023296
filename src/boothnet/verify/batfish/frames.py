"""Small readers for the cell types in Batfish answer frames, and for config text.

Cells are pybatfish objects (Interface, Flow, Trace, FileLines, ListWrapper) in live
answers and in `TableAnswer(json).frame()` alike; the readers also accept plain
strings/dicts so that hand-edited frames in tests work.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pandas as pd

from boothnet.verify.batfish.intent import IfaceRef, is_opening

WELL_KNOWN = {22: "ssh", 23: "telnet", 53: "dns", 80: "http", 443: "https", 500: "ike"}
SUCCESS = {"ACCEPTED", "DELIVERED_TO_SUBNET", "EXITS_NETWORK"}


def rows(frame: pd.DataFrame | None) -> Iterator[dict[str, Any]]:
    """Rows as plain dicts (column -> cell); an absent frame has no rows."""
    if frame is None:
        return iter(())
    return (dict(zip(frame.columns, r, strict=True)) for r in frame.itertuples(index=False))


def iface(cell: Any) -> IfaceRef | None:
    """An Interface cell, or a `node[iface]` string, as IfaceRef."""
    if cell is None:
        return None
    if hasattr(cell, "hostname") and hasattr(cell, "interface"):
        return IfaceRef(str(cell.hostname), str(cell.interface))
    m = re.fullmatch(r"\s*([^\[\]]+)\[(.+)\]\s*", str(cell))
    return IfaceRef(m.group(1), m.group(2)) if m else None


def as_list(cell: Any) -> list[Any]:
    if cell is None:
        return []
    if isinstance(cell, str):
        return [cell]
    try:
        return list(cell)
    except TypeError:
        return [cell]


def file_node(filename: str, file_nodes: dict[str, str] | None = None) -> str:
    """The node a config file belongs to: from fileParseStatus when known, else its stem."""
    if file_nodes and filename in file_nodes:
        return file_nodes[filename]
    base = filename.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0]


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def flow_fields(flow: Any) -> dict[str, Any]:
    keys = ("srcIp", "dstIp", "ipProtocol", "srcPort", "dstPort", "ingressNode",
            "ingressInterface", "icmpVar", "icmpCode", "tcpFlagsSyn", "tcpFlagsAck", "tcpFlagsRst")
    return {k: _get(flow, k) for k in keys}


def flow_text(flow: Any) -> str:
    """A flow in words: `TCP 10.110.1.2 -> 10.10.10.5 port 22 (ssh), entering core1 at Vlan110`."""
    if flow is None:
        return ""
    f = flow_fields(flow)
    proto = str(f["ipProtocol"] or "IP").upper()
    text = f"{proto} {f['srcIp']} -> {f['dstIp']}"
    if proto in ("TCP", "UDP") and f["dstPort"] is not None:
        port = int(f["dstPort"])
        name = WELL_KNOWN.get(port)
        text += f" port {port}" + (f" ({name})" if name else "")
    elif proto == "ICMP" and f["icmpVar"] is not None:
        text += f" type {f['icmpVar']}"
    if f["ingressNode"]:
        text += f", entering {f['ingressNode']}"
        if f["ingressInterface"]:
            text += f" at {f['ingressInterface']}"
    return text


def flow_opens(flow: Any) -> bool:
    """True when the flow starts a conversation (intent.OPENING_PACKETS), not return traffic."""
    f = flow_fields(flow)
    return is_opening(f["ipProtocol"], f["tcpFlagsSyn"], f["tcpFlagsAck"], f["tcpFlagsRst"],
                      None if f["icmpVar"] is None else int(f["icmpVar"]))


def flow_port(flow: Any) -> int | None:
    p = _get(flow, "dstPort")
    return int(p) if p is not None else None


def flow_proto(flow: Any) -> str | None:
    p = _get(flow, "ipProtocol")
    return str(p).lower() if p is not None else None


# --- traces -------------------------------------------------------------------------------


def trace_disposition(trace: Any) -> str:
    return str(_get(trace, "disposition") or "")


def trace_ok(traces: Any) -> bool:
    """True when any trace of a flow ends in a success disposition."""
    return any(trace_disposition(t) in SUCCESS for t in as_list(traces))


def _trace_steps(trace: Any) -> Iterator[tuple[str, Any]]:
    """(node, step) for every step of every hop, in path order."""
    for hop in as_list(_get(trace, "hops")):
        node = str(_get(hop, "node"))
        for step in as_list(_get(hop, "steps")):
            yield node, step


def trace_interfaces(trace: Any) -> list[tuple[str, str, str]]:
    """(node, interface, "in"|"out") in path order, from RECEIVED/TRANSMITTED steps."""
    out: list[tuple[str, str, str]] = []
    for node, step in _trace_steps(trace):
        detail = _get(step, "detail")
        action = str(_get(step, "action"))
        if action == "RECEIVED" and _get(detail, "inputInterface"):
            out.append((node, str(_get(detail, "inputInterface")), "in"))
        elif action == "TRANSMITTED" and _get(detail, "outputInterface"):
            out.append((node, str(_get(detail, "outputInterface")), "out"))
    return out


def trace_filters(trace: Any) -> list[tuple[str, str, str]]:
    """(node, filter, PERMITTED|DENIED) for each ACL a trace passed through."""
    return [
        (node, str(_get(_get(step, "detail"), "filter")), str(_get(step, "action")))
        for node, step in _trace_steps(trace)
        if _get(_get(step, "detail"), "filter")
    ]


def trace_last_node(trace: Any) -> str | None:
    hops = as_list(_get(trace, "hops"))
    return str(_get(hops[-1], "node")) if hops else None


# --- config text ------------------------------------------------------------------------------

_IFACE_RE = re.compile(r"^interface\s+(\S+)", re.IGNORECASE)


def interface_stanzas(text: str) -> dict[str, list[str]]:
    """Interface name -> its indented body lines (IOS/EOS style configs)."""
    out: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        m = _IFACE_RE.match(line)
        if m:
            current = m.group(1)
            out[current] = []
        elif current and line[:1].isspace():
            out[current].append(line.strip())
        elif line.strip():
            current = None
    return out


def enclosing_stanza(text: str, line_no: int) -> str | None:
    """The top-level stanza header (e.g. `interface Vlan999`) holding 1-based `line_no`."""
    lines = text.splitlines()
    for i in range(min(line_no, len(lines)) - 1, -1, -1):
        line = lines[i]
        if line and not line[:1].isspace() and not line.startswith("!"):
            return line.strip()
    return None


def ip_mtu(body: list[str]) -> int | None:
    """`ip mtu N` (IOS L3 MTU, which Batfish does not report separately)."""
    for line in body:
        m = re.fullmatch(r"ip mtu (\d+)", line)
        if m:
            return int(m.group(1))
    return None


# IOS `ip tcp adjust-mss`, EOS `tcp mss ceiling`, nftables `tcp option maxseg size set`.
_MSS_RE = re.compile(r"ip tcp adjust-mss|tcp mss ceiling|maxseg size set", re.IGNORECASE)


def has_mss_clamp(body: list[str]) -> bool:
    return any(_MSS_RE.search(line) for line in body)


def config_has_mss_clamp(text: str) -> bool:
    return bool(_MSS_RE.search(text))
