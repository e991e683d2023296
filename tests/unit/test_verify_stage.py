"""The verify stage without Batfish: one load and one derive per context; the CLI's report path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import boothnet.render.build as build_mod
import boothnet.verify.batfish.from_intent as from_intent
import boothnet.verify.stage as verify_stage
from boothnet.cli import main
from boothnet.derive import derive_network
from boothnet.intent import load_network

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _offline(no_batfish):
    """These tests are about the offline part of verify."""


def test_verify_loads_once_and_derives_once_per_context(tmp_path, monkeypatch):
    loads: list[Path] = []
    contexts: list[bool] = []

    def counting_load(root):
        loads.append(Path(root))
        return load_network(root)

    def counting_derive(net, ctx=None):
        contexts.append(bool(ctx and ctx.batfish_view))
        return derive_network(net, ctx)

    for module in (verify_stage, build_mod, from_intent):
        if hasattr(module, "load_network"):
            monkeypatch.setattr(module, "load_network", counting_load)
        if hasattr(module, "derive_network"):
            monkeypatch.setattr(module, "derive_network", counting_derive)

    report = verify_stage.run_verify_stage(ROOT / "inventories" / "lab-mini", tmp_path)

    assert len(loads) == 1
    assert sorted(contexts) == [False, True]  # the device configs, then the Batfish view
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
    from boothnet.cli.stages import _verify_stages

    report = verify_stage.run_verify_stage(ROOT / "inventories" / "lab-mini", tmp_path)
    offline, batfish = _verify_stages(report, tmp_path / "lab-mini" / "verify")
    assert (offline.name, offline.status, offline.reason) == ("verify (offline lint)", "PASS", None)
    assert (batfish.name, batfish.status) == ("verify (Batfish)", "SKIPPED")
    assert batfish.reason.startswith("parsing SKIPPED, unused SKIPPED, references SKIPPED, vlans SKIPPED and 7 more")
    assert "BATFISH_HOST unset" in batfish.reason and batfish.reason.endswith("lab-mini/verify/verify.md")


def test_a_lint_finding_fails_the_offline_stage_whatever_batfish_did(tmp_path):
    from boothnet.cli.stages import _verify_stages
    from boothnet.verify.batfish.report import Finding, Status

    report = verify_stage.run_verify_stage(ROOT / "inventories" / "lab-mini", tmp_path)
    lint = next(c for c in report.checks if c.name == "offline_lint")
    lint.findings.append(Finding("offline_lint", None, "r1: nft -c: syntax error"))
    lint.status = Status.FAIL
    offline, _ = _verify_stages(report, tmp_path)
    assert offline.status == "FAIL" and offline.reason.startswith("offline_lint FAIL; see ")
