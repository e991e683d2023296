"""validate's verdicts, alone: a row where Batfish and the live lab disagree fails, and so does
the isolation (Batfish) stage, naming the first such row."""

from __future__ import annotations

from boothnet.validate.results import IsolationRow, Stage
from boothnet.validate.verdicts import judge_batfish_agreement


def row(observed, batfish, expected="deny"):
    return IsolationRow(src="h3", dst="h1", src_zone="lab", dst_zone="users", flow="tcp/22", expected=expected,
                        observed=observed, batfish=batfish, batfish_detail="DENIED_IN; denied by r2 LAB_IN")


def test_agreement_passes_and_disagreement_fails_naming_both():
    agree = [row("deny", "deny"), row("permit", "permit", expected="permit")]
    assert [r.verdict for r in agree] == ["PASS", "PASS"]
    assert judge_batfish_agreement(Stage(name="isolation (Batfish)", status="PASS"), agree).status == "PASS"
    drift = row("permit", "deny")
    assert drift.verdict == "FAIL"
    stage = judge_batfish_agreement(Stage(name="isolation (Batfish)", status="PASS"), [*agree, drift])
    assert stage.status == "FAIL"
    assert stage.reason == ("1 flow(s) where Batfish and the live lab disagree, first: h3 -> h1 tcp/22: "
                            "lab permit, Batfish deny (DENIED_IN; denied by r2 LAB_IN)")


def test_a_row_batfish_was_not_asked_about_is_judged_on_the_intent_alone():
    assert row("deny", None).verdict == "PASS" and row("permit", None).verdict == "FAIL"
