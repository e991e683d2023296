"""A private copy of an intent under another network name and management subnet.

Tests and benchmarks that bring a lab up use one, so that they never clash with the lab
of the same intent (namespaces, FRR pathspaces and the mgmt subnet all derive from the
network name and ``mgmt_subnet``).
"""

from __future__ import annotations

import ipaddress
import shutil
from pathlib import Path
from typing import Any

import yaml


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _dump(path: Path, data: dict[str, Any]) -> None:
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def copy_inventory(src: Path, dst: Path, network: str, mgmt_subnet: str) -> Path:
    """Copy inventory *src* to *dst* with ``network.name`` = *network* and the management
    subnet moved to *mgmt_subnet* (every ``mgmt_address`` keeps its host offset)."""
    src, dst = Path(src), Path(dst)
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    found = [p for p in sorted((dst / "group_vars").rglob("*.yml")) if "network" in _load(p)]
    if len(found) != 1:
        raise ValueError(f"{src}: expected one group_vars file with 'network', found {len(found)}")
    data = _load(found[0])
    old = ipaddress.ip_network(data["network"].get("mgmt_subnet", "198.18.0.0/24"))
    new = ipaddress.ip_network(mgmt_subnet)
    if new.prefixlen != old.prefixlen:
        raise ValueError(f"mgmt_subnet {new} must have the prefix length of {old}")
    data["network"]["name"] = network
    data["network"]["mgmt_subnet"] = str(new)
    _dump(found[0], data)
    for hv in sorted((dst / "host_vars").glob("*.yml")):
        host = _load(hv)
        if "mgmt_address" in host:
            offset = int(ipaddress.ip_address(host["mgmt_address"])) - int(old.network_address)
            host["mgmt_address"] = str(new.network_address + offset)
            _dump(hv, host)
    return dst
