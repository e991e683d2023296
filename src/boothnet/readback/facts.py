"""What a device config says, read the way the device reads it: the facts that decide forwarding.

Both sides of render fidelity have this shape: the reader fills it from config text (with the
platform's defaults where the text is silent), `expect` fills it from the derived model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, IPv6Address, IPv6Interface, IPv6Network
from typing import Literal

Mode = str  # "access" | "trunk" | "routed" (an addressed layer-3 port) | "svi" | "mgmt"


@dataclass(frozen=True)
class AclRule:
    """One ACL line as the device matches it."""

    action: Literal["permit", "deny"]
    proto: str
    src: IPv4Network | IPv6Network | None  # None: any
    src_port: int | None
    dst: IPv4Network | IPv6Network | None
    dst_port: int | None
    icmp_type: str | None = None
    established: bool = False
    log: bool = False

    def __str__(self) -> str:
        parts = [self.action, self.proto, str(self.src or "any")]
        parts += [f"eq {self.src_port}"] if self.src_port is not None else []
        parts.append(str(self.dst or "any"))
        parts += [f"eq {self.dst_port}"] if self.dst_port is not None else []
        parts += [self.icmp_type] if self.icmp_type else []
        parts += ["established"] if self.established else []
        parts += ["log"] if self.log else []
        return " ".join(parts)


@dataclass(frozen=True)
class OspfOn:
    """OSPF on one interface: area, passive, timers, network type."""

    area: int
    passive: bool
    hello: int
    dead: int
    network_type: str


@dataclass
class InterfaceFacts:
    name: str
    mode: Mode
    access_vlan: int | None = None
    trunk_vlans: tuple[int, ...] = ()
    address: IPv4Interface | None = None
    mtu: int = 1500
    shutdown: bool = False
    acl_in: str | None = None
    acl_out: str | None = None
    address6: IPv6Interface | None = None
    # its router advertisements: "static" advertises the prefix without the autonomous flag; None: none sent
    ra: Literal["slaac", "static"] | None = None
    acl6_in: str | None = None
    acl6_out: str | None = None
    mss: int | None = None
    crypto_map: bool = False
    ospf: OspfOn | None = None
    ospf6: OspfOn | None = None  # OSPFv3
    # a bound host port: the source MACs it admits (port security with its MACs) and the IPv4
    # sources (IP source guard with its bindings; () admits none); None: any
    allowed_macs: tuple[str, ...] | None = None
    allowed_sources: tuple[IPv4Address, ...] | None = None
    # the global sources its IPv6 port ACL permits anything from, in order (link-local ones and
    # duplicate address detection are IPv6's own); None: no IPv6 port ACL, or one for any source
    allowed_sources6: tuple[IPv6Network, ...] | None = None
    # a port with port security: what a frame from another MAC does (restrict and protect drop
    # it, shutdown err-disables the port); None: no port security
    violation: str | None = None


@dataclass(frozen=True)
class StaticRoute:
    prefix: IPv4Network | IPv6Network
    next_hop: IPv4Address | IPv6Address | str
    distance: int


@dataclass(frozen=True)
class ManagementAccess:
    """The way in a config keeps for deploy and validate-hw: who logs in and over what."""

    users: tuple[str, ...] = ()  # privilege-15 local users
    ssh: bool = False  # IOS: vty `transport input ssh`, local logins (AAA's default list); EOS: on by default
    scp: bool = False  # IOS `ip scp server enable` with AAA exec authorization (NAPALM ios copies with it)
    eapi: bool = False  # EOS `management api http-commands` / `no shutdown` (NAPALM eos' transport)
    vrf: str | None = None  # the management port's VRF
    gateway: IPv4Address | None = None  # the default route in that VRF


@dataclass
class ConfigFacts:
    """One device's config as read (or, from `expect`, as the model says it must read)."""

    device: str
    platform: str
    routing: bool = False
    ipv6_routing: bool = False
    vlans: dict[int, str] = field(default_factory=dict)
    interfaces: dict[str, InterfaceFacts] = field(default_factory=dict)
    routes: list[StaticRoute] = field(default_factory=list)
    ospf_router_id: IPv4Address | None = None
    default_originate: bool = False
    redistribute: tuple[IPv4Network, ...] = ()  # the static routes OSPF carries to its neighbours
    ospf6_router_id: IPv4Address | None = None  # an OSPFv3 process runs: its router ID
    default_originate6: bool = False
    acls: dict[str, list[AclRule]] = field(default_factory=dict)
    crypto_peers: tuple[IPv4Address, ...] = ()
    access: ManagementAccess = ManagementAccess()
    vtp_mode: str | None = None  # IOS: the device's VTP mode (server where the config is silent)
    system_mtu: int | None = None  # a global `system mtu`: every switchport's and the default SVI MTU
    # why the config cannot be read at all (a line given twice in one section), else None
    unreadable: str | None = None
    # (line number, text): what the reader does not understand; never skipped in silence
    unknown: list[tuple[int, str, str]] = field(default_factory=list)  # (line number, text, why)


_ON_LINK6 = (IPv6Network("fe80::/10"), IPv6Network("::/128"))


def port_sources6(rules: list[AclRule]) -> tuple[IPv6Network, ...] | None:
    """The global sources an IPv6 port ACL permits anything from, in order: its binding (the
    lines for link-local sources and `::` are IPv6's own on the link); None where a permit admits
    any source (no binding at all)."""
    sources: list[IPv6Network] = []
    for rule in rules:
        if rule.action != "permit" or (rule.src is not None and not isinstance(rule.src, IPv6Network)):
            continue
        if rule.src is None:
            return None
        if rule.src not in _ON_LINK6 and rule.src not in sources:
            sources.append(rule.src)
    return tuple(sources)
