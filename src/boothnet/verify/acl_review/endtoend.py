"""End to end: what each representative flow's first packet meets from its source to its
destination, in base and in head, and which flows change fate.

The offline evaluator walks every hop (IPv4): routing as the derived models give it (connected
subnets, statics, what OSPF brings, the VPN's tunnel where its selectors match; `derive.reach`),
and at each hop the ACL of the interface the packet enters by and of the one it leaves by
(`verify.flows`' first-match evaluator). A flow is permitted end to end when it has a route all
the way and no ACL on the way denies it. IPv6: the derived models route no IPv6 offline, so the
ACLs on its intended path (`verify.policy.PolicyPaths`: the source gateway's, the secured
network's) decide it.

A flow whose fate changes is a row of the gate. A flow whose fate stays "denied" but that is now
stopped by fewer (or more) ACLs is a "defence in depth" row: no flow gets through, one layer less.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv6Address

from boothnet.derive import DeviceModel
from boothnet.derive.policy import ESSENTIAL_ICMPV6, TUNNEL_FAMILIES, reply_line
from boothnet.derive.reach import Tables
from boothnet.family import FAMILIES, Family
from boothnet.intent.model import Network
from boothnet.verify.acl_review.model import DENIED, PERMITTED, ZoneMap, gate_reason_of
from boothnet.verify.flows import AclView, Probe, acl_views, probes, reply_entry, tunnel_pairs
from boothnet.verify.policy import PolicyPaths, flow_text

SHOW_NETWORK = "show_network"  # the role of the router outside the booth: where "outside" begins


@dataclass(frozen=True)
class Layer:
    """One ACL a flow's first packet meets, and what it decides."""

    device: str
    acl: str
    action: str
    line: str
    rule: str | None = None

    @property
    def name(self) -> str:
        return f"{self.device} {self.acl}"


@dataclass(frozen=True)
class Fate:
    """A flow's end-to-end disposition on one side."""

    action: str  # permit or deny
    layers: tuple[Layer, ...]  # every ACL on the way, in path order
    no_route: str | None = None  # why routing stops it (None: routed all the way, or not walked)
    hops: tuple[str, ...] = ()

    @property
    def stopped_by(self) -> tuple[Layer, ...]:
        return tuple(layer for layer in self.layers if layer.action == "deny")

    def said(self) -> str:
        if self.action == "permit":
            path = " -> ".join(self.hops) if self.hops else "its path"
            acls = ", ".join(layer.name for layer in self.layers) or "no ACL"
            return f"permitted via {path} ({acls})"
        where = [f"{layer.name} '{layer.line}'" for layer in self.stopped_by]
        if self.no_route:
            where.append(f"routing: {self.no_route}")
        return "denied at " + "; ".join(where)


@dataclass
class FateChange:
    """A flow whose end-to-end fate differs between base and head."""

    kind: str  # PERMITTED or DENIED
    family: int
    src_ip: str
    dst_ip: str
    proto: str
    port: int | None
    src_zone: str | None
    dst_zone: str | None
    src_vlan: str | None
    dst_vlan: str | None
    base: str  # the fate in words
    head: str
    decided_by: list[str]  # head's layers that now let it through, or now stop it
    by_routing: bool  # the path changed (another route, a route added or gone), not just an ACL
    gate: str | None = None
    batfish: str = "-"  # the Batfish column: agrees, disagrees (why), or not asked (why)
    entry: str | None = None  # from outside: the device it enters the booth at
    rules: tuple[str, ...] = ()  # the policy rules behind head's deciding lines (empty: none, or routing)

    @property
    def source(self) -> str:
        """Where it comes from, in words: zone and VLAN, or outside and where it enters."""
        if self.src_vlan:
            return f"{self.src_zone} {self.src_vlan}"
        return "outside" + (f" (entering at {self.entry})" if self.entry else "")

    @property
    def flow(self) -> str:
        return f"{self.src_ip} -> {self.dst_ip} {self.proto}" + (f"/{self.port}" if self.port is not None else "")

    def to_dict(self) -> dict[str, object]:
        return {**self.__dict__, "flow": self.flow}


@dataclass
class DepthChange:
    """Flows still denied end to end, now stopped by fewer (or more) ACLs."""

    lost: tuple[str, ...]  # the layers that stopped them in base and no longer do
    added: tuple[str, ...]  # layers that stop them now and did not before
    still_stopped_at: tuple[str, ...]  # where head stops them
    src_zone: str | None
    dst_zone: str | None
    family: int
    flows: list[str] = field(default_factory=list)
    batfish: str = "-"  # the Batfish column for the row's example flow

    def to_dict(self) -> dict[str, object]:
        return {**self.__dict__, "flow_count": len(self.flows), "flows": self.flows[:20]}


class EndToEnd:
    """The offline end-to-end evaluator of one side (an intent and its derived models)."""

    def __init__(self, net: Network, models: dict[str, DeviceModel], family: Family):
        self.net, self.models, self.family = net, models, family
        self.paths = PolicyPaths(net, models, limit=1, family=family)
        self.tables = Tables(models) if family == 4 else None
        self.views = acl_views(models, family)
        self._at: dict[tuple[str, str, str], AclView] = {
            (v.device, v.acl.interface, v.acl.direction): v for v in self.views.values()}
        self._tunnels = tunnel_pairs([net]) if family in TUNNEL_FAMILIES else []
        self._outside = {name for name, d in net.devices.items() if d.role == SHOW_NETWORK}

    def fate(self, probe: Probe, entry: str | None = None) -> Fate:
        """The probe's fate; from outside, entering at `entry` (a device facing the show network)."""
        if self.tables is None:
            return self._along_intent(probe)
        return self._walk(probe, entry)

    def _decide(self, view: AclView, probe: Probe) -> Layer:
        tunnel = any(probe.src in a and probe.dst in b for a, b in self._tunnels)
        action, line, rule = view.decide(probe, tunnel)
        return Layer(view.device, view.acl.name, action, line, rule)

    def _along_intent(self, probe: Probe) -> Fate:
        layers = tuple(self._decide(view, probe) for view, _ in self.paths.on_path(probe))
        src_vlan = self.paths.vlan_of(probe.src)
        if src_vlan is None and self.paths.vlan_of(probe.dst) is None:
            return Fate("deny", layers, "outside to outside: not the booth's traffic")
        # from outside, only the uplink's inbound ACL may open anything (it opens nothing)
        denied = any(layer.action == "deny" for layer in layers) or (src_vlan is None and not layers)
        return Fate("deny" if denied else "permit", layers)

    def outside_entries(self) -> dict[str, str | None]:
        """Where traffic from outside enters: the show network's router itself (from its other
        ports: no booth ACL there), and each booth device's interface towards it (the uplink, the
        VPN gateways' WAN ports: a host on that segment), by device."""
        if self.tables is None:
            return {}
        out: dict[str, str | None] = {name: None for name in sorted(self._outside) if name in self.models}
        for name in self.models:
            if name in self._outside:
                continue
            iface = next((self.tables.interface_to(name, router) for router in sorted(self._outside)
                          if router in self.models and self.tables.interface_to(name, router)), None)
            if iface is not None:
                out[name] = iface
        return out

    def _first(self, probe: Probe, entry: str | None) -> tuple[str, str | None] | None:
        """The device the packet enters the booth at, and by which interface."""
        vlan = self.paths.vlan_of(probe.src)
        if vlan is not None:
            return vlan.gateway, self._iface_holding(vlan.gateway, probe.src)
        entries = self.outside_entries()
        device = entry or (self.net.uplink.device if self.net.uplink else None)
        if device is None or device not in entries:
            return None
        return device, entries[device]

    def _iface_holding(self, device: str, address: object) -> str | None:
        return next((i.name for i in self.models[device].interfaces
                     if i.address is not None and address in i.address.network), None)

    def _path(self, probe: Probe, entry: str | None) -> tuple[list[str], str | None, list[AclView]]:
        """The devices the packet crosses, why it stops short (None: it arrives), and the ACL of
        each interface it enters and leaves by, in path order."""
        assert self.tables is not None and isinstance(probe.src, IPv4Address) and isinstance(probe.dst, IPv4Address)
        first = self._first(probe, entry)
        if first is None or first[0] not in self.models:
            return [], "no booth device takes it in", []
        hops, why = self.tables.walk(first[0], probe.src, probe.dst)
        outside = self.paths.vlan_of(probe.dst) is None
        if why and outside and hops[-1].device in self._outside:
            why = None  # it leaves the booth for the show network: outside begins there
            hops = hops[:-1]
        views: list[AclView] = []
        for i, hop in enumerate(hops):
            ingress = first[1] if i == 0 else (None if hop.how == "tunnel" else
                                              self.tables.interface_to(hop.device, hops[i - 1].device))
            vpn = self.models[hop.device].vpn
            if i + 1 < len(hops):
                nxt = hops[i + 1]
                egress = (self.tables.interface_toward(hop.device, vpn.remote_address)
                          if nxt.how == "tunnel" and vpn is not None
                          else self.tables.interface_to(hop.device, nxt.device))
            elif why is None and not outside:
                egress = self._iface_holding(hop.device, probe.dst)
            elif why is None:
                egress = self.tables.interface_toward(hop.device, probe.dst)
            else:
                egress = None
            views += [view for iface, direction in ((ingress, "in"), (egress, "out"))
                      if iface and (view := self._at.get((hop.device, iface, direction))) is not None]
        return [h.device for h in hops], why, views

    def _walk(self, probe: Probe, entry: str | None) -> Fate:
        hops, why, views = self._path(probe, entry)
        layers = [self._decide(view, probe) for view in views]
        denied = why is not None or any(layer.action == "deny" for layer in layers)
        return Fate("deny" if denied else "permit", tuple(layers), why, tuple(hops))

    def replies(self, probe: Probe, entry: str | None = None) -> list[ReplyAt]:
        """Each ACL the replies of `probe`'s conversation meet on the way back, and what lets them
        through: the conntrack of a device that tracks connections, or on a stateless one (IOS,
        EOS) a line of its own (None: nothing does, they die there). IPv4: the walked path back."""
        if self.tables is None:
            views = [view for view, _ in self.paths.on_path(Probe(probe.dst, probe.src, probe.proto, probe.port))]
        else:
            back_entry = next(iter(sorted(self._outside)), None) if self.paths.vlan_of(probe.dst) is None else None
            views = self._path(Probe(probe.dst, probe.src, probe.proto, probe.port), back_entry or entry)[2]
        tunnel = any(probe.dst in a and probe.src in b for a, b in self._tunnels)
        reply = reply_entry(probe, tunnel)
        out = []
        for view in views:
            model = self.models.get(view.device)
            if model is None or model.stateful_acls:
                out.append(ReplyAt(view.device, view.acl.name, True, None))
                continue
            line = reply_line(view.acl.entries, reply)
            permits = line is not None and line.action == "permit"
            text = view.lines[view.acl.entries.index(line)][0] if line is not None else None
            out.append(ReplyAt(view.device, view.acl.name, False, text if permits else None,
                               None if permits else (text or "(no line matches: the implicit deny)")))
        return out


@dataclass(frozen=True)
class ReplyAt:
    """One ACL on a permitted flow's way back, and what carries its replies there."""

    device: str
    acl: str
    stateful: bool  # the device tracks connections: its replies pass with the flow
    carried_by: str | None  # stateless: the line that permits the replies (None: none does)
    dies_at: str | None = None  # stateless: the line they die at

    def said(self) -> str:
        if self.stateful:
            return f"{self.device} {self.acl}: stateful (conntrack admits the replies)"
        if self.carried_by:
            return f"{self.device} {self.acl}: stateless, replies carried by '{self.carried_by}'"
        return f"{self.device} {self.acl}: stateless, replies DIE at '{self.dies_at}'"


@dataclass
class RuleState:
    """What one permit rule's replies rest on, over head's flows it lets through end to end."""

    rule: str
    family: int
    flows: int = 0
    stateful: set[str] = field(default_factory=set)  # "device ACL" that track the conversation
    carried: dict[str, set[str]] = field(default_factory=dict)  # stateless "device ACL" -> the reply lines
    dead: list[str] = field(default_factory=list)  # flows whose replies die, and where

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "family": self.family, "flows": self.flows, "stateful": sorted(self.stateful),
                "carried_by": {k: sorted(v) for k, v in sorted(self.carried.items())}, "replies_die": self.dead[:50],
                "replies_die_count": len(self.dead)}


@dataclass
class EndToEndDiff:
    changes: list[FateChange]
    depth: list[DepthChange]
    flows: int  # representative flows walked, both families
    families: tuple[int, ...]
    sides: tuple[EndToEnd, EndToEnd] | None = None  # base's and head's IPv4 evaluators
    states: list[RuleState] = field(default_factory=list)  # head's permits: where their replies pass


def _both(base: tuple[Network, dict[str, DeviceModel]], head: tuple[Network, dict[str, DeviceModel]],
          family: Family) -> bool:
    """Whether either side has anything of this family to walk."""
    return any(v.prefix(family) is not None for net, _ in (base, head) for v in net.vlans)


def diff_end_to_end(base_net: Network, base_models: dict[str, DeviceModel],
                    head_net: Network, head_models: dict[str, DeviceModel]) -> EndToEndDiff:
    """Every representative flow whose end-to-end fate differs, and every still-denied flow
    whose layers changed."""
    zones = ZoneMap.from_networks(head_net, base_net)
    changes: list[FateChange] = []
    depth: dict[tuple[object, ...], DepthChange] = {}
    walked, families = 0, []
    sides: tuple[EndToEnd, EndToEnd] | None = None
    states: dict[tuple[str, int], RuleState] = {}
    for family in FAMILIES:
        if not _both((base_net, base_models), (head_net, head_models), family):
            continue
        families.append(family)
        base, head = EndToEnd(base_net, base_models, family), EndToEnd(head_net, head_models, family)
        sides = sides or (base, head)  # IPv4's, walked first
        entries: list[str | None] = [*sorted(set(base.outside_entries()) | set(head.outside_entries()))] or [None]
        for probe in probes([base_net, head_net], [base_models, head_models], family):
            # from outside: once per place it can enter the booth (the uplink, a VPN gateway's WAN port)
            for entry in (entries if head.paths.vlan_of(probe.src) is None and family == 4 else [None]):
                walked += 1
                old, new = base.fate(probe, entry), head.fate(probe, entry)
                if new.action == "permit":
                    _add_state(states, head, probe, entry, new)
                if old.action != new.action:
                    changes.append(_change(probe, old, new, zones, head, base, entry))
                elif old.action == "deny" and {x.name for x in old.stopped_by} != {x.name for x in new.stopped_by}:
                    _add_depth(depth, probe, old, new, zones)
    return EndToEndDiff(changes, list(depth.values()), walked, tuple(families), sides,
                        sorted(states.values(), key=lambda r: (not r.dead, r.family, r.rule)))


def _add_state(states: dict[tuple[str, int], RuleState], side: EndToEnd, probe: Probe, entry: str | None,
               fate: Fate) -> None:
    rule = next((x.rule for x in fate.layers if x.rule), None)
    if rule is None:
        return  # no ACL on its way: nothing to carry its replies or to drop them
    row = states.setdefault((rule, probe.src.version), RuleState(rule, probe.src.version))
    row.flows += 1
    for at in side.replies(probe, entry):
        name = f"{at.device} {at.acl}"
        if at.stateful:
            row.stateful.add(name)
        elif at.carried_by:
            row.carried.setdefault(name, set()).add(at.carried_by)
        else:
            row.dead.append(f"{flow_text(probe)}: its replies die at {name} '{at.dies_at}'")


def _vlan_name(side: EndToEnd, address: IPv4Address | IPv6Address) -> str | None:
    vlan = side.paths.vlan_of(address)
    return vlan.name if vlan is not None else None


def _change(probe: Probe, old: Fate, new: Fate, zones: ZoneMap, head: EndToEnd, base: EndToEnd,
            entry: str | None) -> FateChange:
    kind = PERMITTED if new.action == "permit" else DENIED
    if kind == PERMITTED:
        decided = [f"{x.name} '{x.line}'" + (f" (rule {x.rule})" if x.rule else "") for x in new.layers]
    else:
        decided = [f"{x.name} '{x.line}'" + (f" (rule {x.rule})" if x.rule else "") for x in new.stopped_by]
        decided += [f"routing: {new.no_route}"] if new.no_route else []
    # routing made the difference: the flow takes another path, or a route appeared or went
    by_routing = old.hops != new.hops or old.no_route != new.no_route
    change = FateChange(kind, probe.src.version, str(probe.src), str(probe.dst), probe.proto, probe.port,
                        zones.zone(probe.src), zones.zone(probe.dst),
                        _vlan_name(head, probe.src) or _vlan_name(base, probe.src),
                        _vlan_name(head, probe.dst) or _vlan_name(base, probe.dst),
                        old.said(), new.said(), decided or ["no ACL on the way"], by_routing, entry=entry,
                        rules=tuple(dict.fromkeys(x.rule for x in (new.layers if kind == PERMITTED else new.stopped_by)
                                                  if x.rule)))
    change.gate = gate_reason_of(kind, change.src_zone, change.dst_zone)
    return change


def _add_depth(depth: dict[tuple[object, ...], DepthChange], probe: Probe, old: Fate, new: Fate,
               zones: ZoneMap) -> None:
    before, now = {x.name for x in old.stopped_by}, {x.name for x in new.stopped_by}
    lost, added = tuple(sorted(before - now)), tuple(sorted(now - before))
    src_zone, dst_zone = zones.zone(probe.src), zones.zone(probe.dst)
    row = depth.setdefault((lost, added, src_zone, dst_zone, probe.src.version),
                           DepthChange(lost, added, (), src_zone, dst_zone, probe.src.version))
    still = sorted(now) + ([f"routing: {new.no_route}"] if new.no_route else [])
    row.still_stopped_at = tuple(sorted(set(row.still_stopped_at) | set(still)))
    row.flows.append(flow_text(probe))


def grouped(changes: list[FateChange]) -> Iterator[list[FateChange]]:
    """Changes by (kind, zones, where from outside, family, protocol, the rules that decide them now, and
    whether routing did it): one row each, permitted and gated first."""
    groups: dict[tuple[object, ...], list[FateChange]] = {}
    for c in changes:
        key = (c.kind, c.gate is None, c.src_zone, c.entry, c.dst_zone, c.family, c.proto, c.rules, c.by_routing)
        groups.setdefault(key, []).append(c)
    yield from sorted(groups.values(), key=lambda g: (g[0].kind != PERMITTED, g[0].gate is None,
                                                       g[0].src_zone or "", g[0].dst_zone or "", g[0].proto))


def icmpv6_kept(models: dict[str, DeviceModel]) -> dict[str, list[str]]:
    """Each IPv6 ACL ("device ACL") with the ICMPv6 types IPv6 needs that its first matching line
    does not permit (empty: it keeps them all)."""
    out = {}
    for view in acl_views(models, Family.V6).values():
        out[f"{view.device} {view.acl.name}"] = [
            kind for kind in ESSENTIAL_ICMPV6
            if (line := next((e for e in view.acl.entries if e.proto in ("icmp", "ip") and e.src is None
                              and e.dst is None and e.icmp_type in (None, kind)), None)) is None
            or line.action != "permit"]
    return out
