"""The cabling stage: is every cable where the intent says? Each port's LLDP neighbour against
the intent's cables, on the lab's lldpd (``boothnet.lab.lldp``) or, on the booth's own switches,
NAPALM's ``get_lldp_neighbors`` (``boothnet.deploy.lldp``). Every missing, extra or swapped cable
is named with its label, as the crew will find it on the floor:
"C05 rsw1 Et49 sees core1 Gi1/0/48; the intent says core1 Te1/1/1".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from boothnet.booth.cables import Cable, CableEnd, cable_plan, same_port
from boothnet.intent.model import Network
from boothnet.lab.lldp import Heard, neighbours
from boothnet.lab.names import ns_name
from boothnet.lab.plan import HOST_IFNAME, port_map
from boothnet.platforms import frr_linux
from boothnet.status import Status
from boothnet.validate.results import CablingRow

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
        for cable in self.cables:
            for here, there in ((cable.a, cable.b), (cable.b, cable.a)):
                for ifname in ifnames_of(here, cable):
                    self.plugs[(here.device, ifname)] = Plug(cable, here, there)

    def plug_heard(self, heard: Heard) -> Plug | None:
        """The cable end a neighbour says it is (by its system name and port)."""
        plug = self.plugs.get((heard.system, heard.port))
        if plug is None:  # a switch may print its port another way (Gi1/0/1, GigabitEthernet1/0/1)
            plug = next((p for (dev, port), p in self.plugs.items()
                         if dev == heard.system and same_port(port, heard.port)), None)
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
               progress: Callable[[str], None], clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], None] = time.sleep) -> Observed:
    """Read until every expected port hears exactly one neighbour or ``timeout`` passes (a daemon
    that has just started needs a transmit interval; a re-plugged port still remembers its old
    neighbour until that one's TTL runs out)."""
    deadline = clock() + timeout
    while True:
        observed = read()
        unsettled = [key for key in expected if len(observed.get(key, [])) != 1]
        if not unsettled or clock() >= deadline:
            return observed
        progress(f"cabling: {len(unsettled)} ports hear no single neighbour yet")
        sleep(0.5)


def lab_ifnames(net: Network, vlan_mode: str) -> Callable[[CableEnd, Cable], list[str]]:
    """A cable end's interfaces in the lab: the port map's eth<N> (a trunk in segment mode is one
    wire per VLAN), a host's eth0."""
    ports = port_map(net)

    def ifnames(end: CableEnd, cable: Cable) -> list[str]:
        if not end.port:
            return [HOST_IFNAME]
        name = ports[end.device][end.port]
        if cable.mode == "trunk" and vlan_mode == "segment":
            return [frr_linux.trunk_member(name, vid, vlan_mode) for vid, _ in cable.vlans]
        return [name]

    return ifnames


def run_cabling(net: Network, vlan_mode: str, progress: Callable[[str], None], timeout: float = 10
                ) -> list[CablingRow]:
    """Every lab device's lldpd asked what each port hears, against the intent's cables. Hosts
    only announce themselves: on the floor too it is the switches that are asked."""
    plan = CablePlan(net, lab_ifnames(net, vlan_mode))
    devices = sorted(net.devices)

    def read() -> Observed:
        with ThreadPoolExecutor(max_workers=8) as pool:
            heard = dict(zip(devices, pool.map(lambda d: neighbours(ns_name(net.name, d)), devices), strict=True))
        return {(device, ifname): found for device, per_port in heard.items() for ifname, found in per_port.items()}

    observed = wait_heard(read, {key for key in plan.plugs if key[0] in net.devices}, timeout, progress)
    rows = judge_cabling(plan, observed, set(devices))
    failed = sum(r.verdict != Status.PASS for r in rows)
    progress(f"cabling: {len(rows) - failed} of {len(rows)} cables where the intent says")
    return rows
