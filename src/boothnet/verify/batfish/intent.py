"""What the Batfish checks need to know about the intent, and nothing more.

`VerifyIntent` decouples verification from the full intent model: the model's
`verify_intent_from_model(model)` (written beside the intent model) fills it,
and tests build it by hand for the recorded snapshots.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from itertools import permutations

# Protocol names as used in Batfish flows (Flow.ipProtocol) and HeaderConstraints.
ANY_PROTO = "ip"


@dataclass(frozen=True)
class OpeningPacket:
    """A packet that starts a conversation; `tcp_syn_only` means SYN set and every other flag clear."""

    name: str
    ip_protocol: str
    tcp_syn_only: bool = False
    icmp_type: int | None = None

    def matches(self, proto: str | None, tcp_syn: bool | None, tcp_ack: bool | None,
                tcp_rst: bool | None, icmp_type: int | None) -> bool:
        if (proto or "").upper() != self.ip_protocol:
            return False
        if self.tcp_syn_only:
            return bool(tcp_syn) and not tcp_ack and not tcp_rst
        return self.icmp_type is None or icmp_type == self.icmp_type


# Isolation means one zone cannot open a conversation with the other: no TCP SYN (without ACK),
# no UDP datagram, no ICMP echo request. Return traffic of a permitted flow (TCP with ACK, which
# stateless `established` lines match, or echo replies) is not a breach. verify, the ACL review
# and validate all use this one definition.
OPENING_PACKETS: tuple[OpeningPacket, ...] = (
    OpeningPacket("TCP SYN", "TCP", tcp_syn_only=True),
    OpeningPacket("UDP", "UDP"),
    OpeningPacket("ICMP echo request", "ICMP", icmp_type=8),
)


def opening_packet(proto: str) -> OpeningPacket:
    """The opening packet of a conversation in `proto` (tcp, udp or icmp)."""
    return next(p for p in OPENING_PACKETS if p.ip_protocol == proto.upper())


def is_opening(proto: str | None, tcp_syn: bool | None = None, tcp_ack: bool | None = None,
               tcp_rst: bool | None = None, icmp_type: int | None = None) -> bool:
    """True when a packet with these fields starts a conversation (see OPENING_PACKETS)."""
    return any(p.matches(proto, tcp_syn, tcp_ack, tcp_rst, icmp_type) for p in OPENING_PACKETS)


@dataclass(frozen=True)
class PolicyQuery:
    """Representative flows (every source x destination x port here) that one ACL must decide
    as the intent does, all alike: one searchFilters question for the opposite decision finds
    any that differ."""

    node: str
    acl: str
    proto: str  # tcp, udp or icmp: its opening packet
    action: str  # what the intent decides for each of them
    srcs: tuple[str, ...]
    dsts: tuple[str, ...]
    ports: tuple[int, ...]  # none: icmp, or every port (never for tcp/udp: the flows name theirs)
    rules: dict[tuple[str, str, int | None], str] = field(hash=False, compare=False)  # the deciding rule
    # the replies of permitted flows (srcs: the responders, dsts: the requesters, ports: the
    # services' ports, their source ports): an ACL on their way back must permit them
    reply: bool = False

    def rule_for(self, src: str, dst: str, port: int | None) -> str:
        return self.rules.get((src, dst, port), "?")


@dataclass(frozen=True)
class IfaceRef:
    """One interface on one node, as Batfish names them (`node[interface]`)."""

    node: str
    interface: str

    def spec(self) -> str:
        return f"{self.node}[{self.interface}]"

    def __str__(self) -> str:
        return self.spec()


@dataclass(frozen=True)
class SwitchVlans:
    """A switch and the VLAN ids it must carry."""

    node: str
    vlans: tuple[int, ...]


@dataclass(frozen=True)
class AcceptedUnused:
    """A structure Batfish calls unused although the device uses it, and why."""

    node: str
    structure_type: str  # as Batfish's unusedStructures names it, e.g. "crypto-map-set"
    name: str
    reason: str


@dataclass(frozen=True)
class L1Link:
    """A cable between two interfaces; `mtu` is the MTU the intent wants on both ends."""

    a: IfaceRef
    b: IfaceRef
    mtu: int | None = None


@dataclass(frozen=True)
class Service:
    """A protocol and its destination ports (empty ports: every port of that protocol)."""

    proto: str = ANY_PROTO
    ports: tuple[int, ...] = ()

    def matches(self, proto: str | None, port: int | None) -> bool:
        if self.proto.lower() != ANY_PROTO and (proto or "").lower() != self.proto.lower():
            return False
        return not self.ports or (port is not None and port in self.ports)

    def __str__(self) -> str:
        if not self.ports:
            return "any" if self.proto.lower() == ANY_PROTO else f"{self.proto.lower()}/any"
        return ",".join(f"{self.proto.lower()}/{p}" for p in self.ports)


@dataclass(frozen=True)
class ServiceRule:
    """A service the intent allows from one prefix to another."""

    src: str
    dst: str
    service: Service = Service()

    def allows(self, src_ip: str, dst_ip: str, proto: str | None, port: int | None) -> bool:
        return (
            ip_in(src_ip, (self.src,))
            and ip_in(dst_ip, (self.dst,))
            and self.service.matches(proto, port)
        )


@dataclass(frozen=True)
class Zone:
    """A security zone: its prefixes and where its hosts enter the network."""

    name: str
    prefixes: tuple[str, ...]
    # Interfaces the zone's hosts sit behind (e.g. core1[Vlan110]); reachability starts there.
    entries: tuple[IfaceRef, ...] = ()


@dataclass(frozen=True)
class SecureNetwork:
    """The secured home network: only `clients` may reach `prefixes`, only with `services`."""

    prefixes: tuple[str, ...]
    clients: tuple[str, ...]
    services: tuple[Service, ...] = ()  # empty: any service from a listed client
    # The ACL that guards it (node, filter name); empty: every filter on every node.
    guard_node: str | None = None
    guard_filter: str | None = None

    def allows(self, src_ip: str, proto: str | None, port: int | None) -> bool:
        if not ip_in(src_ip, self.clients):
            return False
        return not self.services or any(s.matches(proto, port) for s in self.services)


@dataclass(frozen=True)
class PathFlow:
    """A declared flow whose path MTU must be at least `min_mtu`."""

    name: str
    src_node: str
    src_ip: str
    dst_ip: str
    min_mtu: int
    # The interface the flow enters `src_node` on (its MTU counts for the path too).
    src_interface: str | None = None
    proto: str = "tcp"
    dst_port: int | None = None
    # Interfaces where TCP MSS clamping must be configured (because the MTU drops there).
    mss_clamp_at: tuple[IfaceRef, ...] = ()


@dataclass(frozen=True)
class AclBinding:
    """An ACL applied to an interface ("in" or "out")."""

    iface: IfaceRef
    acl: str
    direction: str = "in"


@dataclass(frozen=True)
class VerifyIntent:
    """Everything the Batfish checks derive their expectations from."""

    nodes: tuple[str, ...] = ()
    switches: tuple[SwitchVlans, ...] = ()
    links: tuple[L1Link, ...] = ()
    zones: tuple[Zone, ...] = ()
    # Ordered (src zone, dst zone) pairs that must not talk except through allowed_services.
    # Empty: every ordered pair of distinct zones is isolated.
    isolated: tuple[tuple[str, str], ...] = ()
    allowed_services: tuple[ServiceRule, ...] = ()
    secure: SecureNetwork | None = None
    vpn_gateways: tuple[tuple[str, str], ...] = ()
    flows: tuple[PathFlow, ...] = ()
    routes: tuple[PathFlow, ...] = ()  # each declared path there and back: a route all the way
    acl_interfaces: tuple[AclBinding, ...] = ()
    # Structures Batfish reports unused that the intent asked for, with the reason it is fine.
    accepted_unused: tuple[AcceptedUnused, ...] = ()
    policy: tuple[PolicyQuery, ...] = ()  # every representative flow at every ACL on its path
    extra: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(f"unknown zone {name!r}; intent has {[z.name for z in self.zones]}")

    def isolated_pairs(self) -> list[tuple[Zone, Zone]]:
        if self.isolated:
            return [(self.zone(a), self.zone(b)) for a, b in self.isolated]
        return list(permutations(self.zones, 2))

    def zone_of(self, ip: str) -> Zone | None:
        """The zone whose prefix holds `ip` most specifically."""
        best: tuple[int, Zone] | None = None
        for z in self.zones:
            for p in z.prefixes:
                net = ipaddress.ip_network(p, strict=False)
                if _addr(ip) in net and (best is None or net.prefixlen > best[0]):
                    best = (net.prefixlen, z)
        return best[1] if best else None

    def service_allowed(
        self, src_ip: str, dst_ip: str, proto: str | None, port: int | None
    ) -> bool:
        return any(r.allows(src_ip, dst_ip, proto, port) for r in self.allowed_services)

    def is_isolated(self, src: Zone, dst: Zone) -> bool:
        return any(a.name == src.name and b.name == dst.name for a, b in self.isolated_pairs())


def _addr(ip: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(ip.split("/")[0])


def ip_in(ip: str, prefixes: tuple[str, ...] | list[str]) -> bool:
    """True when `ip` lies in any of `prefixes` (host addresses count as /32)."""
    a = _addr(ip)
    return any(a in ipaddress.ip_network(p, strict=False) for p in prefixes)
