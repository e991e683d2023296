"""The state every feature's intent checks share, and how they name an error."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from typing import Any, TypeVar

from boothnet.errors import IntentError
from boothnet.family import Family
from boothnet.intent.model import (
    Device,
    Network,
    Vlan,
)

MIN_MTU, MAX_MTU = 576, 9216  # IPv4's minimum datagram; the largest jumbo frame the platforms take
MIN_MTU6 = 1280  # RFC 8200 section 5: every link that carries IPv6 has an MTU of 1280 or more

Span = TypeVar("Span", bound=tuple[IPv4Network | IPv6Network, str, str])  # (prefix, file, field path)


def overlaps(spans: list[Span]) -> Iterator[tuple[Span, Span]]:
    """Each span that overlaps an earlier one, with the widest earlier span it overlaps (one
    family). Sorted by start, an overlap can only be with the widest span seen so far: n log n."""
    widest: Span | None = None
    for span in sorted(spans, key=lambda span: (int(span[0].network_address), span[0].prefixlen)):
        # as integers: one family per call, and mypy compares no union of address types
        if widest is not None and int(span[0].network_address) <= int(widest[0].broadcast_address):
            yield span, widest
        if widest is None or int(span[0].broadcast_address) > int(widest[0].broadcast_address):
            widest = span


def own_next_hop(device: str, field: str) -> str:
    """What an uplink's next hop may be, when it is the uplink device's own address."""
    return (f"the show network's router, not an address of {device} itself ({field}): a default route to "
            f"itself loops every packet back to {device}")


class CheckBase:
    """What every feature's checks share: the network, the errors and warnings found so far,
    where each section came from, and the VLANs and ports found by name."""

    def __init__(self, net: Network):
        self.net = net
        self.errors: list[IntentError] = []
        self.warnings: list[IntentError] = []
        self.src = net.sources
        self.vlans_by_name: dict[str, tuple[int, Vlan]] = {}  # name -> (index in vlans, the VLAN)
        self.vlans_by_id: dict[int, tuple[int, Vlan]] = {}
        # device -> vlan id -> where it is present (for reserved checks and "carried nowhere")
        self.vlan_presence: dict[int, list[str]] = defaultdict(list)
        self.vlan_on_ports: set[int] = set()

    def add(self, file: str, path: str, value: object, allowed: str) -> None:
        self.errors.append(IntentError(file, path, value, allowed))

    def host_place(self, name: str) -> tuple[str, str]:
        """An endpoint's file and the prefix of its fields' paths there (`endpoints.h1.` in
        hosts.yml, none in its host_vars file)."""
        file = self.src[f"host:{name}"]
        return file, f"endpoints.{name}." if file.endswith(("hosts.yml", "hosts.yaml")) else ""

    def _port(self, ref: str, file: str, path: str) -> tuple[Device, Any] | None:
        device_name, _, port_name = ref.partition(":")
        device = self.net.devices.get(device_name)
        if device is None or not port_name:
            self.add(file, path, ref, "device:port with a known device: " + ", ".join(sorted(self.net.devices)))
            return None
        port = next((p for p in device.ports if p.name == port_name), None)
        if port is None:
            names = [p.name for p in device.ports]
            shown = ", ".join(names[:3] + (["..."] if len(names) > 4 else []) + names[3:][-1:])
            self.add(file, path, ref, f"a port declared on {device_name} ({shown or 'none declared'})")
            return None
        return device, port

    def _resolve_vlan(self, ref: int | str) -> Vlan | None:
        if isinstance(ref, int) or str(ref).isdigit():
            found = self.vlans_by_id.get(int(ref))
        else:
            found = self.vlans_by_name.get(str(ref))
        return found[1] if found else None


    def _own_addresses(self, device: str, family: Family) -> dict[IPv4Address | IPv6Address, str]:
        """The device's own addresses in ``family`` on its routed links and VLANs, each with the
        field that gives it."""
        own: dict[IPv4Address | IPv6Address, str] = {}
        for index, link in enumerate(self.net.links):
            addresses = link.addresses_in(family)
            for side in ("a", "b") if link.mode == "routed" and addresses is not None else ():
                if getattr(link, side).partition(":")[0] == device:
                    own[getattr(addresses, side).ip] = f"links[{index}].addresses{family.suffix}.{side}"
        vlans = "vlans[{}]" if family is Family.V4 else "vlans[{}].ipv6"
        for index, vlan in enumerate(self.net.vlans):
            gateway = self.net.gateway_address(vlan, family)
            if gateway is not None and vlan.gateway == device:
                own[gateway] = f"{vlans.format(index)}.gateway_address"
            routers = vlan.routers_in(family)
            if device in routers:
                own[routers[device]] = f"{vlans.format(index)}.routers.{device}"
        return own
