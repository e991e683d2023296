"""Interface counters and link state as NAPALM's ``get_interfaces_counters`` names them, from the
kernel (``ip -j -s link``: a lab node, a floor host, the frr_linux driver) or from NAPALM."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class PortCounters:
    """One interface's counters as NAPALM ``get_interfaces_counters`` names them, and its link state."""

    rx_octets: int
    tx_octets: int
    rx_errors: int
    tx_errors: int
    rx_discards: int
    tx_discards: int
    up: bool | None  # None: not read (a getter without link state)


def kernel_counters(ip_json: str) -> dict[str, PortCounters]:
    """``ip -j -s link show`` per interface (a veth's carrier follows its peer: unplugged is down)."""
    out = {}
    for i in json.loads(ip_json or "[]"):
        if "stats64" not in i:
            continue
        rx, tx = i["stats64"]["rx"], i["stats64"]["tx"]
        out[i["ifname"]] = PortCounters(int(rx["bytes"]), int(tx["bytes"]), int(rx["errors"]), int(tx["errors"]),
                                        int(rx["dropped"]), int(tx["dropped"]), "LOWER_UP" in i.get("flags", []))
    return out


def napalm_counters(counters: dict[str, dict], interfaces: dict[str, dict] | str) -> dict[str, PortCounters]:
    """NAPALM ``get_interfaces_counters``, with ``get_interfaces``' is_up when it could be read."""
    return {name: PortCounters(int(c["rx_octets"]), int(c["tx_octets"]), int(c["rx_errors"]), int(c["tx_errors"]),
                               int(c["rx_discards"]), int(c["tx_discards"]),
                               None if isinstance(interfaces, str) or name not in interfaces
                               else bool(interfaces[name]["is_up"]))
            for name, c in counters.items()}
