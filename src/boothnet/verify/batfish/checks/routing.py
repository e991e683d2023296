"""Routing: OSPF neighbours compatible; every declared path routed there and back."""

from __future__ import annotations

import pandas as pd

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.intent import VerifyIntent
from boothnet.verify.batfish.report import Finding

OSPF_ESTABLISHED = "ESTABLISHED"


def check_ospf(frame: pd.DataFrame) -> list[Finding]:
    """Every OSPF session Batfish finds between neighbours is ESTABLISHED; one finding per pair
    (timers, area, network type or MTU that differ, as Batfish's Session_Status names it)."""
    found: list[Finding] = []
    seen: set[frozenset[str]] = set()
    for r in fr.rows(frame):
        state = str(r.get("Session_Status"))
        local, remote = fr.iface(r.get("Interface")), fr.iface(r.get("Remote_Interface"))
        if state == OSPF_ESTABLISHED or local is None or remote is None:
            continue
        pair = frozenset((local.spec(), remote.spec()))
        if pair in seen:
            continue
        seen.add(pair)
        found.append(Finding(
            "ospf", local.node, f"OSPF between {local} and {remote} cannot form: {state} "
            "(hello/dead timers, area, network type and MTU must match on both ends)",
            location=local.interface, row=r))
    return found



# what a trace that finds no way ends in; a filter's deny is the policy checks' to judge
NO_WAY = {"NO_ROUTE", "NULL_ROUTED", "NEIGHBOR_UNREACHABLE", "LOOP", "INSUFFICIENT_INFO"}


def check_routes(traces: dict[str, pd.DataFrame], intent: VerifyIntent) -> list[Finding]:
    """Each declared path, traced from its source's gateway both ways, reaches the other end."""
    found: list[Finding] = []
    for pf in intent.routes:
        frame = traces.get(pf.name)
        if frame is None or frame.empty:
            found.append(Finding("routes", pf.src_node, f"path '{pf.name}' was not traced", location=pf.name))
            continue
        for r in fr.rows(frame):
            for trace in fr.as_list(r.get("Traces")):
                disposition = fr.trace_disposition(trace)
                if disposition in NO_WAY:
                    node = fr.trace_last_node(trace) or pf.src_node
                    found.append(Finding("routes", node, f"path '{pf.name}' ({pf.src_ip} -> {pf.dst_ip}) ends "
                                         f"{disposition} at {node}: no route on", location=pf.name, row=r))
    return found
