"""The verify stage on recorded answers: per-check status, report files, merged results."""

from __future__ import annotations

import json

import pytest
from bf_recorded import answer, booth_intent, configs_dir, read_configs

from boothnet.verify.batfish import verify as verify_mod
from boothnet.verify.batfish.questions import Answers
from boothnet.verify.batfish.report import CheckResult, Finding, Status, VerifyReport
from boothnet.verify.batfish.service import ServiceStatus


def recorded_answers() -> Answers:
    return Answers(
        file_status=answer("fileParseStatus"),
        parse_warnings=answer("parseWarning"),
        init_issues=answer("initIssues"),
        undefined_references=answer("undefinedReferences"),
        vlan_properties=answer("switchedVlanProperties"),
        interface_properties=answer("interfaceProperties"),
        layer3_edges=answer("layer3Edges"),
        isolation=[answer("reachability_research_to_prod"),
                   answer("searchFilters_research_to_prod_permit")],
        secure=[answer("testFilters_client_to_secure")],
        filter_lines=answer("filterLineReachability"),
        ipsec=answer("ipsecSessionStatus"),
        traces={"client-to-secure": answer("traceroute_client_to_secure")},
    )


def test_statuses_on_recorded_base():
    results = verify_mod.verify_from_answers(booth_intent(), recorded_answers(), read_configs())
    got = {r.name: r.status for r in results}
    assert got == {
        "parsing": Status.FAIL, "references": Status.FAIL, "vlans": Status.PASS,
        "mtu": Status.FAIL, "isolation": Status.PASS, "secure_network": Status.PASS,
        "acl_lines": Status.FAIL, "ipsec": Status.PASS, "path_mtu": Status.PASS, "routes": Status.PASS,
        # the recorded set predates these questions: no answer, so SKIPPED, never PASS
        "unused": Status.SKIPPED, "ospf": Status.SKIPPED, "policy": Status.SKIPPED,
    }


def test_missing_answer_skips_only_that_check():
    ans = recorded_answers()
    ans.ipsec = None
    ans.errors["ipsecSessionStatus"] = "BatfishException: boom"
    results = {r.name: r for r in verify_mod.verify_from_answers(booth_intent(), ans)}
    assert results["ipsec"].status == Status.SKIPPED and "boom" in (results["ipsec"].reason or "")
    assert results["references"].status == Status.FAIL


def test_report_never_passes_with_a_skipped_check():
    report = VerifyReport().add([CheckResult("a", "A", Status.PASS),
                                 CheckResult.skipped("b", "B", "no service")])
    assert report.status == Status.SKIPPED
    assert VerifyReport().status == Status.SKIPPED
    report.add(CheckResult.from_findings("lint", "Lint", [Finding("lint", "core1", "bad")],
                                         source="lint"))
    assert report.status == Status.FAIL


def test_report_files_name_device_location_and_flow(tmp_path):
    results = verify_mod.verify_from_answers(booth_intent(), recorded_answers(), read_configs())
    lint = CheckResult.from_dict({"name": "lint", "title": "Config lint", "status": "PASS",
                                  "source": "lint"})
    VerifyReport(batfish_host="bf", service_status="reachable").add(results).add(lint).write(
        tmp_path)
    data = json.loads((tmp_path / "verify.json").read_text())
    assert data["status"] == "FAIL"
    assert [c["name"] for c in data["checks"]][-1] == "lint"
    refs = next(c for c in data["checks"] if c["name"] == "references")
    assert refs["findings"][0]["device"] == "rsw1"
    assert "MISSING_ACL" in refs["findings"][0]["message"]
    md = (tmp_path / "verify.md").read_text()
    assert "# Verify report: FAIL" in md
    assert "[core1, ACL PROD_IN: deny tcp any any eq 23]" in md
    assert "9214" in md and "Config lint" in md


def test_run_verify_live_path_with_a_fake_service(tmp_path, monkeypatch):
    """The live wiring (snapshot, session, questions, report) with the service faked."""
    uploaded = []

    class FakeSession:
        def init_snapshot(self, upload, name=None, overwrite=False):
            uploaded.append(upload)
            return name

    monkeypatch.setattr(verify_mod, "service_status", lambda host, require: ServiceStatus(
        "bf", 9996, True, "reachable"))
    monkeypatch.setattr(verify_mod, "open_session", lambda status, network: FakeSession())
    monkeypatch.setattr(verify_mod, "collect", lambda bf, intent, snap: recorded_answers())
    extra = [CheckResult.skipped("lint", "Config lint", "not run")]
    report = verify_mod.run_verify(booth_intent(), configs_dir(), tmp_path, host="bf",
                                   alongside=verify_mod.Alongside(extra))
    assert report.status == Status.FAIL
    assert uploaded and (tmp_path / "snapshot" / "batfish" / "layer1_topology.json").exists()
    assert report.check("mtu").findings[0].device == "core1"
    assert report.check("lint").status == Status.SKIPPED
    assert (tmp_path / "verify.md").exists()


def test_require_turns_unanswered_questions_into_failures(tmp_path, monkeypatch):
    class FakeSession:
        def init_snapshot(self, upload, name=None, overwrite=False):
            return name

    def partial(bf, intent, snap):
        ans = recorded_answers()
        ans.ipsec = None
        return ans

    monkeypatch.setattr(verify_mod, "service_status", lambda host, require: ServiceStatus(
        "bf", 9996, True, "reachable"))
    monkeypatch.setattr(verify_mod, "open_session", lambda status, network: FakeSession())
    monkeypatch.setattr(verify_mod, "collect", partial)
    report = verify_mod.run_verify(booth_intent(), configs_dir(), tmp_path, require=True)
    assert report.check("ipsec").status == Status.FAIL


@pytest.mark.parametrize("name", ["parsing", "references", "mtu", "acl_lines"])
def test_each_failing_check_has_located_findings(name):
    results = {r.name: r for r in verify_mod.verify_from_answers(
        booth_intent(), recorded_answers(), read_configs())}
    assert all(f.device and f.location for f in results[name].findings)


def test_a_declared_path_that_ends_without_a_route_fails_routes_naming_the_hop():
    import pandas as pd

    from boothnet.verify.batfish.intent import PathFlow, VerifyIntent

    trace = {"disposition": "NO_ROUTE", "hops": [{"node": "core1"}, {"node": "brt1"}]}
    frame = pd.DataFrame([{"Flow": None, "Traces": [trace], "TraceCount": 1}])
    intent = VerifyIntent(routes=(PathFlow("route bulk back", "hgw1", "10.201.1.10", "10.110.1.20", 0),))
    ans = recorded_answers()
    ans.traces = {"route bulk back": frame}
    results = {r.name: r for r in verify_mod.verify_from_answers(intent, ans)}
    assert results["routes"].status == Status.FAIL
    assert [f.message for f in results["routes"].findings] == [
        "path 'route bulk back' (10.201.1.10 -> 10.110.1.20) ends NO_ROUTE at brt1: no route on"]
    trace["disposition"] = "DELIVERED_TO_SUBNET"
    assert {r.name: r for r in verify_mod.verify_from_answers(intent, ans)}["routes"].status == Status.PASS
