"""The compiled ACLs against the intent: for every representative flow, what each ACL on its
path decides must be what the intent decides there.

The representative flows are the ACL review's (`verify.flows.probes`): one address per
subnet, every host address an ACL names, an outside address, every protocol and port a rule
names, an unlisted port and ping. The intent decides at two places: the source VLAN's gateway
(first match, `source_decision`) and, for the secured network, its gateway's outbound ACL
(`secure_decision`); a flow from outside meets the uplink's OUTSIDE_IN, which opens nothing.
Transit VLANs (other routers on them) carry no ACL by design, so no flow starts there.
In IPv6 (family 6) the same over the dual-stack VLANs' prefixes and their IPv6 ACLs, with
one difference the intent states: nothing enters the secured network in IPv6 (its VPN tunnel
carries IPv4 only). From outside, the uplink's OUTSIDE_IN_V6 opens nothing in IPv6 either.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from typing import Literal

from boothnet.derive import DeviceModel
from boothnet.derive.policy import (
    NO_IPV6_INTO_SECURE,
    TUNNEL_FAMILIES,
    compiler_of,
    policy_decision,
    secure_decision,
    source_decision,
)
from boothnet.family import Family
from boothnet.intent.model import Network, Vlan
from boothnet.verify.flows import (
    AclView,
    Probe,
    acl_views,
    host_net,
    probe_addresses,
    probe_icmp_types,
    probe_services,
    tunnel_pairs,
)

OUTSIDE_IN = "OUTSIDE_IN"
# Every representative flow up to this many (sc-booth has 6,900); a show floor of hundreds of
# VLANs has millions, so it gets a seeded sample of sources and destinations, said in the report.
MAX_FLOWS = 20_000
VERB = {"permit": "permits", "deny": "denies"}


@dataclass(frozen=True)
class Expectation:
    """What the intent decides for one flow at one ACL."""

    device: str
    acl: str
    flow: Probe
    action: str
    rule: str
    via_tunnel: bool = False


@dataclass(frozen=True)
class Mismatch:
    expected: Expectation
    action: str  # what the ACL decides instead
    line: str
    rule: str | None  # the rule the deciding line was compiled from

    def describe(self) -> str:
        e = self.expected
        return (f"{flow_text(e.flow)}: the intent {VERB[e.action]} it (rule {e.rule}), but {e.device} "
                f"ACL {e.acl} {VERB[self.action]} it at '{self.line}'"
                + (f" (compiled from rule {self.rule})" if self.rule else ""))


def flow_text(flow: Probe) -> str:
    kind = f" {flow.icmp_type}" if flow.proto == "icmp" and flow.icmp_type != "echo-request" else ""
    return f"{flow.src} -> {flow.dst} {flow.proto}" + (f"/{flow.port}" if flow.port is not None else "") + kind


class PolicyPaths:
    """Where each representative flow meets an ACL, and what the intent decides there."""

    def __init__(self, net: Network, models: dict[str, DeviceModel], limit: int | None = None, seed: int = 0,
                 family: Family = Family.V4):
        family = Family(family)  # a plain 4 or 6 too
        self.net, self.models, self.family = net, models, family
        self.compiler = compiler_of(net, family)
        self.views = acl_views(models, family)
        self._vlans = sorted(((prefix, v) for v in net.vlans if (prefix := self._prefix(v)) is not None),
                             key=lambda pv: pv[0].prefixlen, reverse=True)
        self._home: dict[IPv4Address | IPv6Address, Vlan | None] = {}
        self._on_path: dict[Probe, list[tuple[AclView, Expectation]]] = {}  # mismatches, compiled: one walk
        self._acl_at = {(view.device, view.acl.direction, view.scope): view for view in self.views.values()}
        self._tunnel = tunnel_pairs([net]) if family in TUNNEL_FAMILIES else []
        self.flows, self.total = self._flows(limit, seed)

    def _prefix(self, vlan: Vlan) -> IPv4Network | IPv6Network | None:
        """The VLAN's subnet in this family (None: an IPv4-only VLAN in IPv6)."""
        return vlan.prefix(self.family)

    @property
    def sampled(self) -> str | None:
        """How the flows were sampled, when they were."""
        if len(self.flows) >= self.total:
            return None
        return f"a seeded sample of {len(self.flows):,} of the {self.total:,} representative flows"

    def _flows(self, limit: int | None, seed: int) -> tuple[list[Probe], int]:
        """Every representative flow between addresses in different subnets (the ACL review's
        set), or, above `limit`, a seeded sample of sources, each with a sample of destinations."""
        addrs = probe_addresses([self.net], [self.models], self.family)
        services = probe_services([self.net])
        kinds = probe_icmp_types([self.net], self.family)  # ICMP types a rule names, beyond ping
        home = {a: self.vlan_of(a) for a in addrs}
        together = Counter(id(v) for v in home.values() if v is not None)  # addresses per VLAN

        def destinations(src: IPv4Address | IPv6Address) -> list[IPv4Address | IPv6Address]:
            return [d for d in addrs if d != src and (home[d] is None or home[d] is not home[src])]

        total = sum(len(addrs) - (together[id(home[a])] if home[a] is not None else 1) for a in addrs)
        total *= len(services) + len(kinds)
        sources = addrs
        keep: int | None = None
        if limit is not None and total > limit:
            # as many sources as destinations each: the Batfish questions grow with the sources
            keep = max(1, math.isqrt(limit // (len(services) + len(kinds))))
            rng = random.Random(seed)
            sources = sorted(rng.sample(addrs, min(keep, len(addrs))))
        per_source = {src: destinations(src) for src in sources}
        if keep is not None:
            per_source = {src: sorted(rng.sample(dsts, min(keep, len(dsts)))) for src, dsts in per_source.items()}
        flows = [Probe(src, dst, proto, port) for src, dsts in per_source.items() for dst in dsts
                 for proto, port in services]
        flows += [Probe(src, dst, "icmp", None, kind) for src, dsts in per_source.items() for dst in dsts
                  for kind in kinds]
        return flows, total

    def vlan_of(self, address: IPv4Address | IPv6Address) -> Vlan | None:
        if address not in self._home:
            self._home[address] = next((v for prefix, v in self._vlans if address in prefix), None)
        return self._home[address]

    def _view(self, vlan: Vlan, direction: Literal["in", "out"]) -> AclView | None:
        return self._acl_at.get((vlan.gateway, direction, self._prefix(vlan)))

    def _uplink_view(self) -> AclView | None:
        uplink = self.net.uplink
        name = OUTSIDE_IN + self.family.acl_suffix  # OUTSIDE_IN, OUTSIDE_IN_V6
        return None if uplink is None else self.views.get((uplink.device, name))

    def through_tunnel(self, flow: Probe) -> bool:
        return any(flow.src in a and flow.dst in b for a, b in self._tunnel)

    def on_path(self, flow: Probe) -> list[tuple[AclView, Expectation]]:
        """Each ACL the flow's first packet meets, with the intent's decision there."""
        if flow not in self._on_path:
            self._on_path[flow] = self._walk(flow)
        return self._on_path[flow]

    def _walk(self, flow: Probe) -> list[tuple[AclView, Expectation]]:
        src_vlan, dst_vlan = self.vlan_of(flow.src), self.vlan_of(flow.dst)
        src, dst = host_net(flow.src), host_net(flow.dst)
        found: list[tuple[AclView, Expectation]] = []
        tunnel = self.through_tunnel(flow)

        def expect(view: AclView | None, decided: tuple[str, str]) -> None:
            if view is not None:
                found.append((view, Expectation(view.device, view.acl.name, flow, *decided, via_tunnel=tunnel)))

        if src_vlan is None:
            if dst_vlan is not None:
                expect(self._uplink_view(), ("deny", "the booth admits nothing new from outside"))
            return found
        if src_vlan.routers or src_vlan is dst_vlan:
            return found  # transit VLAN: unfiltered by design; same VLAN: switched
        expect(self._view(src_vlan, "in"), source_decision(self.compiler, src_vlan, src, dst, flow.proto, flow.port,
                                                           at_gateway=True, icmp_type=flow.icmp_type))
        if dst_vlan is not None and dst_vlan.zone == "secure" and dst_vlan is not src_vlan:
            expect(self._view(dst_vlan, "out"), ("deny", NO_IPV6_INTO_SECURE) if self.family not in TUNNEL_FAMILIES else
                   secure_decision(self.compiler, dst_vlan, src, dst, flow.proto, flow.port, flow.icmp_type))
        return found

    def expectations(self) -> list[Expectation]:
        return [e for flow in self.flows for _, e in self.on_path(flow)]

    def intent(self, flow: Probe) -> str:
        """The intent's decision for the whole path (`policy_decision`; outside: nothing opens)."""
        src_vlan = self.vlan_of(flow.src)
        if src_vlan is None:
            return "deny"
        return policy_decision(self.compiler, src_vlan, host_net(flow.src), host_net(flow.dst),
                               flow.proto, flow.port, flow.icmp_type)[0]

    def compiled(self, flow: Probe) -> str:
        """What the compiled ACLs on the path decide together (offline evaluator)."""
        decisions = [view.decide(flow, self.through_tunnel(flow))[0] for view, _ in self.on_path(flow)]
        return "deny" if "deny" in decisions else "permit"

    def mismatches(self) -> list[Mismatch]:
        """Every (flow, ACL) where the compiled ACL decides otherwise than the intent."""
        out = []
        for flow in self.flows:
            for view, expected in self.on_path(flow):
                action, line, rule = view.decide(flow, expected.via_tunnel)
                if action != expected.action:
                    out.append(Mismatch(expected, action, line, rule))
        return out
