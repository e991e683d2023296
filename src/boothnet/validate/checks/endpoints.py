"""Endpoints: each host where the intent puts it (address, gateway, switch port), no other MAC
answering for its address, and no unlisted address answering in a secured VLAN; in a dual-stack
VLAN a second row, its IPv6 address, default router and gateway's neighbour entry.

Endpoints where the intent puts them, read live: each host's address, prefix and default
gateway on the host itself, its MAC learned on the switch port the intent attaches it to, and its
address resolved to that MAC by its gateway. In the lab the switch's bridge forwarding table and
the gateway's neighbour table are read in their namespaces; on a floor through NAPALM
(``get_mac_address_table``, ``get_arp_table``). A host re-patched into another port or VLAN, or
re-addressed, is named with what was seen.

Who answers for each address: every VLAN with a host on it swept by ARP (arp-scan from one of
its hosts, sender 0.0.0.0 as an RFC 5227 probe, so that every holder of an address answers, the
prober's own included), its gateway's ARP view added, and each MAC answering placed on the switch
port it is learned on (the lab's bridges; a floor's MAC tables through NAPALM). An address the
intent gives one host, answered by two MACs, is a FAIL naming both ports: every ACL that admits a
listed host matches its source address only. An address the intent does not list is a FAIL in a
secured VLAN (``Network.secured_vlans``), else a warning."""

from __future__ import annotations

import ipaddress
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from ipaddress import ip_address
from typing import Any

from boothnet.booth.cables import same_port
from boothnet.family import Family
from boothnet.intent.model import Endpoint, Network, Vlan
from boothnet.lab import HOST_IFNAME, port_map
from boothnet.platforms.frr_linux import svi_name
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access, FloorDevices
from boothnet.validate.checks.base import Context, LiveCheck, Suspect
from boothnet.validate.perf.probes import ping
from boothnet.validate.perf.runner import json_list
from boothnet.validate.results import EndpointRow

_IN_IPV6 = " (IPv6)"  # a dual-stack host's second row, as the other sections name theirs


class Endpoints(LiveCheck):
    name = section = field = "endpoints"
    row_type = EndpointRow
    order = 40
    title = "Endpoints"
    header = ("verdict", "host", "VLAN", "address", "port", "seen instead")
    empty = "no endpoints"
    alarm = "cause"
    alarm_rank = 70

    def measure(self, ctx: Context) -> list[EndpointRow]:
        return run_placement(ctx.net, ctx.access, ctx.progress, ctx.results.warnings)

    def subject(self, row: EndpointRow) -> str:
        return f"endpoint {row.host}{_IN_IPV6 if row.family == 6 else ''} ({row.vlan}, {row.attach})"

    def message(self, row: EndpointRow) -> str:
        return row.cause or "not where the intent puts it"

    def action(self, row: EndpointRow) -> str:
        return f"plug {row.host} into {row.attach.replace(':', ' ')} and give it {row.address} (VLAN {row.vlan})"

    def key(self, row: EndpointRow) -> str:
        return f"endpoint {row.host}{_IN_IPV6 if row.family == 6 else ''}"

    def cells(self, row: EndpointRow) -> list[str]:
        return [row.verdict, row.host, row.vlan, row.address, row.attach, row.cause or ""]

    def suspect(self, row: EndpointRow) -> Suspect | None:
        return Suspect(f"endpoint {row.host}: {row.cause}", host=row.host) if row.verdict == "FAIL" else None


CHECK = Endpoints()


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


WIDEST_SWEEP = 1024  # a wider subnet is probed at the intent's own addresses only
_MAC = re.compile(r"^([0-9a-f]{2}:){5}[0-9a-f]{2}$")
_SUBPORT = re.compile(r"^(?P<port>.+)v\d+$")  # a lab trunk's per-VLAN port in segment mode: eth53v110


def parse_arp_scan(text: str) -> dict[str, set[str]]:
    """arp-scan's ``--quiet --plain`` lines (address, tab, MAC; a duplicate answer is a line of its
    own) -> address -> the MACs that answered for it."""
    answers: dict[str, set[str]] = defaultdict(set)
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) < 2 or not _MAC.match(mac := fields[1].strip().lower()):
            continue
        try:
            address = str(ipaddress.IPv4Address(fields[0].strip()))
        except ValueError:
            continue
        answers[address].add(mac)
    return dict(answers)


def sweep_argv(interface: str, vlan: Vlan, addresses: Iterable[str]) -> list[str]:
    targets = [str(vlan.subnet)] if vlan.subnet.num_addresses <= WIDEST_SWEEP else sorted(addresses)
    return ["arp-scan", f"--interface={interface}", "--arpspa=0.0.0.0", "--quiet", "--plain", *targets]


@dataclass
class VlanAnswers:
    """What answered in one VLAN: address -> MACs, from whom it was asked, or why it could not be."""

    vlan: Vlan
    answers: dict[str, set[str]] = field(default_factory=dict)
    prober: str | None = None
    error: str | None = None


def intent_addresses(net: Network, vlan: Vlan) -> dict[str, str]:
    """Every address the intent gives out in ``vlan`` -> who holds it (a host, a gateway, a router)."""
    held = {str(net.gateway_address(vlan)): vlan.gateway}
    held |= {str(address): device for device, address in vlan.routers.items()}
    held |= {str(e.address): e.name for e in net.endpoints.values() if e.vlan == vlan.name}
    return held


def sweep_vlan(net: Network, access: Access, vlan: Vlan) -> VlanAnswers:
    """arp-scan from a host on ``vlan`` that can run it, out of the interface its gateway is
    reached by: the first by name, else the next (a host off its VLAN is placement's finding)."""
    hosts = sorted(e.name for e in net.endpoints.values() if e.vlan == vlan.name)
    why = {h: access.why_not(h, "arp-scan", "ip") for h in hosts}
    tried = VlanAnswers(vlan, error="no host on it can sweep it: " + "; ".join(w for w in why.values() if w))
    for prober in (h for h in hosts if not why[h]):
        tried = _sweep_from(net, access, vlan, prober)
        if tried.error is None:
            break
    return tried


def _sweep_from(net: Network, access: Access, vlan: Vlan, prober: str) -> VlanAnswers:
    node = access.node(prober)
    gateway = str(net.gateway_address(vlan))
    route = json_list(access.runner, node, ["ip", "-j", "route", "get", gateway], 15)
    interface = route[0].get("dev") if route else None
    if not interface:
        return VlanAnswers(vlan, prober=prober, error=f"{prober} has no route to its gateway {gateway}")
    result = access.runner(node, sweep_argv(interface, vlan, intent_addresses(net, vlan)), 60)
    if not result.ok:
        last = (result.output.strip().splitlines() or [f"exit {result.returncode}"])[-1]
        return VlanAnswers(vlan, prober=prober, error=f"arp-scan on {prober} failed: {last}")
    answers = parse_arp_scan(result.stdout)
    # the prober hears no answer of its own: what it holds in the VLAN, from its own MAC
    for link in json_list(access.runner, node, ["ip", "-j", "addr", "show", "dev", interface], 15):
        for held in link.get("addr_info", []):
            if held.get("family") == "inet" and ipaddress.ip_address(held["local"]) in vlan.subnet:
                answers.setdefault(held["local"], set()).add(str(link.get("address", "")).lower())
    return VlanAnswers(vlan, answers, prober=prober)


def _lab_gateway_view(net: Network, access: Access, vlan: Vlan) -> dict[str, set[str]]:
    entries = json_list(access.runner, access.node(vlan.gateway),
                        ["ip", "-j", "neigh", "show", "dev", svi_name(vlan.id)], 15)
    return _resolved((e.get("dst", ""), e.get("lladdr", "")) for e in entries)


def _resolved(pairs: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for address, mac in pairs:
        if mac and _MAC.match(mac.lower()):
            out[address].add(mac.lower())
    return dict(out)


def _lab_learned(net: Network, access: Access, vlans: list[Vlan]) -> dict[tuple[str, str], list[str]]:
    """(VLAN name, MAC) -> "device:port" (the intent's port names) where the lab's bridges learned it."""
    lab_to_intent = {device: {lab: port for port, lab in ports.items()} for device, ports in port_map(net).items()}
    learned: dict[tuple[str, str], list[str]] = defaultdict(list)
    for vlan in vlans:
        for device in _switches(net, vlan):
            fdb = ["bridge", "-j", "fdb", "show", "br", svi_name(vlan.id)]
            for e in json_list(access.runner, access.node(device), fdb, 15):
                mac, ifname = str(e.get("mac", "")).lower(), str(e.get("ifname", ""))
                if e.get("state") == "permanent" or "master" not in e or not mac:
                    continue
                names = lab_to_intent.get(device, {})
                base = m.group("port") if (m := _SUBPORT.match(ifname)) and m.group("port") in names else ifname
                learned[(vlan.name, mac)].append(f"{device}:{names.get(base, base)}")
    return learned


def _switches(net: Network, vlan: Vlan) -> list[str]:
    """The devices whose MAC tables hold the VLAN's hosts: its gateway and its hosts' switches."""
    return sorted({vlan.gateway} | {e.attach.partition(":")[0] for e in net.endpoints.values() if e.vlan == vlan.name})


def _floor_learned(net: Network, access: Access, vlans: list[Vlan]) -> tuple[dict[tuple[str, str], list[str]],
                                                                             dict[str, dict[str, set[str]]]]:
    """The floor's MAC tables and gateways' ARP tables, each device read once through NAPALM:
    ((VLAN name, MAC) -> "device:port", VLAN name -> its gateway's address -> MACs)."""
    devices = access.devices
    assert devices is not None
    tables = devices.read({d for v in vlans for d in _switches(net, v)}, "get_mac_address_table")
    arps = devices.read({v.gateway for v in vlans}, "get_arp_table")
    by_id = {v.id: v for v in vlans}
    learned: dict[tuple[str, str], list[str]] = defaultdict(list)
    for device, table in tables.items():
        for e in table if isinstance(table, list) else []:
            vlan = by_id.get(int(e.get("vlan") or 0))
            if vlan is not None and device in _switches(net, vlan):
                learned[(vlan.name, str(e["mac"]).lower())].append(
                    f"{device}:{_intent_port(net, device, devices.intent_port(device, str(e['interface'])))}")
    views: dict[str, dict[str, set[str]]] = {}
    for vlan in vlans:
        arp = arps.get(vlan.gateway)
        views[vlan.name] = _resolved((str(e["ip"]), str(e["mac"])) for e in arp if
                                     ipaddress.ip_address(str(e["ip"])) in vlan.subnet) if isinstance(arp, list) else {}
    return learned, views


def edge_ports(uplinks: set[str], ports: list[str]) -> list[str]:
    """The ports a MAC is learned on that face hosts (a trunk's only when no host port has it)."""
    return sorted(set([p for p in ports if p not in uplinks] or ports))


def _intent_port(net: Network, device: str, name: str) -> str:
    """The intent's name for a port a device names its own way (Fa0/16 for FastEthernet0/16)."""
    ports = net.devices[device].ports if device in net.devices else []
    return next((p.name for p in ports if same_port(p.name, name)), name)


def _where(mac: str, ports: list[str], attached: dict[str, str]) -> str:
    """A MAC and where it is learned, with whose port each is by the intent (``attached``)."""
    if not ports:
        return f"{mac} (not learned on any switch port)"
    return f"{mac} on " + ", ".join(f"{p} ({attached[p]}'s port)" if p in attached else p for p in ports)


@dataclass
class AddressFindings:
    """Duplicates by the intent's holder, rows for the devices and unlisted addresses, and warnings."""

    duplicates: dict[str, str] = field(default_factory=dict)  # host -> cause
    rows: list[EndpointRow] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def judge_addresses(net: Network, swept: list[VlanAnswers], gateway_views: dict[str, dict[str, set[str]]],
                    learned: dict[tuple[str, str], list[str]]) -> AddressFindings:
    findings = AddressFindings()
    uplinks = {end for link in net.links for end in (link.a, link.b)}
    attached = {e.attach: e.name for e in net.endpoints.values()}
    for sweep in swept:
        vlan = sweep.vlan
        if sweep.error:
            findings.rows.append(EndpointRow(host=f"addresses of {vlan.name}", vlan=vlan.name, address=str(vlan.subnet),
                                             attach="-", verdict=Status.ERROR, finding="duplicate",
                                             cause=f"who answers for each address could not be asked: {sweep.error}"))
            continue
        held = intent_addresses(net, vlan)
        # the gateway's view adds the MAC it believes to an address the sweep heard (the gateway
        # sends that address's traffic there), never an address of its own: an entry outlives the
        # host that held it (a host re-addressed a minute ago)
        answers = {address: macs | gateway_views.get(vlan.name, {}).get(address, set())
                   for address, macs in sweep.answers.items() if ipaddress.ip_address(address) in vlan.subnet}
        for address, macs in sorted(answers.items(), key=lambda kv: ipaddress.ip_address(kv[0])):
            ports = {mac: edge_ports(uplinks, learned.get((vlan.name, mac), [])) for mac in sorted(macs)}
            seen = "; ".join(_where(mac, where, attached) for mac, where in ports.items())
            holder = held.get(address)
            if holder is None:
                line = (f"{address} in {vlan.name} is not in the intent, yet answers ARP from {seen}")
                if vlan.name in net.secured_vlans:
                    findings.rows.append(EndpointRow(
                        host="unlisted", vlan=vlan.name, address=f"{address}/{vlan.subnet.prefixlen}",
                        attach=", ".join(p for where in ports.values() for p in where) or "-",
                        verdict=Status.FAIL, finding="unlisted",
                        cause=f"{line}: an address the intent does not list, in a secured VLAN (the secure "
                              "zone's, or one whose hosts a rule admits by name)"))
                else:
                    findings.warnings.append(line)
            elif len(macs) > 1:
                cause = f"{address} answers from {len(macs)} MACs: {seen}; the intent gives it to {holder} only"
                if holder in net.endpoints:
                    findings.duplicates[holder] = cause
                else:
                    findings.rows.append(EndpointRow(host=holder, vlan=vlan.name, attach=f"{holder} (its interface)",
                                                     address=f"{address}/{vlan.subnet.prefixlen}",
                                                     verdict=Status.FAIL, finding="duplicate", cause=cause,
                                                     device=holder))
    return findings


def find_duplicates(net: Network, access: Access, progress: Progress) -> AddressFindings:
    """Every VLAN with a host on it swept at once; its gateway's view and the MAC tables read."""
    vlans = [v for v in net.vlans if any(e.vlan == v.name for e in net.endpoints.values())]
    with ThreadPoolExecutor(max_workers=16) as pool:  # each sweep mostly waits for answers
        swept = list(pool.map(lambda v: sweep_vlan(net, access, v), vlans))
    if access.devices is not None:
        learned, views = _floor_learned(net, access, vlans)
    else:
        learned = _lab_learned(net, access, vlans)
        views = {v.name: _lab_gateway_view(net, access, v) for v in vlans}
    findings = judge_addresses(net, swept, views, learned)
    for cause in [*findings.duplicates.values(), *(r.cause for r in findings.rows), *findings.warnings]:
        progress(f"[endpoints] {cause}")
    progress(f"[endpoints] {len(vlans)} VLANs swept by ARP: {len(findings.duplicates)} duplicate addresses, "
             f"{len(findings.warnings)} unlisted on open VLANs")
    return findings
