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
    Endpoint,
    Network,
    Vlan,
)

MIN_MTU, MAX_MTU = 576, 9216  # IPv4's minimum datagram; the largest jumbo frame the platforms take
MIN_MTU6 = 1280  # RFC 8200 section 5: every link that carries IPv6 has an MTU of 1280 or more

# (address, its prefix, the device that holds it, (file, field path), who): an address the intent gives out
Claim = tuple[IPv4Address | IPv6Address, IPv4Network | IPv6Network | None, str | None, tuple[str, str], str]
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


def not_global(address: IPv6Address | IPv6Network) -> str | None:
    """Why an address or prefix is not a global unicast one, or None."""
    ip = address.network_address if isinstance(address, IPv6Network) else address
    kinds = ((ip.is_link_local, "link-local"), (ip.is_multicast, "multicast"), (ip.is_loopback, "loopback"),
             (ip.is_unspecified, "unspecified"), (ip.ipv4_mapped is not None, "IPv4-mapped"),
             (ip in IPv6Network("fec0::/10"), "site-local (deprecated)"))
    return next((f"a global unicast address, not a {kind} one" for found, kind in kinds if found), None)


def gateway_not_router(vlan: Vlan, address: str) -> str:
    """What a VLAN's `routers` (IPv4 or IPv6) may list, when it lists the VLAN's gateway."""
    return (f"a device other than the VLAN's gateway {vlan.gateway}, which already routes {vlan.name} at {address} "
            f"(routers lists the other layer-3 devices on it): this entry would be left out of every config")


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
        vlans = "vlans[{}]" if family == Family.V4 else "vlans[{}].ipv6"
        for index, vlan in enumerate(self.net.vlans):
            gateway = self.net.gateway_address(vlan, family)
            if gateway is not None and vlan.gateway == device:
                own[gateway] = f"{vlans.format(index)}.gateway_address"
            routers = vlan.routers_in(family)
            if device in routers:
                own[routers[device]] = f"{vlans.format(index)}.routers.{device}"
        return own

    def _in_prefix(self, address: IPv6Address | None, prefix: IPv6Network, file: str, path: str) -> None:
        """An IPv6 address given in a prefix: global unicast, in it, not its subnet-router anycast address."""
        if address is None:
            return
        problem = not_global(address)
        if problem:
            self.add(file, path, str(address), problem)
        elif address not in prefix:
            self.add(file, path, str(address), f"a host address in {prefix}")
        elif address == prefix.network_address:
            self.add(file, path, str(address), f"a host address in {prefix}, not its subnet-router anycast address")

    def _vlan_routers(self, vlan: Vlan, file: str, path: str, family: Family) -> None:
        """A VLAN's other routers in ``family`` (``path``: where its addresses of the family are
        written): each a known device other than its gateway, at an address in the VLAN's prefix;
        in IPv6 a device routing the VLAN in IPv4 too."""
        prefix = vlan.prefix(family)
        assert prefix is not None  # a VLAN without the family has no routers in it
        gateway = self.net.gateway_address(vlan, family)
        for router, address in vlan.routers_in(family).items():
            where = f"{path}.routers.{router}"
            if router not in self.net.devices:
                self.add(file, where, router, "a known device")
            elif router == vlan.gateway:  # derive keeps one interface per device and VLAN: the gateway's
                self.add(file, where, router, gateway_not_router(vlan, str(gateway)))
            elif family == Family.V4:
                self.vlan_presence[vlan.id].append(router)
            elif router not in vlan.routers:
                self.add(file, where, router,
                         f"a device routing VLAN {vlan.name} in IPv4 too (its gateway or one of its routers)")
            if isinstance(address, IPv6Address) and isinstance(prefix, IPv6Network):
                self._in_prefix(address, prefix, file, where)  # global, not the anycast address too
            elif address not in prefix:
                self.add(file, where, str(address), f"a host address in {prefix}")

    def _claims(self, family: Family) -> Iterator[Claim]:
        """Every address in ``family`` the intent gives out (IPv4's: the management addresses too),
        each with its prefix, the device that holds it, where it is written and who it is."""
        if family == Family.V4:
            mgmt = self.net.settings.mgmt_subnet
            for name, device in sorted(self.net.devices.items()):
                yield (device.mgmt_address, mgmt, name, (self.src[f"host:{name}"], "mgmt_address"),
                       f"{name} mgmt_address")
        yield from self._vlan_claims(family)
        for index, link in enumerate(self.net.links):
            addresses = link.addresses_in(family)
            for side in ("a", "b") if addresses is not None else ():
                iface, where = getattr(addresses, side), f"links[{index}].addresses{family.suffix}.{side}"
                yield iface.ip, iface.network, getattr(link, side).partition(":")[0], (self.src["links"], where), where
        for name, endpoint in sorted(self.net.endpoints.items()):
            claim = self._host_claim(name, endpoint, family)
            if claim is not None:
                yield claim

    def _vlan_claims(self, family: Family) -> Iterator[Claim]:
        """The VLANs' gateway and router addresses in ``family``."""
        for index, vlan in enumerate(self.net.vlans):
            prefix, gateway = vlan.prefix(family), self.net.gateway_address(vlan, family)
            if prefix is None or gateway is None:
                continue
            path = f"vlans[{index}]" if family == Family.V4 else f"vlans[{index}].ipv6"
            if gateway in prefix:  # out of it is reported by the VLAN checks
                yield (gateway, prefix, vlan.gateway, (self.src["vlans"], f"{path}.gateway_address"),
                       f"{path} gateway {vlan.gateway}")
            for router, address in vlan.routers_in(family).items():
                where = f"{path}.routers.{router}"
                yield address, prefix, router, (self.src["vlans"], where), where

    def _host_claim(self, name: str, endpoint: Endpoint, family: Family) -> Claim | None:
        """A host's address in ``family``: IPv4's it gives; IPv6's it gives where its VLAN's hosts
        are static, or forms from its MAC where they take SLAAC (None where that is wrong: the
        endpoint checks report it; and where it is its gateway's: "other than the gateway")."""
        file, prefix = self.host_place(name)
        vlan = self._resolve_vlan(endpoint.vlan) if family == Family.V4 else self.net.vlan_name_index.get(endpoint.vlan)
        if family == Family.V4:
            if vlan is not None and endpoint.address == self.net.gateway_address(vlan):
                return None
            return endpoint.address, vlan.subnet if vlan is not None else None, None, (file, f"{prefix}address"), name
        if vlan is None or vlan.ipv6 is None or (vlan.ipv6.hosts == "static") != (endpoint.address6 is not None):
            return None
        address = self.net.endpoint_address(endpoint, family)
        field = "address6" if endpoint.address6 is not None else "mac"
        if address is None:
            return None
        return address, vlan.ipv6.prefix, None, (file, f"{prefix}{field}"), f"{name} ({field})"
