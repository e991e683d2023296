"""Offline ACL review: evaluate a representative flow set against every ACL of two derived models.

No Batfish: boothnet's own first-match evaluator (`acl_decision`) decides the first packet of
each new flow at each ACL, in base and in head, and every flow whose decision changed is a
finding. The flow set comes from both intents: every pair of VLAN subnets (one probe address
per subnet, plus every host address an ACL names, plus one outside address) times every
protocol/port either policy mentions, plus an unlisted "other" port per protocol.
"""

from __future__ import annotations

from dataclasses import dataclass

from boothnet.derive import DeviceModel
from boothnet.family import FAMILIES
from boothnet.intent.model import Network
from boothnet.verify.acl_review.model import DENIED, PERMITTED, AclFinding, ZoneMap
from boothnet.verify.flows import NO_ACL, AclView, Probe, acl_views, probes, tunnel_pairs


@dataclass
class OfflineDiff:
    findings: list[AclFinding]
    flows: int  # probes evaluated
    acls: int  # ACLs compared
    decisions: int  # (probe, ACL) pairs evaluated


def diff_models(
    base_net: Network,
    base_models: dict[str, DeviceModel],
    head_net: Network,
    head_models: dict[str, DeviceModel],
) -> OfflineDiff:
    """Every (flow, ACL) whose permit/deny differs between base and head."""
    nets = [base_net, head_net]
    tunnels = tunnel_pairs(nets)
    zones = ZoneMap.from_networks(head_net, base_net)
    findings: list[AclFinding] = []
    decisions = flows = acls = 0
    for family in FAMILIES:  # each family's ACLs see their own family's flows only
        base, head = acl_views(base_models, family), acl_views(head_models, family)
        flow_set = probes(nets, [base_models, head_models], family) if base or head else []
        found, made = _diff(base, head, flow_set, tunnels, zones)
        findings += found
        decisions, flows, acls = decisions + made, flows + len(flow_set), acls + len(set(base) | set(head))
    return OfflineDiff(findings, flows, acls, decisions)


def _diff(base: dict[tuple[str, str], AclView], head: dict[tuple[str, str], AclView], flow_set: list[Probe],
          tunnels: list, zones: ZoneMap) -> tuple[list[AclFinding], int]:
    findings: list[AclFinding] = []
    decisions = 0
    for key in sorted(set(base) | set(head)):
        old_view, new_view = base.get(key), head.get(key)
        view = new_view or old_view
        assert view is not None
        for probe in flow_set:
            if not view.sees(probe):
                continue
            decisions += 1
            # Traffic between the VPN's subnets arrives at the home gateway through the tunnel.
            tunnel = any(probe.src in a and probe.dst in b for a, b in tunnels)
            old = old_view.decide(probe, tunnel) if old_view else NO_ACL
            new = new_view.decide(probe, tunnel) if new_view else NO_ACL
            if old[0] == new[0]:
                continue
            findings.append(
                AclFinding(
                    kind=PERMITTED if new[0] == "permit" else DENIED,
                    device=view.device,
                    acl=view.acl.name,
                    src_ip=str(probe.src),
                    dst_ip=str(probe.dst),
                    proto=probe.proto,
                    port=probe.port,
                    line=new[1],
                    previous_line=old[1],
                    rule=new[2],
                    previous_rule=old[2],
                    interface=view.acl.interface,
                    direction=view.acl.direction,
                    src_zone=zones.zone(probe.src),
                    dst_zone=zones.zone(probe.dst),
                )
            )
    return findings, decisions
