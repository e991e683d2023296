"""The verify stage without Batfish: one load and one derive per context; the CLI's report path."""

from __future__ import annotations

import shutil

import pytest

import boothnet.verify.batfish.from_intent as from_intent
import boothnet.verify.stage as verify_stage
from boothnet.cli import main
from boothnet.intent import load_network
from tests.helpers import ROOT


@pytest.fixture(autouse=True)
def _offline(no_batfish):
    """These tests are about the offline part of verify."""


def test_verify_loads_once_and_derives_once_per_context(tmp_path, traced):
    report = verify_stage.run_verify_stage(ROOT / "inventories" / "lab-mini", tmp_path)

    events = traced()
    assert [e for e in events if e.startswith("load intent")] == [f"load intent {ROOT / 'inventories' / 'lab-mini'}"]
    # the device configs, then the Batfish view
    assert [e.split(":")[0] for e in events if e.startswith("derive")] == ["derive hardware", "derive batfish"]
    assert report.out_dir == tmp_path / "lab-mini" / "verify"
    assert (report.out_dir / "verify.json").exists()
    assert (tmp_path / "lab-mini" / "configs").is_dir()
    assert (tmp_path / "lab-mini" / "batfish" / "configs").is_dir()


def test_verify_intent_from_view_models_equals_fresh_derivation(tmp_path):
    net = load_network(ROOT / "inventories" / "sc-booth")
    _, models = from_intent.render_batfish_view(net, tmp_path)
    assert from_intent.verify_intent_from_model(net, models) == from_intent.verify_intent_from_model(net)


def test_cli_verify_reports_the_intents_network_not_the_default(tmp_path, capsys):
    # the folder's name is neither sc-booth (--network's default) nor the intent's name
    inventory = tmp_path / "some-folder"
    shutil.copytree(ROOT / "inventories" / "lab-mini", inventory)
    build_dir = tmp_path / "out"

    code = main(["verify", "-i", str(inventory), "--build-dir", str(build_dir)])

    out = capsys.readouterr().out
    assert code == 0
    last = out.strip().splitlines()[-1]
    assert last == f"verify: SKIPPED -> {build_dir / 'lab-mini' / 'verify'}"
    assert (build_dir / "lab-mini" / "verify" / "verify.md").exists()
    assert not (build_dir / "sc-booth").exists()


def test_demo_reports_offline_lint_and_batfish_as_separate_stages(tmp_path):
    from boothnet.pipeline import verify_stages

    report = verify_stage.run_verify_stage(ROOT / "inventories" / "lab-mini", tmp_path)
    offline, batfish = verify_stages(report, tmp_path / "lab-mini" / "verify")
    assert (offline.name, offline.status, offline.reason) == ("verify (offline lint)", "PASS", None)
    assert (batfish.name, batfish.status) == ("verify (Batfish)", "SKIPPED")
    assert batfish.reason.startswith("parsing SKIPPED, unused SKIPPED, references SKIPPED, vlans SKIPPED and 9 more")
    assert "BATFISH_HOST unset" in batfish.reason and batfish.reason.endswith("lab-mini/verify/verify.md")


def test_a_lint_finding_fails_the_offline_stage_whatever_batfish_did(tmp_path):
    from boothnet.pipeline import verify_stages
    from boothnet.verify.batfish.report import Finding, Status

    report = verify_stage.run_verify_stage(ROOT / "inventories" / "lab-mini", tmp_path)
    lint = next(c for c in report.checks if c.name == "offline_lint")
    lint.findings.append(Finding("offline_lint", None, "r1: nft -c: syntax error"))
    lint.status = Status.FAIL
    offline, _ = verify_stages(report, tmp_path)
    assert offline.status == "FAIL" and offline.reason.startswith("offline_lint FAIL; see ")
