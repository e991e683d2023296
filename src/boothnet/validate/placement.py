"""Endpoints where the intent puts them, read live: each host's address, prefix and default
gateway in its own namespace, its MAC learned on the switch port the intent attaches it to (the
bridge's forwarding table on that device), and its address resolved to that MAC by its gateway.
A host re-patched into another port or VLAN, or re-addressed, is named with what was seen."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.lab.names import ns_name
from boothnet.lab.plan import HOST_IFNAME, port_map
from boothnet.platforms.frr_linux import svi_name
from boothnet.status import Status
from boothnet.validate.perf.probes import ping
from boothnet.validate.perf.runner import Runner
from boothnet.validate.results import EndpointRow

WORKERS = 8


def _vlan_of(net: Network, bridge: str) -> str:
    return next((v.name for v in net.vlans if svi_name(v.id) == bridge), bridge)


def _json(runner: Runner, ns: str, argv: list[str]) -> list[dict[str, Any]]:
    result = runner(ns, argv, 10)
    try:
        data = json.loads(result.stdout or "[]")
    except ValueError:
        return []
    return data if isinstance(data, list) else []


def check_endpoint(net: Network, runner: Runner, endpoint: Endpoint, ports: dict[str, dict[str, str]]) -> EndpointRow:
    """``ports``: the lab's port names by device and intent port (lab.plan.port_map)."""
    vlan = net.vlan_by_name()[endpoint.vlan]
    device, _, port = endpoint.attach.partition(":")
    lab_port = ports.get(device, {}).get(port, port)
    intent_port = {lab: name for name, lab in ports.get(device, {}).items()}
    gateway = str(net.gateway_address(vlan))
    want = f"{endpoint.address}/{vlan.subnet.prefixlen}"
    ns = ns_name(net.name, endpoint.name)
    problems: list[str] = []

    links = _json(runner, ns, ["ip", "-j", "addr", "show", "dev", HOST_IFNAME])
    mac = links[0].get("address") if links else None
    have = [f"{a['local']}/{a['prefixlen']}" for link in links for a in link.get("addr_info", [])
            if a.get("family") == "inet"]
    if want not in have:
        problems.append(f"has {', '.join(have) or 'no IPv4 address'} on {HOST_IFNAME}; the intent says {want}")
    routes = _json(runner, ns, ["ip", "-j", "route", "show", "default"])
    gateways = [r.get("gateway") for r in routes]
    if gateway not in gateways:
        problems.append(f"default gateway {', '.join(map(str, gateways)) or 'none'}; the intent says {gateway} "
                        f"({vlan.gateway})")
    ping(runner, ns, gateway, count=1, wait_s=1)  # the switch learns the host's MAC
    ping(runner, ns_name(net.name, vlan.gateway), str(endpoint.address), count=1, wait_s=1)  # the gateway resolves it

    bridge = svi_name(vlan.id)  # the lab's switches are a bridge per VLAN
    learned = [e for e in _json(runner, ns_name(net.name, device), ["bridge", "-j", "fdb", "show"])
               if mac and e.get("mac") == mac and e.get("state") != "permanent" and "master" in e]
    seen = sorted({(e.get("ifname", "?"), e["master"]) for e in learned})
    if not seen:
        problems.append(f"its MAC {mac} is not learned on {device} (the intent attaches it to {port})")
    elif (lab_port, bridge) not in seen:
        where = ", ".join(f"{device}:{intent_port.get(p, p)} in {_vlan_of(net, master)}" for p, master in seen)
        problems.append(f"its MAC {mac} is learned on {where}; the intent attaches it to {endpoint.attach} "
                        f"in {vlan.name}")

    resolved = [n.get("lladdr") for n in _json(runner, ns_name(net.name, vlan.gateway),
                                                ["ip", "-j", "neigh", "show", "to", str(endpoint.address)])
                if n.get("lladdr") and n.get("dev") == bridge]
    if mac and resolved and mac not in resolved:
        problems.append(f"{vlan.gateway} resolves {endpoint.address} to {', '.join(resolved)}, not to its MAC {mac}")
    elif not resolved and not problems:
        problems.append(f"{vlan.gateway} does not resolve {endpoint.address} (no ARP entry after a ping)")
    return EndpointRow(host=endpoint.name, vlan=vlan.name, address=want, attach=endpoint.attach,
                       verdict=Status.of(not problems), cause="; ".join(problems) or None, device=device)


def run_placement(net: Network, runner: Runner, progress: Callable[[str], None]) -> list[EndpointRow]:
    endpoints = sorted(net.endpoints.values(), key=lambda e: e.name)
    ports = port_map(net)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        rows = list(pool.map(lambda e: check_endpoint(net, runner, e, ports), endpoints))
    for row in rows:
        if row.verdict != "PASS":
            progress(f"[endpoints] {row.host}: {row.cause}")
    progress(f"[endpoints] {sum(r.verdict == 'PASS' for r in rows)}/{len(rows)} where the intent puts them")
    return rows
