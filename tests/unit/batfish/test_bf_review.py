"""ACL review on the recorded differential answers (change vs base)."""

from __future__ import annotations

import dataclasses
import re

from bf_recorded import answer, booth_intent

from boothnet.verify.batfish.intent import Service, ServiceRule
from boothnet.verify.batfish.report import Status
from boothnet.verify.batfish.review import (
    DENIED,
    PERMITTED,
    flow_from_acl_line,
    review_from_answers,
)

CORE1_LINE = "permit tcp 10.110.0.0 0.0.255.255 host 10.10.10.5 eq 22"
HGW_LINE = "permit tcp 10.10.30.0 0.0.0.255 10.200.1.0 0.0.0.255 eq 22"


def recorded_review(out_dir=None, intent=None):
    return review_from_answers(
        intent or booth_intent(), answer("compareFilters_change_vs_base"),
        [answer("searchFilters_differential_secure")],
        answer("differentialReachability_change_vs_base"), out_dir)


def test_both_new_permits_are_listed_with_device_acl_line_and_flow():
    result = recorded_review()
    got = {(c.device, c.acl, c.line) for c in result.permitted}
    assert got == {("core1", "RESEARCH_IN", CORE1_LINE), ("hgw", "SECURE_IN", HGW_LINE)}
    flows = {c.flow for c in result.permitted}
    assert "TCP 10.110.1.2 -> 10.10.10.5 port 22 (ssh), entering core1 at Vlan110" in flows
    assert "TCP 10.10.30.0 -> 10.200.1.0 port 22 (ssh), entering hgw" in flows
    assert result.denied == []


def test_both_permits_violate_policy_and_exit_non_zero():
    result = recorded_review()
    assert result.status == Status.FAIL and result.exit_code == 1
    rules = {(v.rule, v.change.device) for v in result.violations}
    assert rules == {("isolation", "core1"), ("secured network", "hgw")}


def test_reports_are_written_and_readable(tmp_path):
    recorded_review(tmp_path)
    md = (tmp_path / "review.md").read_text()
    assert "FAIL" in md and CORE1_LINE in md and HGW_LINE in md
    assert "research (10.110.1.2) may now reach production" in md
    page = (tmp_path / "review.html").read_text()
    assert "<script" not in page and not re.search(r"(src|href)=", page)  # self-contained
    assert "SECURE_IN" in page and "10.10.30.0 may now reach the secured network" in page
    assert page.count("<tr>") >= 1 + 3 + 2  # header + 3 permitted rows + violations


def test_listed_service_and_wider_client_list_make_the_change_acceptable():
    base = booth_intent()
    intent = dataclasses.replace(
        base,
        allowed_services=(ServiceRule("10.110.0.0/16", "10.10.10.5/32", Service("tcp", (22,))),),
        secure=dataclasses.replace(base.secure, clients=("10.10.30.0/24",)))
    result = recorded_review(intent=intent)
    assert result.violations == [] and result.exit_code == 0 and result.status == Status.PASS
    assert len(result.permitted) == 2  # still listed (one per ACL), just not violations


def test_empty_differential_answers_mean_no_change():
    result = review_from_answers(booth_intent(), answer("compareFilters_change_vs_base").iloc[0:0],
                                 [answer("searchFilters_differential_secure").iloc[0:0]],
                                 answer("differentialReachability_change_vs_base").iloc[0:0])
    assert result.changes == [] and result.exit_code == 0


def test_reverse_direction_is_newly_denied_and_no_violation():
    sf = answer("searchFilters_differential_secure")
    sf = sf.assign(Snapshot_Action=sf["Reference_Action"], Reference_Action=sf["Snapshot_Action"])
    dr = answer("differentialReachability_change_vs_base").rename(columns={
        "Snapshot_Traces": "Reference_Traces", "Reference_Traces": "Snapshot_Traces"})
    result = review_from_answers(booth_intent(), None, [sf], dr)
    assert {c.kind for c in result.changes} == {DENIED}
    assert {(c.device, c.acl) for c in result.changes} == {("hgw", "SECURE_IN"),
                                                          ("core1", "RESEARCH_IN")}
    assert result.violations == []


def test_compare_filters_alone_still_catches_violations_from_the_line():
    result = review_from_answers(booth_intent(), answer("compareFilters_change_vs_base"))
    assert {c.kind for c in result.changes} == {PERMITTED}
    assert all("derived from the ACL line" in (c.flow or "") for c in result.changes)
    assert {v.rule for v in result.violations} == {"isolation", "secured network"}


def test_flow_from_acl_line():
    assert flow_from_acl_line(CORE1_LINE) == {
        "srcIp": "10.110.0.0", "dstIp": "10.10.10.5", "ipProtocol": "TCP", "dstPort": 22}
    assert flow_from_acl_line("permit ip any 10.200.1.0 0.0.0.255")["srcIp"] == "0.0.0.0"
    assert flow_from_acl_line("10 permit tcp 10.10.10.0/24 any eq ssh")["dstPort"] == 22
    assert flow_from_acl_line("remark hello") is None
