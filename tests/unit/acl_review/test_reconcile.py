"""Batfish rows take the policy rule of the offline row for the same change; a change only one
method found is a disagreement, in words."""

from __future__ import annotations

from boothnet.verify.acl_review.model import DENIED, PERMITTED, AclFinding
from boothnet.verify.acl_review.report import AclReview, reconcile, review_markdown


def finding(kind, acl, rule=None, source="offline evaluation"):
    return AclFinding(kind, "core1", acl, "10.110.1.2", "10.10.10.10", "tcp", 22, "permit ...", "deny ...",
                      rule=rule, source=source)


def test_agreeing_rows_take_the_offline_rule_and_disagreements_are_named():
    batfish = [finding(PERMITTED, "RESEARCH_01_IN", source="Batfish"), finding(DENIED, "THEATER_IN", source="Batfish")]
    offline = [finding(PERMITTED, "RESEARCH_01_IN", rule="research-ssh-booth"), finding(PERMITTED, "MGMT_IN")]
    rows, disagreements = reconcile(batfish, offline)
    assert rows[0].rule == "research-ssh-booth"
    assert disagreements == [
        "Batfish only: newly denied at core1 THEATER_IN (TCP 10.110.1.2 -> 10.10.10.10 port 22); "
        "the offline evaluator sees no change there",
        "offline only: newly permitted at core1 MGMT_IN (TCP 10.110.1.2 -> 10.10.10.10 port 22); "
        "Batfish sees no change there",
    ]
    review = AclReview("sc-booth", "HEAD", "working tree", "Batfish", "ran at bf", rows, disagreements=disagreements)
    md = review_markdown(review)
    assert "## DISAGREEMENT between Batfish and the offline evaluator" in md and "- offline only: " in md
