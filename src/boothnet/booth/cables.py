"""The intent's cables, each with a label a crew can print: ``C07 core1 Gi1/0/49 <-> rsw1 Et49``.

Labels are numbered in an order that depends on the cables themselves, not on where they sit in
the inventory files, so an unchanged intent gives the same labels run after run: links between
devices first (by their ends), then endpoint cables (by switch and port).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from netutils.interface import abbreviated_interface_name, canonical_interface_name

from boothnet.intent.model import Endpoint, Link, Network
from boothnet.platforms import platforms

CableKind = Literal["link", "endpoint"]


@dataclass(frozen=True)
class CableEnd:
    device: str  # a device, or an endpoint (host) for the far end of an endpoint cable
    port: str  # as the intent names it; "" for a host (the intent does not name its NIC)
    short: str  # as printed on the label: "Gi1/0/49" on IOS and EOS, Linux names as they are

    @property
    def ref(self) -> str:
        return f"{self.device}:{self.port}" if self.port else self.device

    @property
    def printed(self) -> str:
        return f"{self.device} {self.short}".rstrip()


@dataclass(frozen=True)
class Cable:
    label: str  # "C07"
    a: CableEnd
    b: CableEnd
    kind: CableKind
    mode: str  # trunk, access, routed
    vlans: tuple[tuple[int, str], ...]  # (id, name) carried
    mtu: int
    speed: int  # Mb/s
    addresses: tuple[str, str] = ("", "")  # routed: a's and b's interface address
    wan: str = ""  # "25 ms delay" on a WAN hop

    @property
    def text(self) -> str:
        """What goes on the cable: ``C07 core1 Gi1/0/49 <-> rsw1 Et49``."""
        return f"{self.label} {self.a.printed} <-> {self.b.printed}"

    def end_at(self, device: str, port: str) -> tuple[CableEnd, CableEnd] | None:
        """(this end, the far end) when the cable is plugged into ``device:port``."""
        for here, there in ((self.a, self.b), (self.b, self.a)):
            if here.device == device and (not here.port or same_port(here.port, port)):
                return here, there
        return None

    @property
    def vlan_text(self) -> str:
        return ", ".join(f"{vid} {name}" for vid, name in self.vlans)


def same_port(a: str, b: str) -> bool:
    """Whether two spellings name one port: ``Gi1/0/49`` and ``GigabitEthernet1/0/49``."""
    return a == b or canonical_interface_name(a) == canonical_interface_name(b)


def short_port(net: Network, device: str, port: str) -> str:
    if not port:
        return ""
    platform = platforms().get(net.devices[device].platform) if device in net.devices else None
    return abbreviated_interface_name(port) if platform and platform.short_port_names else port


def _natural(text: str) -> tuple[object, ...]:
    """``Gi1/0/10`` after ``Gi1/0/9``."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def _end(net: Network, ref: str) -> CableEnd:
    device, _, port = ref.partition(":")
    return CableEnd(device, port, short_port(net, device, port))


def _link_cable(net: Network, link: Link) -> Cable:
    a, b = _end(net, link.a), _end(net, link.b)
    vlans: list[tuple[int, str]] = []
    if link.mode == "trunk":
        vlans = [(v.id, v.name) for v in net.trunk_vlans(link)]
    elif link.mode == "access" and link.vlan is not None:
        vlan = net.vlan(link.vlan)
        vlans = [(vlan.id, vlan.name)]
    addresses = (str(link.addresses.a), str(link.addresses.b)) if link.addresses else ("", "")
    if (b.device, _natural(b.port)) < (a.device, _natural(a.port)):
        a, b, addresses = b, a, addresses[::-1]
    wan = ", ".join(text for value, text in (
        (link.delay_ms, f"{link.delay_ms:g} ms delay"), (link.jitter_ms, f"{link.jitter_ms:g} ms jitter"),
        (link.loss_pct, f"{link.loss_pct:g} % loss")) if value)
    return Cable("", a, b, "link", link.mode, tuple(vlans), net.link_mtu(link), net.link_speed(link),
                 addresses, wan)


def _endpoint_cable(net: Network, endpoint: Endpoint) -> Cable:
    vlan = net.vlan_name_index[endpoint.vlan]
    return Cable("", _end(net, endpoint.attach), CableEnd(endpoint.name, "", ""), "endpoint", "access",
                 ((vlan.id, vlan.name),), net.endpoint_mtu(endpoint), net.port_index[endpoint.attach].speed,
                 (str(endpoint.address), ""))


def cable_plan(net: Network) -> list[Cable]:
    """Every cable of the intent, labelled C01, C02, ... in a stable order."""
    links = sorted((_link_cable(net, link) for link in net.links),
                   key=lambda c: (c.a.device, _natural(c.a.port), c.b.device, _natural(c.b.port)))
    hosts = sorted((_endpoint_cable(net, e) for e in net.endpoints.values()),
                   key=lambda c: (c.a.device, _natural(c.a.port), c.b.device))
    cables = links + hosts
    width = max(2, len(str(len(cables))))
    return [Cable(f"C{i:0{width}d}", c.a, c.b, c.kind, c.mode, c.vlans, c.mtu, c.speed, c.addresses, c.wan)
            for i, c in enumerate(cables, start=1)]


def cable_of(net: Network, link: Link) -> Cable:
    return next(c for c in cable_plan(net) if {c.a.ref, c.b.ref} == {link.a, link.b})


def cable_label(net: Network, link: Link) -> str:
    """What is printed on a device link's cable: ``C01 core1 Te1/1/1 <-> rsw1 Et49``."""
    return cable_of(net, link).text


def cables_by_ref(cables: list[Cable]) -> dict[str, Cable]:
    """``"device:port"`` (or a host's name) -> the cable plugged in there."""
    return {end.ref: cable for cable in cables for end in (cable.a, cable.b)}
