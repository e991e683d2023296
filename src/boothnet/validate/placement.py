"""Endpoints where the intent puts them, read live: each host's address, prefix and default
gateway on the host itself, its MAC learned on the switch port the intent attaches it to, and its
address resolved to that MAC by its gateway. In the lab the switch's bridge forwarding table and
the gateway's neighbour table are read in their namespaces; on a floor through NAPALM
(``get_mac_address_table``, ``get_arp_table``). A host re-patched into another port or VLAN, or
re-addressed, is named with what was seen."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from boothnet.booth.cables import same_port
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.lab.plan import HOST_IFNAME, port_map
from boothnet.platforms.frr_linux import svi_name
from boothnet.status import Status
from boothnet.validate.access import Access, FloorDevices
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


def check_endpoint(net: Network, access: Access, endpoint: Endpoint, ports: dict[str, dict[str, str]]) -> EndpointRow:
    """``ports``: the lab's port names by device and intent port (lab.plan.port_map)."""
    runner, node = access.runner, access.node
    vlan = net.vlan_by_name()[endpoint.vlan]
    device, _, port = endpoint.attach.partition(":")
    lab_port = ports.get(device, {}).get(port, port)
    intent_port = {lab: name for name, lab in ports.get(device, {}).items()}
    gateway = str(net.gateway_address(vlan))
    want = f"{endpoint.address}/{vlan.subnet.prefixlen}"
    ns = node(endpoint.name)
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
    ping(runner, node(vlan.gateway), str(endpoint.address), count=1, wait_s=1)  # the gateway resolves it

    bridge = svi_name(vlan.id)  # the lab's switches are a bridge per VLAN
    learned = [e for e in _json(runner, node(device), ["bridge", "-j", "fdb", "show"])
               if mac and e.get("mac") == mac and e.get("state") != "permanent" and "master" in e]
    seen = sorted({(e.get("ifname", "?"), e["master"]) for e in learned})
    if not seen:
        problems.append(f"its MAC {mac} is not learned on {device} (the intent attaches it to {port})")
    elif (lab_port, bridge) not in seen:
        where = ", ".join(f"{device}:{intent_port.get(p, p)} in {_vlan_of(net, master)}" for p, master in seen)
        problems.append(f"its MAC {mac} is learned on {where}; the intent attaches it to {endpoint.attach} "
                        f"in {vlan.name}")

    resolved = [n.get("lladdr") for n in _json(runner, node(vlan.gateway),
                                                ["ip", "-j", "neigh", "show", "to", str(endpoint.address)])
                if n.get("lladdr") and n.get("dev") == bridge]
    if mac and resolved and mac not in resolved:
        problems.append(f"{vlan.gateway} resolves {endpoint.address} to {', '.join(resolved)}, not to its MAC {mac}")
    elif not resolved and not problems:
        problems.append(f"{vlan.gateway} does not resolve {endpoint.address} (no ARP entry after a ping)")
    return EndpointRow(host=endpoint.name, vlan=vlan.name, address=want, attach=endpoint.attach,
                       verdict=Status.of(not problems), cause="; ".join(problems) or None, device=device)


def _own_address(runner: Runner, host: str, want: str, where: str) -> tuple[str | None, list[str]]:
    """(the MAC of the host's interface that holds ``want``, problems): on a floor the host's NIC
    may have any name, so the interface is the one with the intended address."""
    links = _json(runner, host, ["ip", "-j", "addr", "show"])
    inet = {link.get("ifname", "?"): [f"{a['local']}/{a['prefixlen']}" for a in link.get("addr_info", [])
                                      if a.get("family") == "inet" and a.get("scope") != "host"] for link in links}
    holder = next((link for link in links if want in inet.get(link.get("ifname", "?"), [])), None)
    if holder is not None:
        return holder.get("address"), []
    have = [f"{address} on {ifname}" for ifname, addresses in inet.items() for address in addresses]
    return None, [f"has {', '.join(have) or 'no IPv4 address'}{where}; the intent says {want}"]


def check_endpoint_floor(net: Network, access: Access, endpoint: Endpoint, devices: FloorDevices) -> EndpointRow:
    """One endpoint on a floor: its own address and gateway over its connection, its MAC in the
    MAC table of the switch the intent attaches it to, its ARP entry on its gateway (NAPALM)."""
    vlan = net.vlan_by_name()[endpoint.vlan]
    device, _, port = endpoint.attach.partition(":")
    gateway = str(net.gateway_address(vlan))
    want = f"{endpoint.address}/{vlan.subnet.prefixlen}"
    host = access.node(endpoint.name)
    reached = access.runner(host, ["true"], 20)
    if not reached.ok:
        return EndpointRow(host=endpoint.name, vlan=vlan.name, address=want, attach=endpoint.attach,
                           verdict=Status.ERROR, device=device,
                           cause=f"{endpoint.name} could not be asked: {reached.output.strip() or 'no answer'}")
    mac, problems = _own_address(access.runner, host, want, "")
    routes = _json(access.runner, host, ["ip", "-j", "route", "show", "default"])
    gateways = [r.get("gateway") for r in routes]
    if gateway not in gateways:
        problems.append(f"default gateway {', '.join(map(str, gateways)) or 'none'}; the intent says {gateway} "
                        f"({vlan.gateway})")
    ping(access.runner, host, gateway, count=1, wait_s=1)  # the switch learns the host's MAC, the gateway its ARP
    errors: list[str] = []
    switch, why = devices.driver(device)
    if switch is None:
        errors.append(f"{device}'s MAC table could not be read: {why}")
    elif mac:
        try:
            learned = [e for e in switch.get_mac_address_table() if e["mac"].lower() == mac.lower()]
        except Exception as exc:  # noqa: BLE001 - every driver has its own errors
            errors.append(f"{device}'s MAC table could not be read: {type(exc).__name__}: {exc}")
        else:
            own_name = devices.port_of(device, port)
            if not learned:
                problems.append(f"its MAC {mac} is not learned on {device} (the intent attaches it to {port})")
            elif not any(same_port(e["interface"], own_name) and int(e["vlan"]) == vlan.id for e in learned):
                where = ", ".join(f"{device}:{devices.intent_port(device, e['interface'])} in VLAN {e['vlan']}"
                                  for e in learned)
                problems.append(f"its MAC {mac} is learned on {where}; the intent attaches it to {endpoint.attach} "
                                f"in {vlan.name} (VLAN {vlan.id})")
    router, why = devices.driver(vlan.gateway)
    if router is None:
        errors.append(f"{vlan.gateway}'s ARP table could not be read: {why}")
    elif mac:
        try:
            resolved = [e["mac"] for e in router.get_arp_table() if e["ip"] == str(endpoint.address)]
        except Exception as exc:  # noqa: BLE001
            errors.append(f"{vlan.gateway}'s ARP table could not be read: {type(exc).__name__}: {exc}")
        else:
            if resolved and mac.lower() not in {m.lower() for m in resolved}:
                problems.append(f"{vlan.gateway} resolves {endpoint.address} to {', '.join(resolved)}, not to its MAC "
                                f"{mac}")
            elif not resolved and not problems:
                problems.append(f"{vlan.gateway} does not resolve {endpoint.address} (no ARP entry after a ping)")
    verdict = Status.FAIL if problems else Status.ERROR if errors else Status.PASS
    return EndpointRow(host=endpoint.name, vlan=vlan.name, address=want, attach=endpoint.attach, verdict=verdict,
                       cause="; ".join(problems + errors) or None, device=device)


def run_placement(net: Network, access: Access, progress: Callable[[str], None]) -> list[EndpointRow]:
    endpoints = sorted(net.endpoints.values(), key=lambda e: e.name)
    ports = port_map(net)
    devices = access.devices

    def check(endpoint: Endpoint) -> EndpointRow:
        if devices is not None:
            return check_endpoint_floor(net, access, endpoint, devices)
        return check_endpoint(net, access, endpoint, ports)

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        rows = list(pool.map(check, endpoints))
    for row in rows:
        if row.verdict != "PASS":
            progress(f"[endpoints] {row.host}: {row.cause}")
    progress(f"[endpoints] {sum(r.verdict == 'PASS' for r in rows)}/{len(rows)} where the intent puts them")
    return rows
