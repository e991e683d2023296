"""Offline ACL review on the real sc-booth intent: a copy is changed like the recorded Batfish
`change` snapshot, and the review must list exactly the flows that change lets through."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from boothnet.verify.acl_review import DENIED, PERMITTED
from boothnet.verify.acl_review.stage import review_intents
from tests.helpers import ROOT

RESEARCH = range(1, 17)
CLIENT_PORTS = {22, 443, 5000, 5001, 5201}


@pytest.fixture
def pair(tmp_path, no_batfish):
    """base and head copies of inventories/sc-booth; edit head's policy, then review."""
    for side in ("base", "head"):
        shutil.copytree(ROOT / "inventories" / "sc-booth", tmp_path / side)

    def review(change=None):
        if change:
            policy = tmp_path / "head" / "group_vars" / "all" / "policy.yml"
            data = yaml.safe_load(policy.read_text())
            change(data)
            policy.write_text(yaml.safe_dump(data, sort_keys=False))
        return review_intents(tmp_path / "base", tmp_path / "head", tmp_path / "build", "HEAD")

    return review


def research_ssh_to_booth1(data):
    """Research may reach a production host (booth1, 10.10.10.10) on tcp/22."""
    data["host_groups"]["booth_ssh"] = ["booth1"]
    data["policy"]["rules"].insert(2, {"name": "research-ssh-booth", "from": "zone:research",
                                       "to": "group:booth_ssh", "proto": "tcp", "ports": [22],
                                       "action": "permit"})


def whole_client_subnet_to_home(data):
    """The whole client subnet, not just the three listed clients, may reach the secured network."""
    rule = next(r for r in data["policy"]["rules"] if r["name"] == "clients-to-home")
    rule["from"] = "vlan:vpn-clients"


def _key(f):
    return (f.device, f.acl, f.src_ip, f.dst_ip, f.proto, f.port)


def test_no_change_reports_nothing_and_says_batfish_skipped(pair):
    review = pair()
    assert review.findings == [] and review.exit_code == 0
    assert review.batfish.startswith("SKIPPED: no Batfish host")
    md = review.files["md"].read_text()
    assert "**GATE: PASS (exit 0)**" in md and "Batfish: **SKIPPED** (did not run, not a pass)" in md
    data = json.loads(review.files["json"].read_text())
    assert data["counts"]["newly_permitted"] == 0 and data["counts"]["newly_denied"] == 0
    assert data["method"] == "offline evaluation" and data["gate"] == {
        "status": "PASS", "exit_code": 0, "needs_sign_off": 0}


def test_research_ssh_to_a_production_host_is_newly_permitted_at_every_research_acl(pair):
    review = pair(research_ssh_to_booth1)
    assert {_key(f) for f in review.permitted} == {
        ("core1", f"RESEARCH_{n:02d}_IN", f"10.110.{n}.254", "10.10.10.10", "tcp", 22) for n in RESEARCH}
    assert review.denied == []
    first = next(f for f in review.permitted if f.acl == "RESEARCH_01_IN")
    assert first.line == "permit tcp 10.110.1.0 0.0.0.255 host 10.10.10.10 eq 22"
    assert first.previous_line == "deny ip 10.110.1.0 0.0.0.255 10.10.10.0 0.0.0.255"
    assert first.rule == "research-ssh-booth" and first.previous_rule == "default"  # no rule matched it before
    assert (first.interface, first.direction) == ("Vlan110", "in")
    assert {f.gate for f in review.permitted} == {"research -> production: research and production are kept apart"}
    assert review.exit_code == 3


def test_whole_client_subnet_to_home_is_newly_permitted_and_breaks_the_listed_clients(pair):
    review = pair(whole_client_subnet_to_home)
    assert {_key(f) for f in review.permitted} == {
        (device, acl, "10.10.30.254", "10.200.1.254", "tcp", port)
        for device, acl in (("core1", "VPN_CLIENTS_IN"), ("hgw1", "SECURE_HOME_OUT"))
        for port in CLIENT_PORTS}
    assert all(f.gate == "production -> secure: newly permitted into the secured network" for f in review.permitted)
    # bgw1's TO_HOME only lets the vpn_clients group's rules through: the listed clients lose tcp.
    assert {_key(f) for f in review.denied} == {
        ("bgw1", "TO_HOME", f"10.10.30.{host}", "10.200.1.254", "tcp", port)
        for host in (11, 12, 13) for port in CLIENT_PORTS}
    assert all(f.gate is None for f in review.denied)
    hgw = next(f for f in review.permitted if f.acl == "SECURE_HOME_OUT" and f.port == 22)
    assert hgw.line.startswith("meta ipsec exists ip saddr 10.10.30.0/24 ip daddr 10.200.1.0/24 tcp dport")
    # End to end nothing new gets in: bgw1's TO_HOME still admits only the listed clients, so the
    # subnet's other hosts lost two layers (core1's, hgw1's) but are still stopped; the listed
    # clients are newly denied end to end. The gate passes, and says so.
    assert review.flows_permitted == [] and review.exit_code == 0
    assert {(c.src_ip, c.port) for c in review.flows_denied} == {
        (f"10.10.30.{host}", port) for host in (11, 12, 13) for port in CLIENT_PORTS}
    assert [(d.lost, d.still_stopped_at, len(d.flows)) for d in review.depth] == [
        (("core1 VPN_CLIENTS_IN", "hgw1 SECURE_HOME_OUT"), ("bgw1 TO_HOME",), 5)]


def test_both_changes_first_screen_lists_permitted_first_with_counts(pair):
    review = pair(lambda d: (research_ssh_to_booth1(d), whole_client_subnet_to_home(d)))
    assert (len(review.permitted), len(review.denied)) == (26, 15)  # ACL by ACL
    assert (len(review.flows_permitted), len(review.gated), len(review.flows_denied)) == (16, 16, 15)  # end to end
    md = review.files["md"].read_text()
    assert md.index("## NEWLY PERMITTED END TO END") < md.index("## NEWLY DENIED END TO END")
    assert md.index("### Newly permitted at an ACL") < md.index("### Newly denied at an ACL")
    assert "**GATE: FAIL (exit 3)**: 16 flow(s) newly permitted end to end need security sign-off (0 into the " \
           "secured network, 16 between research and production, 0 into the booth from outside)." in md
    assert "| 16 | 16 | 15 | 5 | 0 |" in md
    # one row per change, not one per research VLAN
    assert "TCP 10.110.1.254 -> 10.10.10.10 port 22, in on Vlan110" in md and "15 more: RESEARCH_02_IN" in md
    assert "10.110.2.254 -> 10.10.10.10" not in md
    data = json.loads(review.files["json"].read_text())
    assert data["gate"]["exit_code"] == 3 and len(data["newly_permitted"]) == 26


def test_newly_denied_only_passes_the_gate(pair):
    review = pair(lambda d: d["policy"]["rules"].__delitem__(4))  # research-demo-to-theater
    assert review.permitted == [] and review.exit_code == 0
    assert {(f.dst_ip, f.port) for f in review.denied} == {("10.10.20.254", 80), ("10.10.20.254", 443)}
    assert {f.kind for f in review.denied} == {DENIED} and len(review.denied) == 32
    assert PERMITTED not in {f.kind for f in review.findings}


def test_a_head_whose_acls_contradict_its_policy_fails_the_gate_by_flow(pair, monkeypatch):
    """The shadowing compiler of issue 33 planted back: an outside rule moved before a ping rule."""
    from boothnet.derive.policy import PolicyCompiler
    from tests.unit.test_policy_property import shadowing_inbound

    def outside_first(data):
        rules = data["policy"]["rules"]
        rules.insert(0, rules.pop(next(i for i, r in enumerate(rules) if r["name"] == "production-to-show")))
        rules.append({"name": "ping-anywhere", "from": "any", "to": "any", "proto": "icmp", "action": "permit"})

    clean = pair(outside_first)
    assert clean.against_intent == {"base": [], "head": []}
    monkeypatch.setattr(PolicyCompiler, "inbound", shadowing_inbound)
    review = pair()
    assert review.exit_code == 3 and review.against_intent["base"] == []  # outside rules last: no later rule to shadow
    assert any(line.startswith("10.10.10.254 -> 10.110.1.254 icmp: the intent permits it (rule ping-anywhere), "
                               "but core1 ACL BOOTH_LAN_IN denies it") for line in review.head_contradicts_intent)
    assert "head's compiled ACLs decide" in review.files["md"].read_text()
