"""One policy, both families (verify.family_parity): for generated policies over the reference
booths made dual-stack, every VLAN's IPv6 ACL decides every representative flow as its IPv4 ACL
does, and the secured network admits nothing in IPv6; a planted IPv6 line is named."""

from __future__ import annotations

import os
from dataclasses import replace
from ipaddress import IPv6Network

from hypothesis import HealthCheck, given, settings

from boothnet.derive.model import AclEntry
from boothnet.derive.policy import ESSENTIAL_ICMPV6, compiler6_of, number
from boothnet.verify.family_parity import family_mismatches, vlan_acls
from tests.policies import dual_stacked, policies, reference

EXAMPLES = int(os.environ.get("BOOTHNET_POLICY_EXAMPLES", "200")) // 2


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(policies(booths=("fw-booth", "lab-mini", "sc-booth")))
def test_every_ipv6_acl_decides_as_its_ipv4_acl(net):
    mismatches = family_mismatches(dual_stacked(net))
    assert not mismatches, "\n".join(map(str, mismatches[:8]))


def test_the_reference_booths_dual_stacked_agree_in_both_families():
    for name in ("lab-mini", "sc-booth", "fw-booth", "eos-core"):
        net = dual_stacked(reference(name))
        assert vlan_acls(net), name
        assert family_mismatches(net) == [], name


def test_an_ipv6_acl_opens_with_neighbour_discovery_and_packet_too_big():
    net = dual_stacked(reference("lab-mini"))
    lab = net.vlan_by_name()["lab"]
    head = compiler6_of(net).inbound(lab)[:len(ESSENTIAL_ICMPV6)]
    assert [(e.action, e.proto, e.src, e.dst, e.icmp_type) for e in head] == [
        ("permit", "icmp", None, None, kind) for kind in ESSENTIAL_ICMPV6]
    assert ESSENTIAL_ICMPV6[0] == "packet-too-big"  # dropped, every jumbo IPv6 path black-holes


def test_a_planted_ipv6_line_widening_research_into_production_is_named():
    net = dual_stacked(reference("lab-mini"))
    acls = vlan_acls(net)
    lab = next(a for a in acls if a.vlan.name == "lab")
    users = net.vlan_by_name()["users"]
    assert lab.vlan.ipv6 is not None and users.ipv6 is not None
    leak = AclEntry("permit", "ip", lab.vlan.ipv6.prefix, users.ipv6.prefix, "planted-research-to-production")
    lab.inbound6 = number([leak, *lab.inbound6])
    found = family_mismatches(net, acls)
    assert found and {m.acl for m in found} == {"LAB_IN_V6"}
    assert all(m.ipv6 == "permit by planted-research-to-production (seq 10)" for m in found), found[0]
    assert all(m.ipv4.startswith("deny by research-not-to-users") for m in found), found[0]
    named = "LAB_IN_V6: tcp/22 another host in lab -> h1: IPv4 deny by research-not-to-users"
    assert any(str(m).startswith(named) for m in found), found[0]


def test_a_secured_network_admitting_a_client_in_ipv6_is_named():
    net = dual_stacked(reference("sc-booth"))
    acls = vlan_acls(net)
    secure = next(a for a in acls if a.outbound6 is not None)
    client = net.endpoint_address6(net.endpoints["client1"])
    assert secure.outbound6 is not None and client is not None
    secure.outbound6 = number([AclEntry("permit", "ip", IPv6Network(f"{client}/128"), None, "planted-v6-client"),
                               *secure.outbound6])
    found = family_mismatches(net, acls)
    assert found and {m.acl for m in found} == {"SECURE_HOME_OUT_V6"}
    assert all(m.ipv6.startswith("permit by planted-v6-client (seq 10)") and " client1 -> " in m.flow
               for m in found), found[0]


def test_a_rule_an_earlier_line_shadows_only_in_ipv6_is_found():
    # the IPv6 ACL reordered: the last rule line first (a template bug of one family)
    net = dual_stacked(reference("lab-mini"))
    acls = vlan_acls(net)
    users = next(a for a in acls if a.vlan.name == "users")
    tail = replace(users.inbound6[-1], action="permit")
    users.inbound6 = number([tail, *users.inbound6])
    assert family_mismatches(net, acls)
