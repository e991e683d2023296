"""Compile the ordered zone policy into ACL entries per VLAN interface and direction.

First match wins. Stateless platforms also get return-traffic entries (`established`,
echo-reply) at the top; stateful ones (nftables) accept established flows instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from ipaddress import IPv4Network, IPv6Network, collapse_addresses
from typing import Any, Generic, Literal, TypeVar, cast, overload

from boothnet.derive.model import LINK_LOCAL6, UNSPECIFIED6, AclEntry
from boothnet.family import ICMP_REPLY, Family
from boothnet.intent.model import Endpoint, Network, Prefixes, Rule, Vlan, acl_name
from boothnet.intent.prefix_index import PrefixIndex

__all__ = ["PolicyCompiler", "compiler_of", "Prefixes", "acl_name", "acl_decision", "policy_decision"]

Prefix = IPv4Network | IPv6Network
# the compiler's family's prefix type: IPv4Network or IPv6Network (one family per compiler)
P = TypeVar("P", bound=IPv4Network | IPv6Network)
# ICMPv6 an IPv6 ACL permits before any rule (RFC 4890): Packet Too Big, neighbour and router discovery
ROUTER_ADVERTISEMENT = "router-advertisement"
ESSENTIAL_ICMPV6 = ("packet-too-big", "nd-ns", "nd-na", "router-solicitation", "router-advertisement")
# what each family cannot live without, before any rule (IPv4: nothing)
ESSENTIAL_ICMP: dict[Family, tuple[str, ...]] = {Family.V4: (), Family.V6: ESSENTIAL_ICMPV6}
# the families the VPN's tunnel carries: nothing enters the secured network in another
TUNNEL_FAMILIES = (Family.V4,)
NO_IPV6_INTO_SECURE = "the secured network takes no IPv6 (its VPN tunnel carries IPv4 only)"


def _collapse(prefixes: Iterable[P]) -> list[P]:
    """collapse_addresses over one family's prefixes (typeshed's takes one concrete type)."""
    one_family: list[Any] = list(prefixes)
    return list(collapse_addresses(one_family))


class PolicyCompiler(Generic[P]):
    """The ordered zone policy compiled in one address family. A rule written with zones, VLANs,
    groups or `any` decides IPv6 as it decides IPv4, line for line, over the VLANs' IPv6
    prefixes; a VLAN without IPv6 holds no IPv6 address, so a rule's part there is empty. The
    VPN's tunnel carries IPv4 only, so nothing enters the secured network in IPv6."""

    def __init__(self, net: Network, family: Family = Family.V4):
        self.net, self.family = net, Family(family)
        self.internal: list[P] = _collapse(cast(P, p) for v in net.vlans if (p := v.prefix(self.family)) is not None)
        self.vpn_sources = self._vpn_booth_prefixes()
        # A show floor has a rule or two per booth and a VLAN or two per booth: each VLAN's
        # ACL looks only at the rules that can touch it, and each selector's prefixes are
        # collapsed once, so compiling every ACL stays linear instead of VLANs x rules.
        self._prefixes: dict[str, list[P | None]] = {}
        self._rule_index = self._index_rules()
        self._default_rule = Rule.model_validate(
            {"name": "default", "from": "any", "to": "any", "action": net.policy.default_action})

    def _vpn_booth_prefixes(self) -> list[P]:
        vpn = self.net.vpn
        if vpn is None or self.family not in TUNNEL_FAMILIES:
            return []
        return cast(list[P], [vlan.subnet for vlan in self.net.selected_vlans(vpn.booth_subnets)])  # IPv4: the tunnel's

    def _index_rules(self) -> dict[str, list[int]]:
        """Rule positions by what their selectors reach: "*", "zone:<z>" or "vlan:<name>"."""
        index: dict[str, list[int]] = {}
        for position, rule in enumerate(self.net.policy.rules):
            keys: set[str] = set()
            for selector in (rule.source, rule.destination):
                kind, _, name = selector.partition(":")
                if selector == "any":
                    keys.add("*")
                elif kind in ("zone", "vlan"):
                    keys.add(selector)
                elif kind == "group":
                    members = self.net.host_groups.get(name, [])
                    keys.update(f"vlan:{self.net.endpoints[m].vlan}" for m in members)
            for key in keys:
                index.setdefault(key, []).append(position)
        return index

    def rules_for(self, vlan: Vlan) -> list[Rule]:
        """The rules, in policy order, whose source or destination has a part in this VLAN."""
        index = self._rule_index
        found = index.get("*", []) + index.get(f"zone:{vlan.zone}", []) + index.get(f"vlan:{vlan.name}", [])
        rules = self.net.policy.rules
        return [rules[position] for position in sorted(set(found))]

    def subnet(self, vlan: Vlan) -> P:
        """The VLAN's prefix in the family compiled."""
        prefix = vlan.prefix(self.family)
        assert prefix is not None  # only a VLAN with a prefix in the family has its ACLs compiled in it
        return cast(P, prefix)  # the compiler's family

    def prefixes(self, selector: str) -> list[P | None]:
        if selector not in self._prefixes:
            self._prefixes[selector] = cast(list[P | None], self.net.selector_prefixes(selector, self.family))
        return list(self._prefixes[selector])

    def part_in(self, selector: str, vlan: Vlan) -> list[P]:
        """The part of a selector that lives in this VLAN (none where the VLAN has no prefix in
        the family: it holds no address of it)."""
        if vlan.prefix(self.family) is None:
            return []
        kind, _, name = selector.partition(":")
        if selector == "any" or (kind == "zone" and name == vlan.zone) or (kind == "vlan" and name == vlan.name):
            return [self.subnet(vlan)]
        if kind == "group":
            members = [self.net.endpoints[m] for m in self.net.host_groups.get(name, [])]
            return cast(list[P], [self.family.host(address) for m in members if m.vlan == vlan.name
                                  and (address := self.net.endpoint_address(m, self.family)) is not None])
        return []

    def _bound(self, members: Iterable[Endpoint]) -> list[P]:
        """The sources wider than one address that bind these hosts' ports (IPv6 in a SLAAC
        VLAN: the prefix, on a port that admits the host's MAC only; IPv4 binds the address)."""
        return cast(list[P], [p for m in members for p in self.net.bound_sources(m, self.family) or ()
                              if p.prefixlen < self.family.max_prefixlen])

    def sources_in(self, rule: Rule, vlan: Vlan) -> list[P]:
        """The sources in this VLAN whose flows the rule's lines match at its gateway. A permit
        for listed hosts whose ports bind them by MAC and prefix (IPv6 SLAAC: their addresses
        are theirs to choose) matches the VLAN's prefix at the gateway: each port's own ACL
        (``PortPolicy6``) admits only its host's flows, so the gateway's line must not deny a
        listed host's temporary address, under either reading of how a port ACL and an SVI ACL
        compose (docs/intent.md). A deny keeps the hosts' own addresses."""
        sources = self.part_in(rule.source, vlan)
        if rule.action != "permit" or not rule.source.startswith("group:"):
            return sources
        members = [self.net.endpoints[m] for m in self.net.host_groups.get(rule.source.partition(":")[2], [])]
        bound = self._bound(m for m in members if m.vlan == vlan.name)
        if not bound:
            return sources
        rest = [s for s in sources if not any(_within(s, b) for b in bound)]
        return _collapse([*bound, *rest])

    def _forward(self, rule: Rule, sources: Iterable[P], vlan: Vlan, destinations: list[P | None]) -> list[AclEntry]:
        ports = tuple(rule.ports)
        return [
            AclEntry(rule.action, rule.proto, src, dst, rule.name, dst_ports=ports, icmp_type=kind)
            for src in sources
            for dst in destinations
            for kind in rule.icmp_types_in(self.family)  # one line per ICMP type the rule names
            if dst is None or not _within(dst, self.subnet(vlan))  # inside the VLAN: never reaches the router
        ]

    def _internal_part(self, selector: str) -> list[P | None]:
        """The booth and home addresses a destination selector stands for."""
        if selector == "zone:outside":
            return []
        if selector == "any":
            return list(self.internal)
        return list(self.prefixes(selector))

    def _return(self, rule: Rule, local: list[P]) -> list[AclEntry]:
        """Return traffic of a permitted flow toward this VLAN, for stateless platforms."""
        return self._replies(rule, local, self.requesters(rule))

    def requesters(self, rule: Rule) -> list[P | None]:
        """Where the replies of the rule's flows go: its source. A listed host bound by MAC and
        prefix asks from an address of its choosing: its replies go to its VLAN's prefix (the
        other gateway's stateless ACL must let them)."""
        requesters = self.prefixes(rule.source)
        if not rule.source.startswith("group:"):
            return requesters
        bound = self._bound(self.net.endpoints[m] for m in self.net.host_groups.get(rule.source.partition(":")[2], []))
        if not bound:
            return requesters
        rest = [p for p in requesters if p is not None and not any(_within(p, b) for b in bound)]
        return [*_collapse([*bound, *rest])]

    def _replies(self, rule: Rule, responders: Sequence[P | None], requesters: Sequence[P | None],
                 via_tunnel: bool = False) -> list[AclEntry]:
        """The replies of `rule`'s flows from `responders` to `requesters`: what a stateless ACL
        must permit for the service to work (`established` TCP, the service's UDP source port,
        echo replies); a stateful one tracks them."""
        entries: list[AclEntry] = []
        for src in responders:
            for dst in requesters:
                if dst is not None and src is not None and _within(dst, src):
                    continue
                if rule.proto == "tcp":
                    entries += [
                        AclEntry("permit", "tcp", src, dst, rule.name, src_port=port, established=True,
                                 via_tunnel=via_tunnel)
                        for port in rule.ports
                    ] or [AclEntry("permit", "tcp", src, dst, rule.name, established=True, via_tunnel=via_tunnel)]
                elif rule.proto == "icmp":
                    # each request's reply: a rule for every type gets echo-reply, one naming types
                    # gets the replies of the requests it names (none for an error type)
                    replies = [ICMP_REPLY.get(kind or "echo-request") for kind in rule.icmp_types_in(self.family)]
                    entries += [AclEntry("permit", "icmp", src, dst, rule.name, icmp_type=reply, via_tunnel=via_tunnel)
                                for reply in replies if reply is not None]
                elif rule.proto == "udp":
                    entries += [AclEntry("permit", "udp", src, dst, rule.name, src_port=port, via_tunnel=via_tunnel)
                                for port in rule.ports]
                else:
                    # a stateless `permit ip` back would let the far side open anything: replies only
                    entries += [AclEntry("permit", "tcp", src, dst, rule.name, established=True, via_tunnel=via_tunnel),
                                AclEntry("permit", "icmp", src, dst, rule.name, icmp_type="echo-reply",
                                         via_tunnel=via_tunnel)]
        return entries

    def inbound(self, vlan: Vlan) -> list[AclEntry]:
        """First match in the policy's order. An ACL line cannot say "not internal", so when an
        outside rule applies here the ACL has two parts: every rule's lines for internal
        destinations in policy order, closed by the default for the internal space; then every
        rule's lines for outside destinations (`any`), in policy order. A flow meets only the
        part of its destination, in the policy's order, so no line decides a flow its rule does
        not match (an outside rule never shadows a later rule for an internal destination)."""
        returns: list[AclEntry] = []
        shadowed: list[AclEntry] = []  # replies to flows of rules this VLAN also opens flows by
        inside: list[AclEntry] = []
        outside: list[AclEntry] = []
        rules = self.rules_for(vlan)
        split = any(r.destination == "zone:outside" and self.part_in(r.source, vlan) for r in rules)
        for rule in rules:
            sources = self.sources_in(rule, vlan)
            local = self.part_in(rule.destination, vlan)
            if rule.action == "permit" and local and not sources:
                returns += self._return(rule, local)
            elif rule.action == "permit" and local:
                # this VLAN is on both ends of the rule (`any`, a zone): its own line for the
                # flows it opens may not be what its replies meet first (an earlier deny of
                # the requester's network); those replies are given a line of their own below
                shadowed += self._return(rule, local)
            if sources:
                if not split:
                    inside += self._forward(rule, sources, vlan, list(self.prefixes(rule.destination)))
                    continue
                inside += self._forward(rule, sources, vlan, self._internal_part(rule.destination))
                if rule.destination in ("any", "zone:outside"):
                    outside += self._forward(rule, sources, vlan, [None])
        default = self.net.policy.default_action
        if outside:
            inside += self._forward(self._default_rule, [self.subnet(vlan)], vlan, list(self.internal))
        tail = AclEntry(default, "ip", None, None, "default", log=default == "deny")
        body = inside + outside + [tail]
        returns += [reply for reply in shadowed if not reply_permitted(body, reply)]
        returns = [replace(e, rule=f"{e.rule} (return)", return_traffic=True) for e in returns]
        return number(self.essential() + dedupe(returns + body))

    def outbound_secure(self, vlan: Vlan) -> list[AclEntry]:
        """What may enter the secured network: only the listed flows, only through the tunnel
        (in a family the tunnel does not carry: nothing)."""
        if self.family not in TUNNEL_FAMILIES:
            closing = AclEntry("deny", "ip", None, None, "default (the tunnel carries IPv4 only)", log=True)
            return number([*self.essential(), closing])
        entries: list[AclEntry] = []
        for rule in self.rules_for(vlan):
            local = self.part_in(rule.destination, vlan)
            if not local or rule.source == "any":
                continue
            for src in self.prefixes(rule.source):
                through_vpn = src is not None and any(_within(src, p) for p in self.vpn_sources)
                entries += [
                    AclEntry(
                        rule.action,
                        rule.proto,
                        src,
                        dst,
                        rule.name,
                        dst_ports=tuple(rule.ports),
                        icmp_type=kind,
                        via_tunnel=through_vpn,
                    )
                    for dst in local
                    for kind in rule.icmp_types_in(self.family)
                ]
        # the replies to what the secured network's own hosts open: the outbound ACL is the one
        # they meet on a stateless device (a bare deny would drop every reply)
        returns: list[AclEntry] = []
        for rule in self.rules_for(vlan):
            requesters = self.part_in(rule.source, vlan)
            if rule.action != "permit" or not requesters:
                continue
            responders = self.prefixes(rule.destination) if rule.destination != "zone:outside" else [None]
            for responder in responders:
                through_vpn = responder is not None and any(_within(responder, p) for p in self.vpn_sources)
                returns += self._replies(rule, [responder], list(requesters), via_tunnel=through_vpn)
        returns = [replace(e, rule=f"{e.rule} (return)", return_traffic=True) for e in returns]
        entries.append(AclEntry("deny", "ip", None, None, "default", log=True))
        return number(dedupe(entries[:-1] + returns + entries[-1:]))


    def essential(self) -> list[AclEntry]:
        """What the family cannot live without, before any rule: in IPv6 neighbour and router
        discovery (on the link only: routers never forward it) and Packet Too Big along every
        path (dropped, every jumbo path is a black hole: IPv6 routers do not fragment)."""
        return [AclEntry("permit", "icmp", None, None, "icmpv6 essential", icmp_type=kind)
                for kind in ESSENTIAL_ICMP[self.family]]


class PortPolicy6(PolicyCompiler[IPv6Network]):
    """One bound host's IPv6 port ACL (IOS `ipv6 traffic-filter`, EOS `ipv6 access-group` on its
    switchport): its VLAN's IPv6 policy as that host alone meets it, every line's source its
    binding (its MAC's prefix, or its static address), so the port ACL carries the whole policy
    for the port's traffic. Catalyst guides say a port ACL replaces the SVI's router ACL for that
    port's traffic; read otherwise, both apply. Composed so, the configs are right under either
    reading (the profile's ``port_acl_over_svi``)."""

    def __init__(self, net: Network, host: Endpoint, sources: tuple[IPv6Network, ...]):
        super().__init__(net, Family.V6)
        self.host, self.sources = host, list(sources)

    def part_in(self, selector: str, vlan: Vlan) -> list[IPv6Network]:
        if vlan.name != self.host.vlan:
            return super().part_in(selector, vlan)
        if selector.startswith("group:"):
            return list(self.sources) if self.host.name in self.net.host_groups.get(selector[6:], []) else []
        return list(self.sources) if super().part_in(selector, vlan) else []

    def sources_in(self, rule: Rule, vlan: Vlan) -> list[IPv6Network]:
        return self.part_in(rule.source, vlan)

    def entries(self) -> list[AclEntry]:
        """No router advertisement from a host (a rogue router's RA is sent from its link-local
        address, which the next line admits: another host would take it as its default router),
        link-local sources and duplicate address detection (IPv6 on the link), then the policy's
        lines with their sources bound (a line for any source: for each binding), then the ACL's
        implicit deny (its closing denies left to it). Port ACLs do not log (Catalyst: logging is
        for router ACLs only)."""
        vlan = self.net.vlan_name_index[self.host.vlan]
        policy: list[AclEntry] = []
        for entry in self.inbound(vlan):
            if entry.proto == "icmp" and entry.icmp_type == ROUTER_ADVERTISEMENT:
                continue  # denied first: a permit of it would never match
            bound = [entry.src] if entry.src is not None else self.sources
            policy += [replace(entry, src=src, log=False, seq=0) for src in bound]
        while policy and policy[-1].action == "deny":
            policy.pop()
        head = [AclEntry("deny", "icmp", None, None, "bind_hosts", icmp_type=ROUTER_ADVERTISEMENT),
                AclEntry("permit", "ip", LINK_LOCAL6, None, "bind_hosts"),
                AclEntry("permit", "icmp", UNSPECIFIED6, None, "bind_hosts")]
        return number(dedupe(head + policy))


_COMPILERS: dict[tuple[int, Family], tuple[Network, PolicyCompiler[Any]]] = {}


@overload
def compiler_of(net: Network, family: Literal[Family.V4] = ...) -> PolicyCompiler[IPv4Network]: ...
@overload
def compiler_of(net: Network, family: Literal[Family.V6]) -> PolicyCompiler[IPv6Network]: ...
@overload
def compiler_of(net: Network, family: Family) -> PolicyCompiler[Any]: ...


def compiler_of(net: Network, family: Family = Family.V4) -> PolicyCompiler[Any]:
    """The policy compiler of `net` in ``family``, made once per loaded intent (derive, the test
    plan, the paths, the VPN checks and the Batfish view all ask; it collapses every selector once)."""
    family = Family(family)
    hit = _COMPILERS.get((id(net), family))
    if hit is None or hit[0] is not net:  # an id is reused only after its intent is gone
        if len(_COMPILERS) >= 16:
            _COMPILERS.pop(next(iter(_COMPILERS)))
        hit = _COMPILERS[(id(net), family)] = (net, PolicyCompiler[Any](net, family))
    return hit[1]


def _within(inner: IPv4Network | IPv6Network | None, outer: IPv4Network | IPv6Network | None) -> bool:
    # subnet_of in integers: ipaddress's own spends most of its time on type checks, and
    # dedupe asks this for every pair of lines of every ACL (a third of a floor's verify), the
    # intent's decisions for every probe of every rule (most of an isolation plan). One family:
    # the callers never mix them (ipaddress's own would raise)
    if outer is None:
        return True
    return (
        inner is not None
        and inner.prefixlen >= outer.prefixlen
        and int(inner.network_address) & int(outer.netmask) == int(outer.network_address)
    )


def covers(earlier: AclEntry, later: AclEntry) -> bool:
    """True when every packet `later` matches was already matched by `earlier`."""
    if not (_within(later.src, earlier.src) and _within(later.dst, earlier.dst)):
        return False
    if earlier.via_tunnel and not later.via_tunnel:
        return False
    if earlier.proto == "ip":
        return True
    return (
        earlier.proto == later.proto
        and (not earlier.dst_ports or bool(later.dst_ports) and set(later.dst_ports) <= set(earlier.dst_ports))
        and earlier.src_port in (None, later.src_port)
        and (not earlier.established or later.established)
        and earlier.icmp_type in (None, later.icmp_type)
    )


def undecided(entry: AclEntry, earlier: list[AclEntry]) -> AclEntry | None:
    """`entry` without what the `earlier` lines already decide: None when they decide all of it.
    A device prints one line per port, so a port an earlier line decides is dropped from a
    multi-port line; kept, it would be a line given twice or one never reached."""
    if any(covers(e, entry) for e in earlier):
        return None
    # only a line naming one of its ports can decide a port and not the whole line
    if len(entry.dst_ports) > 1 and (partial := [e for e in earlier if set(e.dst_ports) & set(entry.dst_ports)]):
        ports = tuple(p for p in entry.dst_ports if not any(covers(e, replace(entry, dst_ports=(p,))) for e in partial))
        if not ports:  # each port decided by another earlier line; no ports left would mean every port
            return None
        entry = replace(entry, dst_ports=ports)
    return entry


def dedupe(entries: list[AclEntry]) -> list[AclEntry]:
    """Drop lines an earlier line already decides, so no ACL line is unreachable. A line is
    compared only with kept lines whose destination holds its own: an SVI's ACL has one
    source and many destinations."""
    kept: list[AclEntry] = []
    by_destination: PrefixIndex[AclEntry] = PrefixIndex()
    for entry in entries:
        rest = undecided(entry, by_destination.holding(entry.dst))
        if rest is not None:
            kept.append(rest)
            by_destination.add(rest.dst, rest)
    return kept


def number(entries: list[AclEntry]) -> list[AclEntry]:
    return [replace(e, seq=10 * (i + 1)) for i, e in enumerate(entries)]


def matches(
    entry: AclEntry,
    src: Prefix,
    dst: Prefix,
    proto: str,
    port: int | None,
    established: bool = False,
    icmp_type: str = "echo-request",
    via_tunnel: bool = False,
) -> bool:
    """Does this ACL line match one packet (addresses given as /32 networks)?"""
    if not (_within(src, entry.src) and _within(dst, entry.dst)):
        return False
    if entry.via_tunnel and not via_tunnel:
        return False
    if entry.proto != "ip" and entry.proto != proto:
        return False
    if entry.dst_ports and port not in entry.dst_ports:
        return False
    if entry.src_port is not None or (entry.established and not established):
        return False
    return entry.icmp_type in (None, icmp_type)


def _meet(a: IPv4Network | IPv6Network | None, b: IPv4Network | IPv6Network | None) -> bool:
    """Do two prefixes (None: any) share an address?"""
    return _within(a, b) or _within(b, a)


def reply_matches(entry: AclEntry, reply: AclEntry) -> bool | None:
    """Does ACL line `entry` match the replies `reply` stands for (a return line: responder ->
    requester, a TCP segment with ACK set, the service's UDP source port or an echo reply, to the
    requester's ephemeral port)? True: every one of them; False: none; None: some."""
    if not (_meet(reply.src, entry.src) and _meet(reply.dst, entry.dst)):
        return False
    if entry.proto != "ip" and entry.proto != reply.proto:
        return False
    if entry.dst_ports:  # a service's port, not the requester's ephemeral one
        return False
    if entry.src_port is not None and reply.src_port is not None and entry.src_port != reply.src_port:
        return False
    if entry.icmp_type is not None and entry.icmp_type != reply.icmp_type:
        return False
    every = (_within(reply.src, entry.src) and _within(reply.dst, entry.dst)
             and entry.src_port in (None, reply.src_port) and not (entry.via_tunnel and not reply.via_tunnel))
    return True if every else None


def reply_line(entries: list[AclEntry], reply: AclEntry) -> AclEntry | None:
    """The first line that decides every one of the replies `reply` stands for, when a deny
    (or nothing: the implicit deny, None) may meet some of them first: the line a reply dies at."""
    for entry in entries:
        met = reply_matches(entry, reply)
        if met is False:
            continue
        if entry.action == "deny" or met:
            return entry
    return None


def reply_permitted(entries: list[AclEntry], reply: AclEntry) -> bool:
    """Do `entries` (first match wins) permit every one of the replies `reply` stands for?"""
    line = reply_line(entries, reply)
    return line is not None and line.action == "permit"


def acl_decision(
    entries: list[AclEntry], src: Prefix, dst: Prefix, proto: str, port: int | None = None,
    via_tunnel: bool = False, icmp_type: str = "echo-request",
) -> AclEntry | None:
    """The first line that matches a new flow's first packet, as the device evaluates it."""
    return next((e for e in entries if matches(e, src, dst, proto, port, icmp_type=icmp_type, via_tunnel=via_tunnel)),
                None)


def _rule_matches(compiler: PolicyCompiler, rule: Rule, dst: Prefix, proto: str, port: int | None,
                  icmp_type: str) -> bool:
    """Does a rule match this destination and service (its source is the caller's; `icmp_type`:
    an ICMP packet's type)?"""
    if rule.destination == "zone:outside":
        if any(_within(dst, p) for p in compiler.internal):
            return False
    elif not any(p is None or _within(dst, p) for p in compiler.prefixes(rule.destination)):
        return False
    if rule.proto != "ip" and rule.proto != proto:
        return False
    if proto == "icmp" and not rule.matches_icmp(icmp_type):
        return False
    return not rule.ports or port in rule.ports


def source_decision(
    compiler: PolicyCompiler, src_vlan: Vlan, src: Prefix, dst: Prefix, proto: str, port: int | None = None,
    at_gateway: bool = False, icmp_type: str = "echo-request",
) -> tuple[str, str]:
    """The first rule that matches a new flow from `src_vlan`: what the intent says of its source
    (a host a group names matches by its own address), or `at_gateway`, what its gateway's
    inbound ACL must decide (``sources_in``: a listed host bound by MAC and prefix is matched by
    the prefix there, its port's ACL narrowing it to the host)."""
    for rule in compiler.rules_for(src_vlan):
        sources = compiler.sources_in(rule, src_vlan) if at_gateway else compiler.part_in(rule.source, src_vlan)
        if any(_within(src, s) for s in sources) and _rule_matches(compiler, rule, dst, proto, port, icmp_type):
            return rule.action, rule.name
    return compiler.net.policy.default_action, "default"


def secure_decision(
    compiler: PolicyCompiler, dst_vlan: Vlan, src: Prefix, dst: Prefix, proto: str, port: int | None = None,
    icmp_type: str = "echo-request",
) -> tuple[str, str]:
    """What the secured network admits: the first rule that names its source (`any` opens
    nothing into it) and matches; nothing else (the outbound ACL on its gateway)."""
    for rule in compiler.rules_for(dst_vlan):
        if rule.source == "any" or not any(_within(dst, p) for p in compiler.part_in(rule.destination, dst_vlan)):
            continue
        if any(s is not None and _within(src, s) for s in compiler.prefixes(rule.source)) and \
                _rule_matches(compiler, rule, dst, proto, port, icmp_type):
            return rule.action, rule.name
    return "deny", "default"


def secure_vlan_of(compiler: PolicyCompiler, dst: IPv4Network | IPv6Network) -> Vlan | None:
    """The secured VLAN ``dst`` lies in, in its own family (IPv6: the VLAN's IPv6 prefix)."""
    for vlan in compiler.net.vlans:
        prefix = vlan.prefix(Family(dst.version))
        if vlan.zone == "secure" and prefix is not None and _within(dst, prefix):
            return vlan
    return None


def policy_decision(
    compiler: PolicyCompiler, src_vlan: Vlan, src: Prefix, dst: Prefix, proto: str, port: int | None = None,
    icmp_type: str = "echo-request",
) -> tuple[str, str]:
    """What the intent says about a new flow: (action, rule name). First match wins at the
    source; a flow into the secured network from elsewhere must also be admitted there."""
    decided = source_decision(compiler, src_vlan, src, dst, proto, port, icmp_type=icmp_type)
    secure = secure_vlan_of(compiler, dst)
    if secure is not None and secure is not src_vlan and compiler.family not in TUNNEL_FAMILIES:
        return "deny", NO_IPV6_INTO_SECURE
    if decided[0] == "permit" and secure is not None and secure is not src_vlan:
        admitted = secure_decision(compiler, secure, src, dst, proto, port, icmp_type)
        if admitted[0] != "permit":
            return "deny", f"{admitted[1]} (the secured network admits only rules that name their source)"
    return decided
