"""The derived per-device model: everything a template prints, already computed."""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, IPv6Address, IPv6Interface, IPv6Network
from typing import Literal

from boothnet.family import Family


@dataclass(frozen=True)
class AclEntry:
    action: Literal["permit", "deny"]
    proto: str
    src: IPv4Network | IPv6Network | None  # None = any; an ACL holds one family
    dst: IPv4Network | IPv6Network | None
    rule: str  # the policy rule it comes from, or "default"
    dst_ports: tuple[int, ...] = ()
    src_port: int | None = None
    established: bool = False  # TCP `established` match
    return_traffic: bool = False  # only stateless ACLs need it (stateful_acls false); stateful ones track connections
    icmp_type: str | None = None
    via_tunnel: bool = False  # only when it arrived through the VPN
    log: bool = False
    seq: int = 0


@dataclass
class Acl:
    name: str
    direction: Literal["in", "out"]
    interface: str
    entries: list[AclEntry]
    lines: list[str] = field(default_factory=list)  # platform syntax, filled by the platform
    family: Family = Family.V4
    family_match: str = ""  # frr_linux on a dual-stack device: each family jumps to its own ACLs only


# What a bound port admits in IPv6 besides its host's addresses: link-local sources (neighbour
# discovery, router solicitations; never routed) and, for ICMPv6, the unspecified address
# (duplicate address detection, RFC 4862)
LINK_LOCAL6 = IPv6Network("fe80::/10")
UNSPECIFIED6 = IPv6Network("::/128")


@dataclass(frozen=True)
class PortBinding:
    """A host port bound to its host: frames from another MAC, IPv4 from another address, and in a
    dual-stack VLAN IPv6 from another source, dropped. From the intent each is one; a config read
    back may leave any open (None) or, for the addresses, admit none (an IP source guard without a
    binding). IOS and EOS bind IPv6 with a port ACL (``acl6``; EOS has no IPv6 source guard, and
    IOS's needs snooping policies a static booth does not run) that carries the port's whole IPv6
    policy (``derive.policy.PortPolicy6``): its sources are the host's MAC's prefix where the
    VLAN's hosts take SLAAC, its address where they are static (``Network.bound_sources``)."""

    vlan: int
    macs: tuple[str, ...] | None  # lower-case colon form; None: any MAC
    addresses: tuple[IPv4Address, ...] | None  # None: any IPv4 source
    sources6: tuple[IPv6Network, ...] | None = None  # None: any IPv6 source
    acl6: str | None = None  # IOS and EOS: the IPv6 port ACL that binds sources6
    acl6_entries: tuple[AclEntry, ...] = ()  # its lines: the binding and the port's policy
    # a lab stand-in runs the port ACL's every line at the port (boothnet.lab.standin); where its
    # switch's port ACL replaces the SVI's for the port's traffic, what it admits skips the SVI's
    runs_acl6: bool = False
    replaces_svi_acl: bool = False
    # a frame from another MAC: dropped (restrict, protect), or the port err-disabled (shutdown)
    violation: str = "restrict"

    @property
    def dotted_macs(self) -> list[str]:
        """The MACs as IOS and EOS write them: 0200.5e10.3012."""
        digits = [mac.replace(":", "") for mac in self.macs or ()]
        return [".".join(d[i:i + 4] for i in range(0, 12, 4)) for d in digits]


@dataclass
class Interface:
    name: str
    # unused: a port the switch model has and nothing is cabled to: an access port, shut
    kind: Literal["access", "trunk", "routed", "svi", "bridge_member", "unused"]
    description: str
    mtu: int
    speed: int | None = None
    vlan: int | None = None  # access
    allowed_vlans: list[int] = field(default_factory=list)  # trunk
    address: IPv4Interface | None = None
    address6: IPv6Interface | None = None
    # a VLAN gateway's router advertisements: its hosts take SLAAC, or static addresses (the
    # prefix advertised without the autonomous flag); None: no advertisements from here
    ra: Literal["slaac", "static"] | None = None
    acl_in: str | None = None
    acl_out: str | None = None
    acl6_in: str | None = None
    acl6_out: str | None = None
    mss_clamp: int | None = None
    bridge: str | None = None  # frr_linux: the VLAN bridge this port belongs to
    ospf: OspfInterface | None = None  # set when OSPF covers it: its timers print on the interface
    ospf6: OspfInterface | None = None  # set when OSPFv3 covers it (an interface with an IPv6 address)
    shutdown: bool = False  # an unused switch port, or a lab stand-in whose vendor config shuts it
    binding: PortBinding | None = None  # access: its host's MAC and address, in a VLAN with bind_hosts
    edge: bool = False  # a host's access port on a switch: spanning tree forwards at once (portfast)
    # IOS/EOS: the `mtu` line it prints, None for none (the switch's default or its system MTU)
    mtu_command: int | None = None

    def address_in(self, family: Family) -> IPv4Interface | IPv6Interface | None:
        """Its address in ``family`` (None: none)."""
        return self.address if family == Family.V4 else self.address6

    def acl(self, family: Family, direction: str) -> str | None:
        """The ACL bound in ``family`` and ``direction`` (None: none)."""
        return getattr(self, ACL_FIELDS[(family, direction)])

    def bind_acl(self, family: Family, direction: str, name: str) -> None:
        setattr(self, ACL_FIELDS[(family, direction)], name)


# the Interface field naming each family's ACL in each direction (the templates print the fields)
ACL_FIELDS = {(Family.V4, "in"): "acl_in", (Family.V4, "out"): "acl_out",
              (Family.V6, "in"): "acl6_in", (Family.V6, "out"): "acl6_out"}


@dataclass
class VlanL2:
    id: int
    name: str
    mtu: int


@dataclass
class Route:
    prefix: IPv4Network | IPv6Network
    next_hop: IPv4Address | IPv6Address | str  # an address, a device (a route into a TUN tunnel) or "blackhole"
    description: str
    distance: int | None = None  # administrative distance; None: the platform default


@dataclass(frozen=True)
class OspfInterface:
    name: str
    passive: bool
    hello: int
    dead: int


@dataclass
class Ospf:
    router_id: IPv4Address
    area: int
    hello: int
    dead: int
    interfaces: list[OspfInterface]
    networks: list[IPv4Network]
    default_originate: bool
    redistribute: list[IPv4Network]  # static prefixes to announce
    default_originate6: bool = False  # OSPFv3's default route (the uplink has an IPv6 next hop)
    interfaces6: list[OspfInterface] = field(default_factory=list)  # OSPFv3's; none: no OSPFv3 process
    # the adjacencies the intent implies: (interface, neighbour device, its address there)
    neighbors: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def area_dotted(self) -> str:
        """The area as EOS prints it back (`0.0.0.0`): a template that prints it so reads as the device."""
        return str(IPv4Address(self.area))


@dataclass
class VpnPeer:
    name: str
    local_address: IPv4Address
    remote_address: IPv4Address
    local_subnets: list[IPv4Network]
    remote_subnets: list[IPv4Network]
    ike_proposals: list[str]
    esp_proposals: list[str]
    dpd_delay_s: int
    rekey_time_s: int
    psk_env: str
    inner_mtu: int  # what this device's tunnel carries: the intent's, or less where the backend caps it
    intent_inner_mtu: int
    mss: int
    outside_interface: str
    initiator: bool
    udp_encapsulation: bool
    ike_hash: str = "sha256"  # IOS `crypto isakmp policy` hash keyword (see DeriveContext.batfish_view)
    ike_key: str = ""  # IOS `crypto isakmp key`: the ${psk_env} placeholder (Batfish view: its name)


@dataclass(frozen=True)
class SwitchForms:
    """What the switch's profile (platforms/profiles/) says its config prints."""

    model: str
    release: str
    system_mtu: int | None  # a switch without per-port MTU: its global `system mtu`; else None
    trunk_encapsulation: bool  # ISL-capable Catalysts need `switchport trunk encapsulation dot1q`
    source_guard: str | None  # the IP source guard line of a bound port
    vtp: str | None  # `vtp mode <it>`: transparent keeps the VLANs in the running config
    stp_mode: str
    edge_command: str  # a host port's spanning-tree edge line
    # how a switchport's ACL and its VLAN's SVI ACL compose for that port's routed traffic: the
    # port ACL replaces the SVI's, both apply, or the vendor's text leaves it unsettled
    port_acl_over_svi: str = "unsettled"
    # a frame from another MAC on a secured port: restrict/protect drop it, shutdown err-disables the port
    port_security_violation: str = "restrict"


@dataclass(frozen=True)
class ManagementPlane:
    """The way in that deploy and validate-hw use: in every IOS/EOS config, so a full replace
    keeps it (docs/deploy.md)."""

    user: str
    secret: str  # the ${NAME} placeholder of its secret hash, filled at deploy
    domain: str
    vrf: str | None  # the management port's VRF (Catalyst: Mgmt-vrf)
    gateway: IPv4Address | None  # a default route in that VRF


@dataclass
class DeviceModel:
    name: str
    platform: str
    role: str
    managed: bool
    mgmt_interface: str
    mgmt_address: IPv4Interface
    vlans: list[VlanL2]
    interfaces: list[Interface]
    acls: list[Acl]
    routes: list[Route]
    ospf: Ospf | None
    vpn: VpnPeer | None
    # frr_linux only: iproute2 batch statements and the nftables rule text per ACL chain
    linux_statements: list[str] = field(default_factory=list)
    tunnel_match: str = "meta ipsec exists"
    leak_guard: list[str] = field(default_factory=list)  # frr_linux VPN gateways, first in forward
    port_filter: list[str] = field(default_factory=list)  # frr_linux: its bound ports' bridge filter
    port_errdisable: bool = False  # frr_linux: a bound port err-disables on a violation (a stand-in's)
    port_acls6: list[Acl] = field(default_factory=list)  # IOS, EOS: its bound ports' IPv6 port ACLs
    uplink_interface: str | None = None
    # routes between its interfaces (IPv4 unicast routing on); EOS and Catalyst IOS switches
    # ship with it off, so a device that routes must say so
    ip_routing: bool = False
    ipv6_routing: bool = False  # IOS and EOS route IPv6 only with `ipv6 unicast-routing`
    switch: SwitchForms | None = None  # an IOS/EOS switch of a known model (not a Batfish or lab stand-in)
    management: ManagementPlane | None = None
    # its ACLs track connections (the platform's `stateful_acls`); a lab stand-in takes the value of
    # the device it stands in for: IOS and EOS ACLs are stateless, so a reply needs a line of its own
    stateful_acls: bool = True

    @property
    def ipv6_unrouted(self) -> bool:
        """IPv6 addresses but no IPv6 routing (a stand-in whose config leaves it off)."""
        return not self.ipv6_routing and any(i.address6 for i in self.interfaces)

    @property
    def bound_ports(self) -> list[Interface]:
        """Its host ports bound to their hosts, in port order."""
        return [i for i in self.interfaces if i.binding is not None]

    @property
    def bound_vlans(self) -> list[int]:
        """The VLANs its bound ports are in (IOS snoops DHCP there: IP source guard needs it)."""
        return sorted({i.binding.vlan for i in self.bound_ports if i.binding is not None})
