"""Which link carried what: the counters of both ends of a device link, read before and after a
backbone aggregate and each watch round (lab: ``ip -s`` in the device's namespace; a floor:
NAPALM ``get_interfaces_counters``, which the frr_linux driver answers from the kernel)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from boothnet.booth.cables import Cable, cable_of
from boothnet.deploy.counters import PortCounters, kernel_counters, napalm_counters
from boothnet.intent.model import Link, Network
from boothnet.lab import HOST_IFNAME, detect_vlan_mode, lab_ifnames
from boothnet.validate.access import Access
from boothnet.validate.perf.schema import LinkLoad

# aggregates in parallel lanes may read one device at once; its NAPALM session serves one thread
_ONE_SESSION_USER = threading.Lock()


@dataclass(frozen=True)
class Wire:
    """One wire of a link: the link itself, or one VLAN of a trunk the lab wires per VLAN."""

    name: str
    a: tuple[str, str]  # (device, its interface)
    b: tuple[str, str]


def wires(net: Network, access: Access, link: Link) -> list[Wire]:
    return cable_wires(net, access, cable_of(net, link))


def cable_wires(net: Network, access: Access, cable: Cable) -> list[Wire]:
    """A cable's wires by the interfaces of its ends (a host's end is named but never read)."""
    names: Callable = (access.devices.port_names if access.on_floor and access.devices
                       else lab_ifnames(net, detect_vlan_mode()))
    ends_a = names(cable.a, cable)
    ends_b = names(cable.b, cable) if cable.b.port else [HOST_IFNAME] * len(ends_a)
    if len(ends_a) == 1:
        return [Wire(cable.text, (cable.a.device, ends_a[0]), (cable.b.device, ends_b[0]))]
    return [Wire(f"{cable.text} VLAN {vid}", (cable.a.device, a), (cable.b.device, b))
            for (vid, _), a, b in zip(cable.vlans, ends_a, ends_b, strict=True)]


def read_ports(access: Access, device: str, link_state: bool = False) -> dict[str, PortCounters] | str:
    """Every interface's counters on ``device``, or why they could not be read: on a floor through
    its NAPALM session (get_interfaces_counters; the frr_linux driver reads the kernel's), in the
    lab from the kernel in its namespace."""
    if access.devices is not None and device in access.devices.sessions:
        with _ONE_SESSION_USER:
            read = access.devices.read([device], "get_interfaces_counters")[device]
            state = access.devices.read([device], "get_interfaces")[device] if link_state else "not asked"
        return read if isinstance(read, str) else napalm_counters(read, state)
    if not access.has_shell(device):
        return f"{device}: no way to read its counters"
    res = access.runner(access.node(device), ["ip", "-j", "-s", "link", "show"], 15)
    if not res.ok:
        return f"ip -s link on {device}: exit {res.returncode}: {res.output.strip()[:200]}"
    return kernel_counters(res.stdout)


def transmitted(access: Access, device: str) -> dict[str, int] | str:
    """Bytes each interface of ``device`` has sent, or why they could not be read."""
    ports = read_ports(access, device)
    return ports if isinstance(ports, str) else {name: c.tx_octets for name, c in ports.items()}


_HTB_RATE = re.compile(r"class htb \S+ .*?\brate (\d+(?:\.\d+)?)([KMG]?)bit")
_UNIT = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def lab_shapers(net: Network, access: Access, link: Link) -> dict[str, float | None]:
    """The rate (b/s) of the htb class each device end of ``link``'s wires is shaped at in the
    lab (the lab's cable: its speed), or None where none is read; by "device interface"."""
    rates: dict[str, float | None] = {}
    for wire in wires(net, access, link):
        for device, ifname in (wire.a, wire.b):
            answer = access.runner(access.node(device), ["tc", "class", "show", "dev", ifname], 10)
            found = _HTB_RATE.search(answer.stdout) if answer.ok else None
            rates[f"{device} {ifname}"] = float(found.group(1)) * _UNIT[found.group(2)] if found else None
    return rates


@contextmanager
def carried(net: Network, access: Access, links: list[Link], seconds: float) -> Iterator[list[LinkLoad]]:
    """The loads of every wire of ``links`` over the block (filled when it ends), averaged over
    ``seconds`` (the measurement's own duration)."""
    all_wires = [w for link in links for w in wires(net, access, link)]
    devices = sorted({end[0] for w in all_wires for end in (w.a, w.b)})
    before = {d: transmitted(access, d) for d in devices}
    loads: list[LinkLoad] = []
    yield loads
    after = {d: transmitted(access, d) for d in devices}
    span = seconds or 1.0

    def rate(end: tuple[str, str]) -> float | None:
        first, last = before[end[0]], after[end[0]]
        if isinstance(first, str) or isinstance(last, str) or end[1] not in first or end[1] not in last:
            return None
        return (last[end[1]] - first[end[1]]) * 8 / span

    for w in all_wires:
        why = next((r for r in (before[w.a[0]], before[w.b[0]], after[w.a[0]], after[w.b[0]]) if isinstance(r, str)),
                   None)
        loads.append(LinkLoad(wire=w.name, a_to_b_bps=rate(w.a), b_to_a_bps=rate(w.b), error=why))


def describe(loads: list[LinkLoad], shown: int = 4) -> str:
    """The busiest wires first; then how many more were busy, and how many idled (under a tenth
    of the busiest) while their twins carried the load."""
    def most(load: LinkLoad) -> float:
        return max(load.a_to_b_bps or 0, load.b_to_a_bps or 0)

    errors = [f"{load.wire}: {load.error}" for load in loads if load.error]
    ranked = sorted((load for load in loads if not load.error), key=most, reverse=True)
    if not ranked:
        return "; ".join(errors)
    top = most(ranked[0])
    busy = [load for load in ranked if most(load) >= top / 10]
    text = "; ".join(f"{load.wire} {(load.a_to_b_bps or 0) / 1e6:.0f} -> / {(load.b_to_a_bps or 0) / 1e6:.0f} <- Mb/s"
                     for load in busy[:shown])
    if len(busy) > shown:
        text += f"; {len(busy) - shown} more wire(s) from {most(busy[-1]) / 1e6:.0f} Mb/s"
    if idle := len(ranked) - len(busy):
        text += f"; {idle} wire(s) idle (under {top / 10 / 1e6:.0f} Mb/s)"
    return "; ".join([f"counters: {text}", *errors])
