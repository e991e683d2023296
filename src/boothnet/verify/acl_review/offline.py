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
from boothnet.intent.model import Network
from boothnet.verify.acl_review.model import DENIED, PERMITTED, AclFinding, ZoneMap
from boothnet.verify.flows import NO_ACL, acl_views, probes, tunnel_pairs


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
    base, head = acl_views(base_models), acl_views(head_models)
    flow_set = probes(nets, [base_models, head_models])
    tunnels = tunnel_pairs(nets)
    zones = ZoneMap.from_networks(head_net, base_net)
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
    return OfflineDiff(findings, len(flow_set), len(set(base) | set(head)), decisions)
