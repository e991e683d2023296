"""One policy, both families (verify.family_parity): for generated policies over the reference
booths made dual-stack, every VLAN's IPv6 ACL decides every representative flow as its IPv4 ACL
does, and the secured network admits nothing in IPv6; a planted IPv6 line is named."""

from __future__ import annotations

import os
from dataclasses import replace
from ipaddress import IPv4Network, IPv6Network

from hypothesis import HealthCheck, given, settings

from boothnet.derive.model import AclEntry
from boothnet.derive.policy import ESSENTIAL_ICMPV6, compiler_of, number
from boothnet.family import Family
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
    head = compiler_of(net, Family.V6).inbound(lab)[:len(ESSENTIAL_ICMPV6)]
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
    lab.inbound[Family.V6] = number([leak, *lab.inbound[Family.V6]])
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
    client = net.endpoint_address(net.endpoints["client1"], Family.V6)
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
    tail = replace(users.inbound[Family.V6][-1], action="permit")
    users.inbound[Family.V6] = number([tail, *users.inbound[Family.V6]])
    assert family_mismatches(net, acls)


def _planted(models, device: str, acl_name: str, leak: AclEntry) -> None:
    acl = next(a for a in models[device].acls if a.name == acl_name)
    acl.entries = number([leak, *acl.entries])


def test_the_same_widening_in_a_rendered_ipv6_acl_fails_verify_and_the_acl_review():
    from boothnet.derive import derive_network
    from boothnet.verify.acl_review.offline import diff_models
    from boothnet.verify.acl_review.report import apply_gate, gate_reason
    from boothnet.verify.policy import PolicyPaths

    net = reference("eos-core-ds")
    clean, planted = derive_network(net), derive_network(net)
    lab, users = (net.vlan_by_name()[name].ipv6 for name in ("lab", "users"))
    assert lab is not None and users is not None
    _planted(planted, "cs1", "LAB_IN_V6", AclEntry("permit", "ip", lab.prefix, users.prefix, "planted"))
    assert [PolicyPaths(net, clean, family=family).mismatches() for family in (4, 6)] == [[], []]
    # verify (and the review's against-intent check): the IPv6 paths name the line; IPv4's are clean
    assert PolicyPaths(net, planted).mismatches() == []
    found = [m.describe() for m in PolicyPaths(net, planted, family=Family.V6).mismatches()]
    assert "2001:db8:4:20:ffff:ffff:ffff:fffe -> 2001:db8:4:10:ffff:ffff:ffff:fffe tcp/22: the intent denies it " \
           "(rule research-not-to-users), but cs1 ACL LAB_IN_V6 permits it at 'permit ipv6 2001:db8:4:20::/64 " \
           "2001:db8:4:10::/64' (compiled from rule planted)" in found, found[:3]
    # the ACL review: research -> production newly permitted in IPv6, gated for sign-off (exit 3)
    findings = apply_gate(diff_models(net, clean, net, planted).findings)
    assert findings and {(f.device, f.acl, f.kind, f.src_zone, f.dst_zone) for f in findings} == {
        ("cs1", "LAB_IN_V6", "newly permitted", "research", "production")}
    assert all(gate_reason(f) for f in findings)


def test_the_uplink_of_a_router_that_forwards_ipv6_filters_ipv6_and_a_line_opening_it_is_named():
    # a router forwarding IPv6 forwards what the show network sends its link-local address: an
    # uplink filtering IPv4 alone left the booth open in IPv6
    from boothnet.derive import derive_network
    from boothnet.verify.policy import PolicyPaths

    net = reference("sc-booth-ds")
    clean, planted = derive_network(net), derive_network(net)
    uplink = next(i for i in clean["brt1"].interfaces if i.name == clean["brt1"].uplink_interface)
    assert (uplink.acl_in, uplink.acl6_in) == ("OUTSIDE_IN", "OUTSIDE_IN_V6")
    outside_in_v6 = next(a for a in clean["brt1"].acls if a.name == "OUTSIDE_IN_V6")
    assert [(e.action, e.icmp_type) for e in outside_in_v6.entries] == [
        *[("permit", kind) for kind in ESSENTIAL_ICMPV6], ("deny", None)]  # frr_linux: conntrack lets replies in
    assert PolicyPaths(net, clean, family=Family.V6).mismatches() == []
    _planted(planted, "brt1", "OUTSIDE_IN_V6", AclEntry("permit", "ip", None, None, "planted-open-uplink"))
    found = [m.describe() for m in PolicyPaths(net, planted, family=Family.V6).mismatches()]
    assert found and all("the intent denies it (rule the booth admits nothing new from outside), but brt1 ACL "
                         "OUTSIDE_IN_V6 permits it" in m for m in found), found[:3]
    assert PolicyPaths(net, planted).mismatches() == []


def test_verify_runs_the_ipv6_policy_check_offline_and_says_so(tmp_path):
    from boothnet.run import Run
    from boothnet.verify.stage import ipv6_policy
    from tests.helpers import ROOT

    [check] = ipv6_policy(Run(ROOT / "inventories" / "eos-core-ds", tmp_path))
    assert (check.name, check.status, check.findings) == ("ipv6_policy", "PASS", [])
    # 30: no ACL names h1's EUI-64 address any more (its binding is its MAC and prefix), so it is
    # no representative address of its own
    assert check.title == ("IPv6: every compiled ACL decides 30 representative flows as the intent does (offline "
                           "evaluator: Batfish 0.36 models no IPv6 ACL)")
    assert ipv6_policy(Run(ROOT / "inventories" / "eos-core", tmp_path)) == []


def test_the_intent_admits_nothing_into_the_secured_network_in_ipv6_even_for_its_listed_clients():
    from boothnet.derive.policy import NO_IPV6_INTO_SECURE, compiler_of, policy_decision

    net = dual_stacked(reference("sc-booth"))
    vlans = net.vlan_by_name()
    client, home = net.endpoints["client1"], net.endpoints["home1"]
    six = [IPv6Network(net.endpoint_address(e, Family.V6)) for e in (client, home)]
    # IPv4: the listed client reaches home through the VPN; IPv6: nothing enters (the tunnel is IPv4)
    assert policy_decision(compiler_of(net), vlans[client.vlan], IPv4Network(f"{client.address}/32"),
                           IPv4Network(f"{home.address}/32"), "tcp", 22)[0] == "permit"
    v6 = compiler_of(net, Family.V6)
    assert policy_decision(v6, vlans[client.vlan], *six, "tcp", 22) == ("deny", NO_IPV6_INTO_SECURE)
