"""Post-commit health check: what must hold before a commit is confirmed.

Three checks, each a list of failure strings (empty = healthy):

- management: a *new* SSH session reaches the device (the commit's own session can
  survive a change that blocks new ones, so it proves nothing);
- adjacencies: every OSPF interface the candidate makes active (not passive) that had a
  Full neighbor before the commit, or is point-to-point, has a Full neighbor again, and every
  neighbour the intent implies there (the model's ``ospf.neighbors``) is up, by name;
- device: the device's own view, i.e. the running state equals the candidate (an empty
  diff after commit) and no part is left half-applied.

frr_linux reads what to expect from the candidate itself; an IOS or EOS device from the
build's model of it (``configs.model.json``): its links and transit SVIs up, its non-passive
OSPF interfaces Full (:func:`expected_from_model`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from boothnet.deploy import ifstate
from boothnet.deploy.parts import FRR, INTERFACES
from boothnet.family import Family
from boothnet.poll import poll


@dataclass
class OspfIntent:
    """What the candidate's frr.conf says about OSPF, per interface."""

    networks: list[ipaddress.IPv4Network] = field(default_factory=list)
    area_ifaces: set[str] = field(default_factory=set)  # `ip ospf area` under interface
    passive: set[str] = field(default_factory=set)
    passive_default: bool = False
    non_passive: set[str] = field(default_factory=set)
    p2p: set[str] = field(default_factory=set)
    enabled: bool = False


_IFACE = re.compile(r"^interface (\S+)")


def parse_ospf(frr_conf: str) -> OspfIntent:
    intent = OspfIntent()
    section: tuple[str, str] | None = None
    for raw in frr_conf.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("!"):
            continue
        if not line.startswith(" "):
            m = _IFACE.match(line)
            section = ("interface", m.group(1)) if m else None
            if line.startswith("router ospf") and not line.startswith("router ospf6"):
                section, intent.enabled = ("ospf", ""), True
            continue
        if section is None:
            continue
        words = line.split()
        if section[0] == "interface":
            _interface_line(intent, section[1], words)
        else:
            _router_line(intent, words)
    return intent


def _interface_line(intent: OspfIntent, name: str, words: list[str]) -> None:
    if words[:3] == ["ip", "ospf", "area"]:
        intent.area_ifaces.add(name)
    elif words[:4] == ["ip", "ospf", "network", "point-to-point"]:
        intent.p2p.add(name)


def _router_line(intent: OspfIntent, words: list[str]) -> None:
    """A line of `router ospf`."""
    if words[:1] == ["network"] and len(words) >= 4:
        intent.networks.append(ipaddress.IPv4Network(words[1], strict=False))  # OSPFv2: IPv4 only
    elif words == ["passive-interface", "default"]:
        intent.passive_default = True
    elif words[:1] == ["passive-interface"] and len(words) == 2:
        intent.passive.add(words[1])
    elif words[:2] == ["no", "passive-interface"] and len(words) == 3:
        intent.non_passive.add(words[2])


def active_ospf_interfaces(frr_conf: str, interfaces_ip: str) -> set[str]:
    """Interfaces on which the candidate runs OSPF and sends hellos."""
    intent = parse_ospf(frr_conf)
    if not intent.enabled:
        return set()
    state = ifstate.parse_batch(interfaces_ip) if interfaces_ip else {}
    enabled = set(intent.area_ifaces)
    for name, iface in state.items():
        for cidr in iface.addrs:
            addr = ipaddress.ip_interface(cidr)
            if addr.version == 4 and any(addr.ip in n for n in intent.networks):
                enabled.add(name)
    if intent.passive_default:
        return enabled & intent.non_passive
    return enabled - intent.passive


def expected_adjacencies(
    candidate: Mapping[str, str], before: Mapping[str, list[dict[str, str]]]
) -> set[str]:
    """Interfaces that must have a Full OSPF neighbor after the commit.

    An active interface counts when it had a Full neighbor before (the change must not
    lose it) or is point-to-point (a routed link always has a router on the other end).
    A LAN with only hosts on it has no neighbor to expect.
    """
    frr = candidate.get(FRR)
    if frr is None:
        return set()
    active = active_ospf_interfaces(frr, candidate.get(INTERFACES, ""))
    had_full = {i for i, ns in before.items() if any(n.get("state") == "Full" for n in ns)}
    return {i for i in active if i in had_full or i in parse_ospf(frr).p2p}


def ospf_neighbors_from_cli(platform: str, output: str) -> dict[str, list[dict[str, str]]]:
    """`show ip ospf neighbor` of an IOS or EOS device (neither NAPALM driver has an OSPF
    getter), parsed with ntc-templates' TextFSM template, in the shape the frr_linux driver
    gives: interface -> [{neighbor, address, state}], the state's adjacency part only
    ('FULL/DR' -> 'Full', '2WAY/DROTHER' -> '2Way')."""
    from ntc_templates.parse import parse_output  # imported late: only hardware deploys need it

    out: dict[str, list[dict[str, str]]] = {}
    for row in parse_output(platform=platform, command="show ip ospf neighbor", data=output):
        adjacency = str(row["state"]).split("/")[0]
        state = "2Way" if adjacency.upper() == "2WAY" else adjacency.capitalize()
        out.setdefault(str(row["interface"]), []).append(
            {"neighbor": str(row["neighbor_id"]), "address": str(row["ip_address"]), "state": state})
    return out


@dataclass(frozen=True)
class Expected:
    """What a healthy IOS/EOS device shows after the commit, from the intent."""

    interfaces_up: tuple[str, ...]
    ospf_full: tuple[str, ...]


def expected_from_model(model: Mapping[str, Any]) -> Expected:
    """The management interface, trunks, routed ports, the SVIs of VLANs a trunk carries and
    every non-passive OSPF interface must be up, the last with a Full neighbor. Access ports
    are not expected up: a booth host may not be plugged in yet."""
    ifaces = model["interfaces"]
    trunked = {v for i in ifaces if i["kind"] == "trunk" for v in i["allowed_vlans"]}
    up = [model["mgmt_interface"]] + [
        i["name"] for i in ifaces
        if i["kind"] in ("trunk", "routed") or (i["kind"] == "svi" and _svi_vlan(i["name"]) in trunked)]
    ospf = model.get("ospf") or {}
    full = [o["name"] for o in ospf.get("interfaces", []) if not o["passive"]]
    return Expected(tuple(dict.fromkeys(up + full)), tuple(full))


def intended_neighbors(model: Mapping[str, Any], models: Mapping[str, Mapping[str, Any]] | None = None,
                       family: Family = Family.V4) -> dict[str, dict[str, str]]:
    """The adjacencies the intent implies, per interface (``ospf.neighbors``: each pair of routers
    sharing a VLAN or a routed link, not passive): OSPF's in IPv4; in IPv6, OSPFv3's: those whose
    interface runs OSPFv3, not passive, toward a neighbour that runs OSPFv3 (``models``: every
    device's). Each neighbour's name under the key the protocol knows it by: OSPF its address
    on the link, OSPFv3 its router ID (its address is link-local)."""
    ospf = model.get("ospf") or {}
    v3 = family == Family.V6
    active6 = {o["name"] for o in ospf.get("interfaces6", []) if not o.get("passive")}
    out: dict[str, dict[str, str]] = {}
    for interface, device, address in ospf.get("neighbors", []):
        peer = (models or {}).get(device, {}).get("ospf") or {}
        if v3 and not (interface in active6 and peer.get("interfaces6")):
            continue
        out.setdefault(interface, {})[str(peer.get("router_id")) if v3 else address] = device
    return out


def _svi_vlan(name: str) -> int | None:
    m = re.fullmatch(r"(?i)vlan(\d+)", name)
    return int(m.group(1)) if m else None


def interface_failures(expected_up: Iterable[str], interfaces: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """NAPALM get_interfaces() against the interfaces that must be up (names compared in
    their canonical long form: IOS may answer Gi1/0/1 for GigabitEthernet1/0/1)."""
    from napalm.base.helpers import canonical_interface_name

    seen = {canonical_interface_name(k): v for k, v in interfaces.items()}
    out = []
    for name in expected_up:
        state = seen.get(canonical_interface_name(name))
        if state is None:
            out.append(f"{name}: not on the device")
        elif not state.get("is_up"):
            why = "administratively down" if not state.get("is_enabled", True) else "down"
            out.append(f"{name}: {why}")
    return out


def adjacency_failures(
    expected: set[str], neighbors: Mapping[str, list[dict[str, str]]],
    intended: Mapping[str, Mapping[str, str]] | None = None,
) -> list[str]:
    """Each expected interface without a Full neighbour, and each neighbour the intent implies
    (``intended``: interface -> address -> device) that is not there at least 2-Way (two
    DROTHERs on a LAN stay 2-Way), by name."""
    out = []
    intended = intended or {}
    for ifname in sorted(expected | set(intended)):
        found = neighbors.get(ifname, [])
        states = [n.get("state", "?") for n in found]
        seen = ", ".join(states) if states else "no neighbor"
        if "Full" not in states:
            out.append(f"OSPF on {ifname}: expected a Full neighbor, found {seen}")
        by_address = {n.get("address"): n.get("state") for n in found}
        for address, device in sorted(intended.get(ifname, {}).items()):
            if by_address.get(address) not in ("Full", "2Way"):
                out.append(f"OSPF on {ifname}: no adjacency with {device} ({address}), which the intent puts "
                           f"there (found {by_address.get(address) or 'no such neighbor'})")
    return out


@dataclass
class HealthReport:
    management: list[str] = field(default_factory=list)
    interfaces: list[str] = field(default_factory=list)
    adjacencies: list[str] = field(default_factory=list)
    device: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.management or self.interfaces or self.adjacencies or self.device)

    @property
    def reason(self) -> str:
        return "; ".join(self.management + self.interfaces + self.adjacencies + self.device)

    def as_dict(self) -> dict[str, object]:
        return {"ok": self.ok, "management": self.management, "interfaces": self.interfaces,
                "adjacencies": self.adjacencies, "device": self.device}


def wait_for(
    probe: Callable[[], list[str]], timeout: float, interval: float = 1.0,
    clock: Callable[[], float] | None = None, sleep: Callable[[float], None] | None = None,
) -> list[str]:
    """Run *probe* until it returns no failures or *timeout* passes; the last failures."""
    import time

    return poll(probe, lambda failures: not failures, timeout, interval,
                clock=clock or time.monotonic, sleep=sleep or time.sleep)
