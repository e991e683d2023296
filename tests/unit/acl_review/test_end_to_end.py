"""The end-to-end gate, offline: each representative flow walked hop by hop (routing, every ACL
on the way, the VPN) in base and head. A layer removed without changing any flow's fate is
"defence in depth", not a breach; a widened source, a removed rule, a layer that was not
redundant and a static route that opens a path each give the newly permitted flows and exit 3.
sc-booth, sc-booth-ds (dual-stack) and eos-core (an IOS and an EOS gateway, OSPF between)."""

from __future__ import annotations

import json

import pytest

from boothnet.verify.acl_review import PERMITTED
from boothnet.verify.acl_review.endtoend import grouped
from tests.acl_changes import (
    NO_RESEARCH_TO_THEATER_WEB,
    add_static,
    drop_acl,
    remove_rule,
    review_change,
    widen_source,
)

RESEARCH_ACLS = {f"core1 RESEARCH_{n:02d}_IN" for n in range(1, 17)}


def flows(review, kind=PERMITTED):
    return {(c.src_ip, c.dst_ip, c.proto, c.port) for c in review.flow_changes if c.kind == kind}


@pytest.mark.parametrize("network", ["sc-booth", "sc-booth-ds"])
def test_a_redundant_outbound_acl_removed_is_defence_in_depth_not_a_breach(tmp_path, no_batfish, network):
    review = review_change(tmp_path, network, models=drop_acl("bgw1", "TO_HOME"))
    assert review.flow_changes == [] and review.exit_code == 0
    # every flow TO_HOME stopped is still stopped: from research at each research VLAN's own ACL
    rows = {(d.src_zone, d.dst_zone): d for d in review.depth}
    assert set(rows) == {("production", "secure"), ("research", "secure"), ("outside", "secure")}
    assert all(d.lost == ("bgw1 TO_HOME",) and d.added == () for d in review.depth)
    research = rows[("research", "secure")]
    assert set(research.still_stopped_at) >= RESEARCH_ACLS and len(research.flows) == 160
    assert "10.110.1.254 -> 10.200.1.254 icmp" in research.flows
    md = review.files["md"].read_text()
    assert "**GATE: PASS (exit 0)**" in md
    assert "| 0 | 0 | 0 | 249 | 0 |" in md  # newly permitted, sign-off, denied, one ACL fewer, disagreements
    assert "| bgw1 TO_HOME | - | research | secure | IPv4 | 160 | core1 RESEARCH_01_IN," in md
    data = json.loads(review.files["json"].read_text())
    assert data["counts"]["flows_newly_permitted"] == 0 and data["counts"]["defence_in_depth"] == 249


def test_an_outbound_acl_that_was_the_only_layer_from_outside_opens_the_secured_network(tmp_path, no_batfish):
    """hgw1's SECURE_HOME_OUT is not redundant: from the show network, straight into hgw1, it is
    the only layer. The per-flow walk enters from outside at every booth device facing the show
    network, not just the uplink."""
    review = review_change(tmp_path, "sc-booth", models=drop_acl("hgw1", "SECURE_HOME_OUT"))
    assert review.exit_code == 3
    assert {(c.source, c.dst_vlan) for c in review.flow_changes} == {("outside (entering at hgw1)", "secure-home")}
    assert len(review.gated) == 10 and {c.gate for c in review.gated} == {
        "outside -> secure: newly permitted into the secured network"}
    # from inside the booth it only lost a layer: the clients' VLAN ACL and TO_HOME still stop the rest
    lost = {(d.src_zone, d.lost) for d in review.depth}
    assert lost == {("production", ("hgw1 SECURE_HOME_OUT",)), ("research", ("hgw1 SECURE_HOME_OUT",))}


def test_a_widened_source_newly_permits_production_to_research(tmp_path, no_batfish):
    review = review_change(tmp_path, "sc-booth", head=widen_source("noc-ssh-to-research", "zone:production"))
    assert review.exit_code == 3 and review.flows_denied == []
    assert len(review.flows_permitted) == len(review.gated) == 119
    assert {(c.src_zone, c.dst_zone, c.proto, c.port) for c in review.flow_changes} == {
        ("production", "research", "tcp", 22)}
    # booth-lan, theater, wireless-mon, vpn-clients (its listed hosts too) to every research VLAN and home-research
    assert {c.src_vlan for c in review.flow_changes} == {"booth-lan", "theater", "wireless-mon", "vpn-clients"}
    assert ("10.10.10.254", "10.110.1.254", "tcp", 22) in flows(review)
    first = next(c for c in review.flow_changes if c.dst_ip == "10.110.1.254" and c.src_ip == "10.10.10.254")
    assert first.decided_by == ["core1 BOOTH_LAN_IN 'permit tcp 10.10.10.0 0.0.0.255 10.110.1.0 0.0.0.255 eq 22' "
                                "(rule noc-ssh-to-research)"]
    assert first.base.startswith("denied at core1 BOOTH_LAN_IN") and first.batfish == "SKIPPED"
    assert len(list(grouped(review.flow_changes))) == 1  # one row on the first screen
    md = review.files["md"].read_text()
    assert "**GATE: FAIL (exit 3)**: 119 flow(s) newly permitted end to end need security sign-off (0 into the " \
           "secured network, 119 between research and production, 0 into the booth from outside)." in md
    assert md.index("## NEWLY PERMITTED END TO END") < md.index("## DEFENCE IN DEPTH") < md.index("## ACL BY ACL")


def test_a_removed_rule_newly_permits_research_to_production(tmp_path, no_batfish):
    """Base denies research the theater's web first; head removes that rule."""
    review = review_change(tmp_path, "sc-booth", base=NO_RESEARCH_TO_THEATER_WEB)
    assert review.exit_code == 3
    assert flows(review) == {(f"10.110.{n}.254", "10.10.20.254", "tcp", 80) for n in range(1, 17)}
    assert {c.rules for c in review.flow_changes} == {("research-demo-to-theater",)}
    assert all(c.gate == "research -> production: research and production are kept apart" for c in review.gated)


def test_a_static_route_around_the_uplink_acl_opens_the_booth_from_outside(tmp_path, no_batfish):
    """The show network's router sends half of booth-lan to the VPN gateway, whose WAN port has
    no inbound ACL: the path around brt1's OUTSIDE_IN is found by walking the routes."""
    review = review_change(tmp_path, "sc-booth", models=add_static("show1", "10.10.10.128/25", "198.51.100.2"))
    assert review.exit_code == 3
    permitted = review.flows_permitted
    # from the show network (its router's own ports) and from the home gateway's WAN segment
    assert {(c.source, c.dst_vlan, c.by_routing) for c in permitted} == {
        ("outside (entering at hgw1)", "booth-lan", True), ("outside (entering at show1)", "booth-lan", True)}
    assert {c.dst_ip for c in permitted} == {"10.10.10.254"} and len(permitted) == 20
    assert {c.gate for c in permitted} == {"outside -> production: the booth admits nothing new from the show network"}
    first = next(c for c in permitted if c.entry == "show1")
    assert "via show1 -> bgw1 -> core1" in first.head and "brt1 OUTSIDE_IN" in first.base


def test_eos_core_a_removed_rule_and_a_widened_source(tmp_path, no_batfish):
    removed = review_change(tmp_path / "removed", "eos-core", head=remove_rule("research-not-to-users"))
    assert removed.exit_code == 3
    assert flows(removed) == {("10.4.20.254", "10.4.10.254", "icmp", None), ("10.4.20.254", "10.4.10.11", "icmp", None)}
    assert {c.rules for c in removed.flow_changes} == {("ping-anywhere",)}
    widened = review_change(tmp_path / "widened", "eos-core", head=widen_source("admins-ssh-to-lab", "zone:production"))
    assert widened.exit_code == 3
    assert flows(widened) == {("10.4.10.254", "10.4.20.254", "tcp", 22)}
    assert widened.flow_changes[0].decided_by == [
        "es1 USERS_IN 'permit tcp 10.4.10.0/24 10.4.20.0/24 eq 22' (rule admins-ssh-to-lab)"]


def test_dual_stack_flows_are_gated_in_both_families(tmp_path, no_batfish):
    review = review_change(tmp_path, "sc-booth-ds", head=widen_source("noc-ssh-to-research", "zone:production"))
    assert {c.family for c in review.gated} == {4, 6}
    # the same VLAN-to-VLAN services in both families; IPv4 asks each host of a bound VLAN (119
    # flows), IPv6 one address of its prefix, as its hosts are bound by MAC and prefix (68, issue 66)
    services = {family: {(c.src_vlan, c.dst_vlan, c.proto, c.port) for c in review.gated if c.family == family}
                for family in (4, 6)}
    assert services[4] == services[6] and len(services[6]) == 68, services
    assert sum(c.family == 4 for c in review.gated) == 119
