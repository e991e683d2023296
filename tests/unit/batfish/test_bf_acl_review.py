"""`boothnet acl-review` with Batfish: the recorded differential answers (change vs base) through
the review's gate and report, and the stage's Batfish branch wired to them."""

from __future__ import annotations

import json
import shutil

from bf_recorded import answer, booth_intent

from boothnet.intent import load_network
from boothnet.verify.acl_review.model import ZoneMap
from boothnet.verify.acl_review.report import from_batfish
from boothnet.verify.acl_review.stage import review_intents
from boothnet.verify.batfish.review import review_from_answers
from boothnet.verify.batfish.service import ServiceStatus
from tests.helpers import ROOT

CORE1_LINE = "permit tcp 10.110.0.0 0.0.255.255 host 10.10.10.5 eq 22"
HGW_LINE = "permit tcp 10.10.30.0 0.0.0.255 10.200.1.0 0.0.0.255 eq 22"


def recorded(*_args, **_kwargs):
    return review_from_answers(booth_intent(), answer("compareFilters_change_vs_base"),
                               [answer("searchFilters_differential_secure")],
                               answer("differentialReachability_change_vs_base"))


def zones():
    return ZoneMap.from_networks(load_network(ROOT / "inventories" / "sc-booth"))


def test_recorded_changes_are_gated_by_zone():
    findings = from_batfish(recorded().changes, zones())
    gated = {(f.device, f.acl, f.line, f.src_zone, f.dst_zone, f.gate) for f in findings if f.gate}
    assert gated == {
        ("core1", "RESEARCH_IN", CORE1_LINE, "research", "production",
         "research -> production: research and production are kept apart"),
        ("hgw", "SECURE_IN", HGW_LINE, "production", "secure",
         "production -> secure: newly permitted into the secured network"),
    }
    assert all(f.gate for f in findings) and {f.proto for f in findings} == {"tcp"}
    assert {f.port for f in findings} == {22}


def test_reverse_answers_are_newly_denied_and_pass_the_gate():
    sf = answer("searchFilters_differential_secure")
    sf = sf.assign(Snapshot_Action=sf["Reference_Action"], Reference_Action=sf["Snapshot_Action"])
    dr = answer("differentialReachability_change_vs_base").rename(columns={
        "Snapshot_Traces": "Reference_Traces", "Reference_Traces": "Snapshot_Traces"})
    findings = from_batfish(review_from_answers(booth_intent(), None, [sf], dr).changes, zones())
    assert findings and {f.kind for f in findings} == {"newly denied"}
    assert not any(f.gate for f in findings)


def test_stage_uses_batfish_when_a_service_answers(tmp_path, monkeypatch):
    import boothnet.verify.acl_review.stage as stage

    monkeypatch.setattr(stage, "service_status",
                        lambda host, require: ServiceStatus("bf.test", 9996, True, "reachable"))
    seen = {}

    def fake_review_change(base, change, intent, out_dir, ask, **kwargs):
        seen.update(base=base, change=change, network=ask.network)
        return recorded()

    monkeypatch.setattr(stage, "review_change", fake_review_change)
    shutil.copytree(ROOT / "inventories" / "sc-booth", tmp_path / "inv")
    review = review_intents(tmp_path / "inv", tmp_path / "inv", tmp_path / "build", "HEAD~1")
    assert review.method == "Batfish" and review.batfish == "ran at bf.test"
    # the recorded rows are the ACL-by-ACL detail; the gate is end to end, and both sides are one intent
    assert len(review.permitted) == 2 and review.flow_changes == [] and review.exit_code == 0
    # Batfish got the Batfish view (frr_linux gateways as IOS) of both sides
    assert (seen["base"] / "bgw1.cfg").is_file() and seen["change"].name == "batfish"
    assert seen["network"] == "sc-booth-review"
    md = review.files["md"].read_text()
    assert "beside Batfish's differentialReachability on both snapshots" in md and "SKIPPED" not in md
    assert CORE1_LINE in md and HGW_LINE in md
    assert json.loads(review.files["json"].read_text())["method"] == "Batfish"
