"""One policy, both families: on a dual-stack intent, for every representative flow, each VLAN's
IPv6 ACL decides as its IPv4 ACL does (a rule written with zones, VLANs, groups or `any` names
no family), and nothing enters the secured network in IPv6 (the VPN's tunnel carries IPv4 only).

The flows: from every representative host of a dual-stack VLAN (each host a group names, and one
address no group names: every other host is decided as it is) to every representative host of
every other dual-stack VLAN and one outside address, for every service the policy names
(verify.flows.probe_services).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

from boothnet.derive.model import AclEntry
from boothnet.derive.policy import PortPolicy6, acl_decision, compiler_of
from boothnet.family import Family
from boothnet.intent.model import Network, Vlan, acl_name
from boothnet.verify.flows import OUTSIDE6_CANDIDATES, OUTSIDE_CANDIDATES, probe_services

Pair = tuple[str, IPv4Address, IPv6Address]  # (who, IPv4 address, IPv6 address)


@dataclass(frozen=True)
class FamilyMismatch:
    acl: str
    flow: str
    ipv4: str  # "permit by <rule>"
    ipv6: str

    def __str__(self) -> str:
        return f"{self.acl}: {self.flow}: IPv4 {self.ipv4}, IPv6 {self.ipv6}"


@dataclass
class VlanAcls:
    """A dual-stack VLAN's inbound ACLs in both families, and for the secured network its outbound."""

    vlan: Vlan
    inbound: dict[Family, list[AclEntry]]
    outbound6: list[AclEntry] | None = None  # the secured network's: it admits nothing in IPv6
    # a VLAN that binds its hosts: each host's port ACL, met before the SVI's (IPv6's: PortPolicy6;
    # IPv4 binds by IP source guard, no port ACL)
    ports: dict[Family, dict[str, list[AclEntry]]] = field(default_factory=dict)


def vlan_acls(net: Network) -> list[VlanAcls]:
    """The ACLs the compilers give each dual-stack VLAN whose gateway filters it (no routers on it)."""
    v4, v6 = compiler_of(net), compiler_of(net, Family.V6)
    found = []
    for vlan in net.vlans:
        if vlan.ipv6 is None or vlan.routers:
            continue
        ports6 = {e.name: PortPolicy6(net, e, sources).entries() for e in net.endpoints.values()
                  if e.vlan == vlan.name and (sources := net.bound_sources(e, Family.V6))}
        found.append(VlanAcls(vlan, {Family.V4: v4.inbound(vlan), Family.V6: v6.inbound(vlan)},
                              v6.outbound_secure(vlan) if vlan.zone == "secure" else None, {Family.V6: ports6}))
    return found


def _hosts(net: Network, vlan: Vlan, named: set[str]) -> list[Pair]:
    assert vlan.ipv6 is not None
    pairs: list[Pair] = []
    for name in sorted(named):
        endpoint = net.endpoints.get(name)
        address6 = net.endpoint_address(endpoint, Family.V6) if endpoint else None
        if endpoint is not None and endpoint.vlan == vlan.name and address6 is not None:
            pairs.append((name, endpoint.address, address6))
    if vlan.bind_hosts:
        # every host port of it is bound: a named host's, or another's (the first that is not)
        other = next((e for e in sorted(net.endpoints.values(), key=lambda e: e.name)
                      if e.vlan == vlan.name and e.name not in named and net.endpoint_address(e, Family.V6)), None)
        if other is not None:
            pairs.append((other.name, other.address, net.endpoint_address(other, Family.V6)))  # type: ignore[arg-type]  # found with an IPv6 address above
        return pairs
    # an address no endpoint holds: what a rule naming hosts must not admit
    pairs.append((f"another host in {vlan.name}", vlan.subnet.broadcast_address - 1,
                  vlan.ipv6.prefix.broadcast_address - 1))
    return pairs


def _outside(net: Network) -> Pair:
    internal4 = [v.subnet for v in net.vlans]
    internal6 = [v.ipv6.prefix for v in net.vlans if v.ipv6 is not None]
    four = next(IPv4Address(a) for a in OUTSIDE_CANDIDATES if not any(IPv4Address(a) in s for s in internal4))
    six = next(IPv6Address(a) for a in OUTSIDE6_CANDIDATES if not any(IPv6Address(a) in p for p in internal6))
    return "outside", four, six


def _said(entries: list[AclEntry], src: IPv4Network | IPv6Network, dst: IPv4Network | IPv6Network, proto: str,
          port: int | None) -> tuple[str, str]:
    line = acl_decision(entries, src, dst, proto, port)
    return ("deny", "the implicit deny") if line is None else (line.action, f"{line.rule} (seq {line.seq})")


def _decided(source: VlanAcls, host: str, src: IPv4Network | IPv6Network, dst: IPv4Network | IPv6Network,
             proto: str, port: int | None) -> tuple[str, str]:
    """The decision for a flow from ``host`` (at ``src``, in its family): its port's ACL first
    where it has one (what that denies, the SVI never sees), then its VLAN's SVI ACL."""
    family = Family(src.version)
    port_acl = source.ports.get(family, {}).get(host)
    if port_acl is not None:
        at_port = _said(port_acl, src, dst, proto, port)
        if at_port[0] == "deny":
            return "deny", f"{at_port[1]} at its port"
    return _said(source.inbound[family], src, dst, proto, port)


def family_mismatches(net: Network, acls: list[VlanAcls] | None = None) -> list[FamilyMismatch]:
    """Every flow whose IPv6 decision differs from its IPv4 one, and every IPv6 flow the secured
    network's outbound ACL admits; [] when both families say the same."""
    acls = vlan_acls(net) if acls is None else acls
    services = probe_services([net])
    by_vlan = {a.vlan.name: a for a in acls}
    named = {m for members in net.host_groups.values() for m in members}
    hosts = {a.vlan.name: _hosts(net, a.vlan, named) for a in acls}
    outside = _outside(net)
    found: list[FamilyMismatch] = []
    for source in acls:
        for name, dst_hosts in [*hosts.items(), ("outside", [outside])]:
            if name == source.vlan.name:
                continue  # switched inside the VLAN: never meets its gateway's ACL
            for src in hosts[source.vlan.name]:
                src4, src6 = IPv4Network(src[1]), IPv6Network(src[2])
                for dst in dst_hosts:
                    dst4, dst6 = IPv4Network(dst[1]), IPv6Network(dst[2])
                    for proto, port in services:
                        flow = f"{proto}{f'/{port}' if port else ''} {src[0]} -> {dst[0]}"
                        v4 = _decided(source, src[0], src4, dst4, proto, port)
                        v6 = _decided(source, src[0], src6, dst6, proto, port)
                        if v4[0] != v6[0]:
                            found.append(FamilyMismatch(acl_name(source.vlan, "in", Family.V6), flow,
                                                        f"{v4[0]} by {v4[1]}", f"{v6[0]} by {v6[1]}"))
                        into = by_vlan.get(name)
                        if into is not None and into.outbound6 is not None:
                            admitted = _said(into.outbound6, src6, dst6, proto, port)
                            if admitted[0] == "permit":
                                found.append(FamilyMismatch(
                                    acl_name(into.vlan, "out", Family.V6), flow, "through the VPN's tunnel only",
                                    f"permit by {admitted[1]} (the tunnel carries IPv4 only: nothing enters the "
                                    "secured network in IPv6)"))
    return found
