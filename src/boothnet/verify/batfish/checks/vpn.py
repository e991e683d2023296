"""The VPN: IPsec sessions established."""

from __future__ import annotations

from typing import Any

import pandas as pd

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.intent import VerifyIntent
from boothnet.verify.batfish.report import Finding

ESTABLISHED = "IPSEC_SESSION_ESTABLISHED"


def check_ipsec(frame: pd.DataFrame, intent: VerifyIntent) -> list[Finding]:
    """Each intent gateway pair has an IPsec session, established, in both directions."""
    status: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for r in fr.rows(frame):
        status[(str(r["Node"]), str(r["Remote_Node"]))] = (str(r["Status"]), r)
    found: list[Finding] = []
    for a, b in intent.vpn_gateways:
        for x, y in ((a, b), (b, a)):
            got = status.get((x, y))
            if got is None:
                found.append(Finding(
                    "ipsec", x, f"no IPsec session from {x} to {y} in the model: the VPN "
                    "peers do not match (peer address, keys or crypto map)", location=f"to {y}"))
            elif got[0] != ESTABLISHED:
                r = got[1]
                where = fr.iface(r.get("Node_Interface"))
                found.append(Finding(
                    "ipsec", x, f"IPsec session {x} -> {y} is {got[0]}, not established",
                    location=where.interface if where else None, row=r))
    return found

