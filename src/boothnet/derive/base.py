"""What every step of a device's derivation shares: how to derive (the context), the
platform's quirks module, each port's use, and the state a network's derivation keeps."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, IPv6Address, IPv6Interface
from types import ModuleType
from typing import Any, Literal, overload

from boothnet.derive.model import DeviceModel
from boothnet.family import Family
from boothnet.intent.model import Device, Link, Network, Vlan


@dataclass
class DeriveContext:
    """How to derive: for hardware (defaults), for the lab, or for the Batfish view."""

    platform_override: str | None = None  # lab: every device "frr_linux"
    substitute: dict[str, str] = field(default_factory=dict)  # Batfish view: {"frr_linux": "cisco_ios"}
    port_map: dict[str, dict[str, str]] = field(default_factory=dict)  # device -> port -> name
    vlan_mode: str = "dot1q"
    tunnel_backend: str = "xfrm"  # "libipsec" where the kernel has no ESP (the lab)
    # Batfish 0.36 parses only md5/sha/sha2-256-128 after `hash` in an IKEv1 policy: `hash sha256`
    # derails its parser (it drops the next line, `authentication pre-share`). Its view renders
    # `hash sha` on both peers, which it matches alike; real IOS and strongSwan keep SHA-256.
    batfish_view: bool = False
    # the lab: makes a device's model what its vendor config reads as (boothnet.lab.standin),
    # before the platform's lines are computed from it
    adjust: Callable[[DeviceModel], None] | None = None

    def platform(self, device: Device) -> str:
        return self.platform_override or self.substitute.get(device.platform, device.platform)

    def port(self, device: str, port: str) -> str:
        return self.port_map.get(device, {}).get(port, port)


def quirks(platform: str) -> ModuleType:
    return importlib.import_module(f"boothnet.platforms.{platform}")


def _split(ref: str) -> tuple[str, str]:
    device, _, port = ref.partition(":")
    return device, port


@dataclass
class _PortUse:
    port: str
    kind: str
    mtu: int
    speed: int
    description: str
    vlan: Vlan | None = None
    vlans: list[Vlan] = field(default_factory=list)
    address: IPv4Interface | None = None
    address6: IPv6Interface | None = None
    peer: str = ""
    link: Link | None = None



class DeriverState:
    """The network being derived and what is found once for all its devices."""

    net: Network
    ctx: DeriveContext
    vlans_by_name: dict[str, Vlan]
    policy: Any
    uses: dict[str, list[_PortUse]]
    routed_vlans: dict[str, list[Vlan]]
    ospf_links: set[int]

    # what more than one deriver asks of the network
    @overload
    def _peer_address(self, device: str, role_filter: set[str] | None = None,
                      family: Literal[Family.V4] = ...) -> list[tuple[Link, IPv4Address, IPv4Address]]: ...

    @overload
    def _peer_address(self, device: str, role_filter: set[str] | None,
                      family: Literal[Family.V6]) -> list[tuple[Link, IPv6Address, IPv6Address]]: ...

    @overload
    def _peer_address(self, device: str, role_filter: set[str] | None,
                      family: Family) -> list[tuple[Link, IPv4Address | IPv6Address, IPv4Address | IPv6Address]]: ...

    def _peer_address(
        self, device: str, role_filter: set[str] | None = None, family: Family = Family.V4
    ) -> list[tuple[Link, IPv4Address, IPv4Address]] | list[tuple[Link, IPv6Address, IPv6Address]] | \
            list[tuple[Link, IPv4Address | IPv6Address, IPv4Address | IPv6Address]]:
        """(link, my address, peer address) for the device's routed links with addresses of ``family``."""
        found = []
        for link in self.net.links:
            addresses = link.addresses_in(family)
            if link.mode != "routed" or addresses is None:
                continue
            for side, other in (("a", "b"), ("b", "a")):
                if _split(getattr(link, side))[0] == device:
                    peer = _split(getattr(link, other))[0]
                    if role_filter is None or self.net.devices[peer].role in role_filter:
                        found.append((link, getattr(addresses, side).ip, getattr(addresses, other).ip))
        return found

    def _vpn_subnets(self, refs: list[str]) -> list[IPv4Network]:
        return [vlan.subnet for vlan in self.net.selected_vlans(refs)]
