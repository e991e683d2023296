"""Routing: OSPF neighbours compatible."""

from __future__ import annotations

import pandas as pd

from boothnet.verify.batfish import frames as fr
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

