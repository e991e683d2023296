"""Representative flows and the offline first-match evaluator of compiled ACLs, shared by
the ACL review (base against head) and the policy check (compiled against intended).

The flow set: one probe address per VLAN subnet (its last host), every host address an ACL
names, one outside address, times every protocol/port a policy names plus an unlisted port
for tcp and udp, plus ping. In IPv6 the same over the dual-stack VLANs' prefixes and the
IPv6 ACLs (each family's ACLs see their own family's flows only).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

from boothnet.derive import DeviceModel
from boothnet.derive.build import quirks
from boothnet.derive.model import Acl, AclEntry
from boothnet.derive.policy import acl_decision
from boothnet.family import ICMP_REPLY, ICMP_TYPES, Family
from boothnet.intent.model import Network

# Probe ports for "any other port": the first not named by either policy.
OTHER_PORT_CANDIDATES = (33333, 44444, 55555, 61000)
# An address outside every booth subnet, for zone:outside rules (TEST-NET-3, RFC 5737).
OUTSIDE_CANDIDATES = ("203.0.113.77", "198.51.100.77", "192.0.2.77")
# Outside every booth prefix in IPv6 (the documentation range's far end, RFC 3849)
OUTSIDE6_CANDIDATES = ("2001:db8:ffff:ffff::77", "2001:db8:fffe:ffff::77")


@lru_cache(maxsize=1 << 16)
def host_net(address: IPv4Address | IPv6Address) -> IPv4Network | IPv6Network:
    """The address as a /32 or /128, as the first-match evaluator takes it. Cached: the same
    few probe addresses meet every ACL on every path, and parsing them again was most of the time."""
    return ip_network(address)


@dataclass(frozen=True)
class Probe:
    src: IPv4Address | IPv6Address  # one family per probe
    dst: IPv4Address | IPv6Address
    proto: str  # tcp, udp or icmp
    port: int | None
    icmp_type: str = "echo-request"  # icmp: the type (a ping unless a rule names others)


@dataclass
class AclView:
    """One ACL as the evaluator sees it: entries, their rendered lines and what traffic it sees."""

    device: str
    acl: Acl
    lines: list[list[str]]  # rendered lines per entry, in entry order
    scope: IPv4Network | IPv6Network | None  # SVI subnet (or prefix): `in` sees flows from it, `out` flows to it

    def sees(self, probe: Probe) -> bool:
        if probe.src.version != self.acl.family:
            return False
        if self.scope is None:
            return True
        return (probe.src if self.acl.direction == "in" else probe.dst) in self.scope

    def decide(self, probe: Probe, via_tunnel: bool) -> tuple[str, str, str | None]:
        """(action, line text, policy rule) for the probe's first packet."""
        src, dst = host_net(probe.src), host_net(probe.dst)
        entry = acl_decision(self.acl.entries, src, dst, probe.proto, probe.port,
                             via_tunnel=via_tunnel, icmp_type=probe.icmp_type)
        if entry is None:
            return "deny", "(no line matches: implicit deny at the end of the ACL)", None
        return entry.action, self._line(entry, probe.port), entry.rule

    def _line(self, entry: AclEntry, port: int | None) -> str:
        lines = self.lines[self.acl.entries.index(entry)]
        # IOS/EOS print one line per destination port; pick the one this probe hit.
        if len(lines) > 1 and len(lines) == len(entry.dst_ports) and port in entry.dst_ports:
            return lines[entry.dst_ports.index(port)]
        return lines[0]


NO_ACL = ("permit", "(no ACL on this interface)", None)


def reply_entry(request: Probe, via_tunnel: bool) -> AclEntry:
    """The replies to `request`'s conversation as one entry (responder -> requester): from the
    service's port, a TCP segment with ACK set (what `established` matches), an echo reply. A
    stateless ACL on the way back must permit them by a line of its own."""
    return AclEntry("permit", request.proto, ip_network(request.dst), ip_network(request.src), "reply",
                    src_port=request.port if request.proto in ("tcp", "udp") else None,
                    established=request.proto == "tcp",
                    icmp_type=ICMP_REPLY.get(request.icmp_type, "echo-reply") if request.proto == "icmp" else None,
                    via_tunnel=via_tunnel)


def acl_views(models: dict[str, DeviceModel], family: Family = Family.V4) -> dict[tuple[str, str], AclView]:
    """The ACLs of one family, by (device, ACL name)."""
    views = {}
    for name, model in models.items():
        q = quirks(model.platform)
        extra = (model.tunnel_match,) if model.platform == "frr_linux" else ()
        ifaces = {i.name: i for i in model.interfaces}
        for acl in (a for a in model.acls if a.family == family):
            iface = ifaces.get(acl.interface)
            address = iface.address_in(family) if iface and iface.kind == "svi" else None
            lines = [q.acl_lines(entry, family, *extra) for entry in acl.entries]
            views[(name, acl.name)] = AclView(name, acl, lines, address.network if address else None)
    return views


def port_acl_views(models: dict[str, DeviceModel]) -> dict[tuple[str, str], AclView]:
    """The IPv6 port ACLs of bound host ports (IOS, EOS), by (device, port): a host's IPv6 meets
    its port's ACL before its gateway's (derive.policy.PortPolicy6)."""
    views = {}
    for name, model in models.items():
        q = quirks(model.platform)
        for acl in model.port_acls6:
            lines = [q.acl_lines(entry, acl.family) for entry in acl.entries]
            views[(name, acl.interface)] = AclView(name, acl, lines, None)
    return views


def _first_free(candidates: Iterable, used: set) -> object:
    return next(c for c in candidates if c not in used)


def family_subnets(nets: Iterable[Network], family: Family = Family.V4) -> set[IPv4Network | IPv6Network]:
    """The VLANs' subnets (IPv4) or prefixes (IPv6, the dual-stack VLANs')."""
    return {prefix for net in nets for vlan in net.vlans if (prefix := vlan.prefix(family)) is not None}


def probe_addresses(nets: Iterable[Network], models: Iterable[dict[str, DeviceModel]],
                    family: Family = Family.V4) -> list[IPv4Address | IPv6Address]:
    """One address per VLAN subnet (its last host), every host address an ACL names, one outside."""
    subnets = family_subnets(list(nets), family)
    addrs = {subnet.broadcast_address - 1 for subnet in subnets}
    host = Family(family).max_prefixlen  # a plain 4 or 6 too
    for model_set in models:
        for model in model_set.values():
            for acl in model.acls:
                for entry in acl.entries:
                    addrs |= {p.network_address for p in (entry.src, entry.dst)
                              if p is not None and p.version == family and p.prefixlen == host}
    candidates = {Family.V4: OUTSIDE_CANDIDATES, Family.V6: OUTSIDE6_CANDIDATES}[family]
    outside = next(a for a in map(ip_address, candidates) if not any(a in s for s in subnets))
    return sorted(addrs | {outside})


def probe_services(nets: Iterable[Network]) -> list[tuple[str, int | None]]:
    """Every (protocol, port) either policy names, plus an unlisted port for tcp and udp, plus ping."""
    rules = [rule for net in nets for rule in net.policy.rules]
    other = int(_first_free(OTHER_PORT_CANDIDATES, {p for r in rules for p in r.ports}))  # type: ignore[call-overload]  # ports are ints
    services: set[tuple[str, int | None]] = {("tcp", other), ("udp", other), ("icmp", None)}
    for rule in rules:
        if rule.proto in ("tcp", "udp"):
            services |= {(rule.proto, p) for p in rule.ports} or {(rule.proto, other)}
    return sorted(services, key=lambda s: (s[0], s[1] or 0))


def probe_icmp_types(nets: Iterable[Network], family: Family) -> list[str]:
    """The ICMP types beyond ping a flow set probes: every type a rule names in this family, and,
    when a rule names any, one it names nowhere (every rule's types must leave the rest alone).
    A flow is its first packet: a reply type (echo-reply) opens nothing, and a stateless ACL lets
    it back for every request it permits, whatever a later rule says of it, so it is not probed."""
    replies = set(ICMP_REPLY.values())
    named = {t for net in nets for rule in net.policy.rules for t in rule.icmp_types
             if rule.proto == "icmp" and family in ICMP_TYPES.get(t, {})}
    if not named:
        return []
    other = next(t for t in ICMP_TYPES if family in ICMP_TYPES[t] and t not in named | replies | {"echo-request"})
    return sorted((named | {other}) - replies - {"echo-request"})


def probes(nets: list[Network], models: list[dict[str, DeviceModel]], family: Family = Family.V4) -> list[Probe]:
    addrs = probe_addresses(nets, models, family)
    subnets = family_subnets(nets, family)
    services = probe_services(nets)
    out = []
    for src in addrs:
        for dst in addrs:
            # Same address or same subnet: switched inside the VLAN, never reaches an ACL.
            if src == dst or any(src in s and dst in s for s in subnets):
                continue
            out += [Probe(src, dst, proto, port) for proto, port in services]
    return out


def tunnel_pairs(nets: list[Network]) -> list[tuple[IPv4Network, IPv4Network]]:
    """(booth, home) subnet pairs of each VPN, both ways: their traffic crosses the tunnel."""
    pairs = []
    for net in nets:
        if net.vpn:
            booth = [v.subnet for v in net.selected_vlans(net.vpn.booth_subnets)]
            home = [v.subnet for v in net.selected_vlans(net.vpn.home_subnets)]
            pairs += [(b, h) for b in booth for h in home] + [(h, b) for b in booth for h in home]
    return pairs
