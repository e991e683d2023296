"""The Batfish column of the end-to-end gate: each flow the offline evaluator found changed is
traced by Batfish in both snapshots (from the source VLAN's gateway, through the VPN in two legs
where it crosses it), and each example flow of Batfish's differentialReachability that the
offline evaluator does not see change is a disagreement.

IPv6 flows are not asked: Batfish 0.36 has no IPv6 model (the offline column stands alone, said).
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import ip_address

from boothnet.derive import DeviceModel
from boothnet.intent.model import Network
from boothnet.verify.acl_review.endtoend import SHOW_NETWORK, DepthChange, EndToEnd, FateChange, grouped
from boothnet.verify.batfish.from_intent import vlan_entries, vpn_tunnel_ends
from boothnet.verify.batfish.intent import IfaceRef
from boothnet.verify.batfish.review import ReachChange
from boothnet.verify.batfish.traces import FlowAnswer, FlowQuery
from boothnet.verify.flows import Probe

MAX_ASKED = 400  # flows traced (each in both snapshots); above it, the first few of each row
PER_ROW = 4
NO_IPV6 = "not asked: Batfish 0.36 models no IPv6"


@dataclass
class Asked:
    queries: list[FlowQuery]
    changes: list[FateChange | None]  # the change each query asks about
    depth: list[DepthChange | None]  # or the defence-in-depth row


class Entries:
    """Where a flow enters the network in the Batfish view of one side."""

    def __init__(self, net: Network, models: dict[str, DeviceModel]):
        self.net, self.models = net, models
        self.vlans = vlan_entries(net, models)
        self.tunnels = vpn_tunnel_ends(net, models)
        self._subnets = sorted(((v.subnet, v.name) for v in net.vlans), key=lambda sv: -sv[0].prefixlen)

    def vlan(self, address: str) -> str | None:
        addr = ip_address(address)
        return next((name for subnet, name in self._subnets if addr in subnet), None)

    def query(self, src: str, dst: str, proto: str, port: int | None, entry: str | None = None) -> FlowQuery | None:
        src_vlan, dst_vlan = self.vlan(src), self.vlan(dst)
        start = self.vlans.get(src_vlan) if src_vlan else self._outside(entry)
        if start is None:
            return None
        tunnel = self.tunnels.get((src_vlan, dst_vlan)) if src_vlan and dst_vlan else None
        return FlowQuery(start, src, dst, proto, port, tunnel)

    def _outside(self, entry: str | None) -> IfaceRef | None:
        """Where traffic from outside enters at `entry` (none: the uplink) in the view: its
        interface towards the show network's router."""
        device = entry or (self.net.uplink.device if self.net.uplink else None)
        model = self.models.get(device) if device else None
        show = [a for name, m in self.models.items() if self.net.devices[name].role == SHOW_NETWORK
                for i in m.interfaces if i.address is not None for a in (i.address.ip,)]
        if device is None or model is None:
            return None
        return next((IfaceRef(device, i.name) for i in model.interfaces
                     if i.address is not None and any(a in i.address.network for a in show)), None)


def queries_for(changes: list[FateChange], depth: list[DepthChange], entries: Entries) -> Asked:
    """A query for each IPv4 change (the first few of each row past MAX_ASKED), one for each
    defence-in-depth row's example flow."""
    asked = Asked([], [], [])
    v4 = [c for c in changes if c.family == 4]
    for c in changes:
        if c.family == 6:
            c.batfish = NO_IPV6
    chosen = v4 if len(v4) <= MAX_ASKED else [c for group in grouped(v4) for c in group[:PER_ROW]]
    for c in v4:
        if c not in chosen:
            c.batfish = f"not asked (past {MAX_ASKED} flows, {PER_ROW} per row)"
    for c in chosen:
        query = entries.query(c.src_ip, c.dst_ip, c.proto, c.port, c.entry)
        if query is None:
            c.batfish = "not asked: no entry into the Batfish view"
            continue
        asked.queries.append(query)
        asked.changes.append(c)
        asked.depth.append(None)
    for d in depth:
        if d.family != 4:
            d.batfish = NO_IPV6
            continue
        src, _, rest = d.flows[0].partition(" -> ")
        dst, proto_port = rest.split(" ", 1)
        proto, _, port = proto_port.partition("/")
        query = entries.query(src, dst, proto, int(port) if port else None)
        if query is None:
            continue
        asked.queries.append(query)
        asked.changes.append(None)
        asked.depth.append(d)
    return asked


def _said(answer: FlowAnswer) -> str:
    return f"{answer.action} ({answer.detail})"


def apply_answers(asked: Asked, base: list[FlowAnswer], head: list[FlowAnswer]) -> None:
    """Each asked change gets its Batfish column: agrees, or DISAGREES with what Batfish said."""
    if len(base) != len(asked.queries) or len(head) != len(asked.queries):
        for change in asked.changes:
            if change is not None:
                change.batfish = "not answered by Batfish"
        return
    for change, row, old, new in zip(asked.changes, asked.depth, base, head, strict=True):
        if change is not None:
            want = ("deny", "permit") if change.kind.endswith("permitted") else ("permit", "deny")
            if (old.action, new.action) == want:
                change.batfish = f"agrees: {old.action} -> {new.action}"
            else:
                change.batfish = f"DISAGREES: Batfish: {_said(old)} -> {_said(new)}"
        elif row is not None:
            row.batfish = (f"agrees: denied in both (now: {new.detail})" if (old.action, new.action) == ("deny", "deny")
                           else f"DISAGREES: Batfish: {_said(old)} -> {_said(new)}")


def batfish_only(reach: list[ReachChange], base: EndToEnd, head: EndToEnd) -> tuple[list[str], list[str]]:
    """differentialReachability's example flows whose fate the offline evaluator sees unchanged:
    (disagreements, the ones the Batfish view explains: a booth VLAN's source spoofed at a gateway)."""
    out: list[str] = []
    explained: list[str] = []
    for r in reach:
        if ":" in r.src_ip or r.proto not in ("tcp", "udp", "icmp") or r.originated:
            continue
        if r.entry in head.outside_entries() and head.paths.vlan_of(ip_address(r.src_ip)) is not None:
            explained.append(f"{'newly permitted' if r.permitted_now else 'newly denied'}: {r.flow}")
            continue
        probe = Probe(ip_address(r.src_ip), ip_address(r.dst_ip), r.proto, r.port if r.proto != "icmp" else None)
        entry = r.entry if r.entry in head.outside_entries() else None
        old, new = base.fate(probe, entry), head.fate(probe, entry)
        if old.action == new.action:
            kind = "newly permitted" if r.permitted_now else "newly denied"
            out.append(f"Batfish only (differentialReachability): {kind} end to end: {r.flow}; the offline evaluator "
                       f"sees it {old.action} in both ({new.said()})")
    return out, explained
