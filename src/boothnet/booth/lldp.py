"""Cabling against LLDP: what each port of a device hears, judged against the intent's cables.
Every missing, extra or swapped cable is named with its label, as a crew finds it on the floor:
"C05 rsw1 Et49 sees core1 Gi1/0/48 (of C01); the intent says core1 Te1/1/1". The lab's lldpd
(``boothnet.validate.checks.cabling``) and NAPALM's ``get_lldp_neighbors`` on the booth's own switches
(``boothnet.deploy.lldp``) both give it what they heard.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from boothnet.booth.cables import Cable, CableEnd, cable_plan, same_port
from boothnet.intent.model import Network
from boothnet.poll import poll
from boothnet.progress import Progress
from boothnet.status import Status


@dataclass(frozen=True)
class Heard:
    """What one port hears: the neighbour's system name and its port."""

    system: str
    port: str


def parse_lldpcli(text: str) -> dict[str, list[Heard]]:
    """``lldpcli -f json0 show neighbors`` (every level a list, whatever the count) -> interface ->
    neighbours."""
    heard: dict[str, list[Heard]] = {}
    for lldp in json.loads(text or "{}").get("lldp", []):
        for iface in lldp.get("interface", []):
            for chassis, port in zip(iface.get("chassis", []), iface.get("port", []), strict=False):
                system = next((n.get("value", "") for n in chassis.get("name", [])), "")
                heard.setdefault(iface["name"], []).append(Heard(system, _port_name(port)))
    return heard


def _port_name(port: dict) -> str:
    """The neighbour's interface name: its port id when that is a name, else its description (Linux
    lldpd sends the MAC address as id and the interface name as description)."""
    port_id: dict[str, str] = next(iter(port.get("id", [])), {})
    if port_id.get("type") in ("ifname", "local"):
        return str(port_id.get("value", ""))
    return next((str(d.get("value", "")) for d in port.get("descr", [])), str(port_id.get("value", "")))


class CablingRow(BaseModel):
    """A cable against what LLDP hears at its ends."""

    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    label: str  # "C05"; "-" for a port where the intent has no cable
    cable: str  # "C05 core1 Te1/1/1 <-> rsw1 Et49"
    verdict: Status
    cause: str | None = None  # what each end hears instead
    device: str | None = None


# (device, port as the device names it) -> what it hears
Observed = Mapping[tuple[str, str], list[Heard]]


@dataclass(frozen=True)
class Plug:
    """One end of a cable as the device being asked names its port."""

    cable: Cable
    here: CableEnd
    there: CableEnd


def _printed(end: CableEnd) -> str:
    return end.printed if end.port else f"host {end.device}"


class CablePlan:
    """The intent's cables, found by any end as a device names it (``ifname_of`` gives that name:
    the lab's eth3 for Gi1/0/47; the switch's own port name on hardware)."""

    def __init__(self, net: Network, ifnames_of: Callable[[CableEnd, Cable], list[str]]) -> None:
        self.cables = cable_plan(net)
        self.plugs: dict[tuple[str, str], Plug] = {}
        self.devices: set[str] = set()  # whose ports have plugs: a neighbour's name is matched against them
        self.hosts: dict[str, Plug] = {}  # a host's end by its name: the intent does not name its NIC
        for cable in self.cables:
            for here, there in ((cable.a, cable.b), (cable.b, cable.a)):
                if not here.port:
                    self.hosts[here.device] = Plug(cable, here, there)
                for ifname in ifnames_of(here, cable):
                    self.plugs[(here.device, ifname)] = Plug(cable, here, there)
                    self.devices.add(here.device)

    def plug_heard(self, heard: Heard) -> Plug | None:
        """The cable end a neighbour says it is (by its system name and port)."""
        system = heard.system if heard.system in self.devices else heard.system.split(".")[0]
        plug = self.plugs.get((system, heard.port)) or self.hosts.get(system)
        if plug is None:  # a switch may print its port another way (Gi1/0/1, GigabitEthernet1/0/1)
            plug = next((p for (dev, port), p in self.plugs.items()
                         if dev == system and same_port(port, heard.port)), None)
        return plug


def _same_end(seen: CableEnd, want: CableEnd) -> bool:
    return seen.device == want.device and (not want.port or same_port(seen.port, want.port))


def judge_cabling(plan: CablePlan, observed: Observed, asked: set[str]) -> list[CablingRow]:
    """One row per cable with an end on a device in ``asked`` (the devices whose LLDP was read),
    plus one per port that hears a neighbour where the intent has no cable."""
    problems: dict[str, list[str]] = {}
    seen_by: dict[str, list[str]] = {}  # cable label -> the labels of the cables its ends now hear
    for (device, ifname), plug in plan.plugs.items():
        if device not in asked:
            continue
        cable = plug.cable
        problems.setdefault(cable.label, [])
        heard = observed.get((device, ifname), [])
        if not heard:
            problems[cable.label].append(f"{_printed(plug.here)} hears no LLDP neighbour; the intent says "
                                         f"{_printed(plug.there)}")
            continue
        seen = [plan.plug_heard(h) for h in heard]
        if len(seen) == 1 and seen[0] is not None and _same_end(seen[0].here, plug.there):
            continue  # one neighbour, the right one (two on one cable: a hub, or a stale entry)
        names = ", ".join(f"{_printed(p.here)} (of {p.cable.label})" if p else f"{h.system} {h.port} (not in the "
                          "intent)" for p, h in zip(seen, heard, strict=True))
        problems[cable.label].append(f"{_printed(plug.here)} sees {names}; the intent says {_printed(plug.there)}")
        seen_by.setdefault(cable.label, []).extend(p.cable.label for p in seen if p and p.cable is not cable)
    rows = []
    for cable in plan.cables:
        if cable.label not in problems:
            continue
        found = problems[cable.label]
        swapped = sorted(set(seen_by.get(cable.label, [])))
        cause = "; ".join(found) + (f" (swapped with {', '.join(swapped)}?)" if swapped else "") if found else None
        rows.append(CablingRow(label=cable.label, cable=cable.text, verdict=Status.of(not found), cause=cause,
                               device=cable.a.device))
    for (device, ifname), heard in sorted(observed.items()):
        if device in asked and (device, ifname) not in plan.plugs and heard:
            names = ", ".join(f"{h.system} {h.port}" for h in heard)
            rows.append(CablingRow(label="-", cable=f"{device} {ifname}", verdict=Status.FAIL, device=device,
                                   cause=f"{device} {ifname} sees {names}; the intent has no cable on this port"))
    return rows


def wait_heard(read: Callable[[], Observed], expected: set[tuple[str, str]], timeout: float,
               progress: Progress, clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], None] = time.sleep) -> Observed:
    """Read until every expected port hears exactly one neighbour or ``timeout`` passes (a daemon
    that has just started needs a transmit interval; a re-plugged port still remembers its old
    neighbour until that one's TTL runs out)."""
    def unsettled(observed: Observed) -> list[tuple[str, str]]:
        return [key for key in expected if len(observed.get(key, [])) != 1]

    return poll(read, lambda observed: not unsettled(observed), timeout, 0.5, clock=clock, sleep=sleep,
                waiting=lambda observed: progress(f"cabling: {len(unsettled(observed))} ports hear no single "
                                                  "neighbour yet"))


def merge_rows(rows: list[CablingRow]) -> list[CablingRow]:
    """One row per cable when each device judged its own ends (a cable between two switches is
    judged at both): it passes when both ends do; the causes of both ends are kept."""
    merged: dict[str, CablingRow] = {}
    for row in rows:
        key = row.cable if row.label == "-" else row.label
        seen = merged.get(key)
        if seen is None:
            merged[key] = row.model_copy()
        elif row.verdict != Status.PASS:
            causes = [c for c in (seen.cause, row.cause) if c]
            merged[key] = seen.model_copy(update={"verdict": Status.FAIL, "cause": "; ".join(dict.fromkeys(causes))})
    return sorted(merged.values(), key=lambda r: (r.label == "-", r.label, r.cable))
