"""Endpoints where the intent puts them, read live: each host's address, prefix and default
gateway on the host itself, its MAC learned on the switch port the intent attaches it to, and its
address resolved to that MAC by its gateway. In the lab the switch's bridge forwarding table and
the gateway's neighbour table are read in their namespaces; on a floor through NAPALM
(``get_mac_address_table``, ``get_arp_table``). A host re-patched into another port or VLAN, or
re-addressed, is named with what was seen."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from ipaddress import ip_address
from typing import Any

from boothnet.booth.cables import same_port
from boothnet.family import Family
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.lab import HOST_IFNAME, port_map
from boothnet.platforms.frr_linux import svi_name
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access, FloorDevices
from boothnet.validate.addresses import find_duplicates
from boothnet.validate.perf.probes import ping
from boothnet.validate.perf.runner import json_list
from boothnet.validate.results import EndpointRow

WORKERS = 8


def ipv6_problems(net: Network, endpoint: Endpoint, links: list[dict[str, Any]], access: Access) -> list[str]:
    """A dual-stack VLAN's host: its global IPv6 address (static, or the one SLAAC forms from its
    MAC and the gateway's advertised prefix) and an IPv6 default router (from the advertisements,
    for static hosts too). ``links``: the host's `ip -j addr show`."""
    vlan = net.vlan_by_name()[endpoint.vlan]
    if vlan.ipv6 is None:
        return []
    prefix = vlan.ipv6.prefix
    have = [f"{a['local']}/{a['prefixlen']}" for link in links for a in link.get("addr_info", [])
            if a.get("family") == "inet6" and a.get("scope") == "global" and not a.get("tentative")
            and not a.get("dadfailed")]
    want = net.endpoint_address(endpoint, Family.V6)
    how = "SLAAC from its gateway's router advertisements" if vlan.ipv6.hosts == "slaac" else "static"
    problems = []
    if want is not None and f"{want}/{prefix.prefixlen}" not in have:
        problems.append(f"has {', '.join(have) or 'no global IPv6 address'}; the intent says {want}/{prefix.prefixlen} "
                        f"({how})")
    elif want is None and not any(ip_address(a.split("/")[0]) in prefix for a in have):
        problems.append(f"has no IPv6 address in {prefix} ({how})")
    routes = json_list(access.runner, access.node(endpoint.name), ["ip", "-6", "-j", "route", "show", "default"])
    if not routes:
        problems.append(f"no IPv6 default router: no router advertisement from {vlan.gateway} reached it")
    return problems


def endpoint_rows(net: Network, endpoint: Endpoint, problems: list[str], errors: list[str], placed: bool,
                  problems6: Sequence[str] = (), errors6: Sequence[str] = ()) -> list[EndpointRow]:
    """Its IPv4 row (address, gateway, port: ``problems``, ``errors``), and in a dual-stack VLAN
    its IPv6 row (address, default router, the gateway's neighbour entry: ``problems6``,
    ``errors6``), NOT RUN where the IPv4 row found it off its port (``placed`` False)."""
    vlan = net.vlan_by_name()[endpoint.vlan]
    device = endpoint.attach.partition(":")[0]

    def row(family: int, address: str, problems: Sequence[str], errors: Sequence[str]) -> EndpointRow:
        verdict = Status.FAIL if problems else Status.ERROR if errors else Status.PASS
        return EndpointRow(host=endpoint.name, vlan=vlan.name, address=address, attach=endpoint.attach,
                           verdict=verdict, cause="; ".join([*problems, *errors]) or None, device=device,
                           finding="placement" if problems or errors else None, family=family)

    rows = [row(4, f"{endpoint.address}/{vlan.subnet.prefixlen}", problems, errors)]
    if vlan.ipv6 is not None:
        address6 = net.endpoint_address(endpoint, Family.V6)
        shown = f"{address6}/{vlan.ipv6.prefix.prefixlen}" if address6 else str(vlan.ipv6.prefix)
        six = row(6, shown, problems6, errors6)
        if six.verdict == Status.PASS and not placed:
            six = six.model_copy(update={"verdict": Status.NOT_RUN,
                                         "cause": "its gateway's neighbour entry is not judged: the host is off its "
                                                  "port (its IPv4 row)"})
        rows.append(six)
    return rows


def _vlan_of(net: Network, bridge: str) -> str:
    return next((v.name for v in net.vlans if svi_name(v.id) == bridge), bridge)


def check_endpoint(net: Network, access: Access, endpoint: Endpoint,
                   ports: dict[str, dict[str, str]]) -> list[EndpointRow]:
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

    links = json_list(runner, ns, ["ip", "-j", "addr", "show", "dev", HOST_IFNAME])
    mac = links[0].get("address") if links else None
    have = [f"{a['local']}/{a['prefixlen']}" for link in links for a in link.get("addr_info", [])
            if a.get("family") == "inet"]
    if want not in have:
        problems.append(f"has {', '.join(have) or 'no IPv4 address'} on {HOST_IFNAME}; the intent says {want}")
    problems6 = ipv6_problems(net, endpoint, links, access)
    routes = json_list(runner, ns, ["ip", "-j", "route", "show", "default"])
    gateways = [r.get("gateway") for r in routes]
    if gateway not in gateways:
        problems.append(f"default gateway {', '.join(map(str, gateways)) or 'none'}; the intent says {gateway} "
                        f"({vlan.gateway})")
    ping(runner, ns, gateway, count=1, wait_s=1)  # the switch learns the host's MAC
    ping(runner, node(vlan.gateway), str(endpoint.address), count=1, wait_s=1)  # the gateway resolves it

    bridge = svi_name(vlan.id)  # the lab's switches are a bridge per VLAN
    learned = [e for e in json_list(runner, node(device), ["bridge", "-j", "fdb", "show"])
               if mac and e.get("mac") == mac and e.get("state") != "permanent" and "master" in e]
    seen = sorted({(e.get("ifname", "?"), e["master"]) for e in learned})
    placed = (lab_port, bridge) in seen
    if not seen:
        problems.append(f"its MAC {mac} is not learned on {device} (the intent attaches it to {port})")
    elif (lab_port, bridge) not in seen:
        where = ", ".join(f"{device}:{intent_port.get(p, p)} in {_vlan_of(net, master)}" for p, master in seen)
        problems.append(f"its MAC {mac} is learned on {where}; the intent attaches it to {endpoint.attach} "
                        f"in {vlan.name}")

    resolved = [str(n["lladdr"]) for n in json_list(runner, node(vlan.gateway),
                                                ["ip", "-j", "neigh", "show", "to", str(endpoint.address)])
                if n.get("lladdr") and n.get("dev") == bridge]
    if mac and resolved and mac not in resolved:
        problems.append(f"{vlan.gateway} resolves {endpoint.address} to {', '.join(resolved)}, not to its MAC {mac}")
    elif not resolved and not problems:
        problems.append(f"{vlan.gateway} does not resolve {endpoint.address} (no ARP entry after a ping)")
    if (address6 := net.endpoint_address(endpoint, Family.V6)) is not None and placed and not problems6:
        # IPv6 places it by neighbour discovery as IPv4 does by ARP
        ping(runner, node(vlan.gateway), str(address6), count=1, wait_s=1)
        found6 = [str(n["lladdr"]) for n in json_list(runner, node(vlan.gateway),
                                                      ["ip", "-6", "-j", "neigh", "show", "to", str(address6)])
                  if n.get("lladdr") and n.get("dev") == bridge]
        if mac not in found6:
            problems6.append(f"{vlan.gateway} resolves {address6} to {', '.join(found6) or 'nothing'} (neighbour "
                             f"discovery), not to its MAC {mac}")
    return endpoint_rows(net, endpoint, problems, [], placed, problems6)


def _own_address(links: list[dict[str, Any]], routes: list[dict[str, Any]], want: str) -> tuple[str | None, list[str]]:
    """(the MAC of the host's booth interface, problems). On a floor the NIC may have any name:
    it is the one that holds the intended address, else the one its default route leaves by."""
    inet = {link.get("ifname", "?"): [f"{a['local']}/{a['prefixlen']}" for a in link.get("addr_info", [])
                                      if a.get("family") == "inet" and a.get("scope") != "host"] for link in links}
    holder = next((link for link in links if want in inet.get(link.get("ifname", "?"), [])), None)
    if holder is not None:
        return holder.get("address"), []
    default_dev = next((r.get("dev") for r in routes if r.get("dev")), None)
    holder = next((link for link in links if link.get("ifname") == default_dev), None)
    shown = [holder] if holder is not None else links
    have = [f"{address} on {link.get('ifname')}" for link in shown for address in inet.get(link.get("ifname", "?"), [])]
    return (holder or {}).get("address"), [f"has {', '.join(have) or 'no IPv4 address'}; the intent says {want}"]


@dataclass
class _HostSide:
    """What a floor endpoint says of itself: its booth interface's MAC, what is wrong, or why it
    could not be asked."""

    mac: str | None = None
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    problems6: list[str] = field(default_factory=list)  # its IPv6 address and default router


def _host_side(net: Network, access: Access, endpoint: Endpoint) -> _HostSide:
    vlan = net.vlan_by_name()[endpoint.vlan]
    gateway = str(net.gateway_address(vlan))
    host = access.node(endpoint.name)
    reached = access.runner(host, ["true"], 20)
    if not reached.ok:
        return _HostSide(error=f"{endpoint.name} could not be asked: {reached.output.strip() or 'no answer'}")
    routes = json_list(access.runner, host, ["ip", "-j", "route", "show", "default"])
    links = json_list(access.runner, host, ["ip", "-j", "addr", "show"])
    mac, problems = _own_address(links, routes, f"{endpoint.address}/{vlan.subnet.prefixlen}")
    gateways = [r.get("gateway") for r in routes]
    if gateway not in gateways:
        problems.append(f"default gateway {', '.join(map(str, gateways)) or 'none'}; the intent says {gateway} "
                        f"({vlan.gateway})")
    problems6 = ipv6_problems(net, endpoint, links, access)
    ping(access.runner, host, gateway, count=1, wait_s=1)  # the switch learns its MAC, the gateway its ARP entry
    if (gateway6 := net.gateway_address(vlan, Family.V6)) is not None and \
            net.endpoint_address(endpoint, Family.V6) is not None:
        ping(access.runner, host, str(gateway6), count=1, wait_s=1)  # and its IPv6 neighbour entry
    return _HostSide(mac, problems, problems6=problems6)


# NAPALM's base driver raises it for a getter its platform lacks (EOS reads no IPv6 neighbours)
NO_SUCH_GETTER = "NotImplementedError"


def _placed_in_ipv6(net: Network, endpoint: Endpoint, mac: str, gateway: str, table: Any
                    ) -> tuple[list[str], list[str]]:
    """(problems, errors) of the host's IPv6 address in its gateway's neighbour table (NAPALM
    get_ipv6_neighbors_table), as its IPv4 one in the ARP table."""
    address6 = net.endpoint_address(endpoint, Family.V6)
    if address6 is None or table is None or (isinstance(table, str) and NO_SUCH_GETTER in table):
        return [], []
    if isinstance(table, str):
        return [], [f"{gateway}'s IPv6 neighbours could not be read: {table}"]
    found = [str(e["mac"]) for e in table if ip_address(str(e["ip"])) == address6 and e.get("mac", "-") != "-"]
    if {m.lower() for m in found} == {mac.lower()}:  # NAPALM's getters give MACs as Linux writes them
        return [], []
    return [f"{gateway} resolves {address6} to {', '.join(found) or 'nothing'} (neighbour discovery), not to its "
            f"MAC {mac}"], []


def _judge_floor(net: Network, endpoint: Endpoint, side: _HostSide, devices: FloorDevices,
                 macs: dict[str, Any], arps: dict[str, Any], neighbours6: dict[str, Any] | None = None
                 ) -> list[EndpointRow]:
    """One endpoint from its own answers, its switch's MAC table and its gateway's ARP table (and
    IPv6 neighbour table: ``neighbours6``, where the gateway's driver reads one)."""
    vlan = net.vlan_by_name()[endpoint.vlan]
    device, _, port = endpoint.attach.partition(":")
    problems, errors, mac = list(side.problems), [side.error] if side.error else [], side.mac
    table = macs.get(device)
    off_port = False
    if isinstance(table, str):
        errors.append(f"{device}'s MAC table could not be read: {table}")
    elif mac and table is not None:
        learned = [e for e in table if e["mac"].lower() == mac.lower()]
        off_port = not any(same_port(e["interface"], devices.port_of(device, port)) and int(e["vlan"]) == vlan.id
                           for e in learned)
        if not learned:
            problems.append(f"its MAC {mac} is not learned on {device} (the intent attaches it to {port})")
        elif not any(same_port(e["interface"], devices.port_of(device, port)) and int(e["vlan"]) == vlan.id
                     for e in learned):
            where = ", ".join(f"{device}:{devices.intent_port(device, e['interface'])} in VLAN {e['vlan']}"
                              for e in learned)
            problems.append(f"its MAC {mac} is learned on {where}; the intent attaches it to {endpoint.attach} in "
                            f"{vlan.name} (VLAN {vlan.id})")
    arp = arps.get(vlan.gateway)
    if isinstance(arp, str):
        errors.append(f"{vlan.gateway}'s ARP table could not be read: {arp}")
    elif mac and arp is not None:
        resolved = [e["mac"] for e in arp if e["ip"] == str(endpoint.address)]
        if resolved and mac.lower() not in {m.lower() for m in resolved}:
            problems.append(f"{vlan.gateway} resolves {endpoint.address} to {', '.join(resolved)}, not to its "
                            f"MAC {mac}")
        elif not resolved and not problems:
            problems.append(f"{vlan.gateway} does not resolve {endpoint.address} (no ARP entry after a ping)")
    problems6, errors6 = list(side.problems6), list[str]()  # the IPv6 row's
    placed = bool(mac) and not off_port and side.error is None
    if mac and placed and not problems6:
        found6, errors6 = _placed_in_ipv6(net, endpoint, mac, vlan.gateway, (neighbours6 or {}).get(vlan.gateway))
        problems6 += found6
    return endpoint_rows(net, endpoint, problems, errors, placed, problems6, errors6)


def floor_placement(net: Network, access: Access, devices: FloorDevices,
                    endpoints: list[Endpoint]) -> list[EndpointRow]:
    """Every endpoint asked over its connection (it pings its gateway, and a gateway with a shell
    pings it), then each switch's MAC table and each gateway's ARP table read once, through NAPALM."""
    vlans = net.vlan_by_name()

    def ask(endpoint: Endpoint) -> _HostSide:
        side = _host_side(net, access, endpoint)
        gateway = vlans[endpoint.vlan].gateway
        if access.has_shell(gateway):  # it resolves the host now (an IOS or EOS ARP entry lives for hours)
            for address in (endpoint.address, net.endpoint_address(endpoint, Family.V6)):
                if address is not None:
                    ping(access.runner, access.node(gateway), str(address), count=1, wait_s=1)
        return side

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        sides = list(pool.map(ask, endpoints))
    macs = devices.read({e.attach.partition(":")[0] for e in endpoints}, "get_mac_address_table")
    arps = devices.read({vlans[e.vlan].gateway for e in endpoints}, "get_arp_table")
    neighbours6 = devices.read({vlans[e.vlan].gateway for e in endpoints if net.endpoint_address(e, Family.V6)},
                               "get_ipv6_neighbors_table")
    return [row for e, side in zip(endpoints, sides, strict=True)
            for row in _judge_floor(net, e, side, devices, macs, arps, neighbours6)]


def with_duplicate(row: EndpointRow, cause: str | None) -> EndpointRow:
    """An endpoint's row, failed by a second MAC answering for its address."""
    if cause is None:
        return row
    return row.model_copy(update={"verdict": Status.FAIL, "finding": "duplicate",
                                  "cause": "; ".join(c for c in (row.cause, cause) if c)})


def run_placement(net: Network, access: Access, progress: Progress, warnings: list[str] | None = None
                  ) -> list[EndpointRow]:
    """Each endpoint where the intent puts it, and no other MAC answering for its address;
    ``warnings`` gets the addresses no intent host holds on open VLANs."""
    endpoints = sorted(net.endpoints.values(), key=lambda e: e.name)
    ports = port_map(net)
    if access.devices is not None:
        rows = floor_placement(net, access, access.devices, endpoints)
    else:
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            rows = [row for found in pool.map(lambda e: check_endpoint(net, access, e, ports), endpoints)
                    for row in found]
    findings = find_duplicates(net, access, progress)  # the ARP sweep: IPv4's
    rows = [with_duplicate(row, findings.duplicates.get(row.host)) if row.family == 4 else row
            for row in rows] + findings.rows
    if warnings is not None:
        warnings.extend(findings.warnings)
    for row in rows:
        if row.verdict != "PASS":
            progress(f"[endpoints] {row.host}: {row.cause}")
    progress(f"[endpoints] {sum(r.verdict == 'PASS' for r in rows)}/{len(rows)} where the intent puts them")
    return rows
