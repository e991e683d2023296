"""Who answers for each address: every VLAN with a host on it swept by ARP (arp-scan from one of
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
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from boothnet.booth.cables import same_port
from boothnet.intent.model import Network, Vlan
from boothnet.lab import port_map
from boothnet.platforms.frr_linux import svi_name
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.perf.runner import json_list
from boothnet.validate.results import EndpointRow

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
