"""The demo's runner: its steps in order, each saying what it takes and gives; a verify that
fails stops it with the findings, deploy and validate reported as not run, the lab taken down."""

from __future__ import annotations

import boothnet.pipeline as pipeline
from boothnet.pipeline import Demo, DemoOptions, Stopped, build_and_verify, demo_steps
from boothnet.run import Run
from boothnet.verify.batfish.report import CheckResult, Finding, VerifyReport
from tests.helpers import INVENTORIES, quiet


def test_the_steps_say_what_they_take_and_give(tmp_path):
    steps = demo_steps(Demo(Run(INVENTORIES / "lab-mini", tmp_path), DemoOptions()))
    assert [s.banner.split()[0] for s in steps] == ["lab", "build", "deploy", "validate:"]
    assert "Batfish SKIPPED: no service" in steps[1].banner
    assert all(s.takes and s.gives for s in steps)


def test_a_failed_verify_stops_with_its_findings_and_takes_the_lab_down(tmp_path, monkeypatch):
    failed = VerifyReport().add(CheckResult.from_findings(
        "isolation", "Research and production are isolated",
        [Finding("isolation", "r1", "permits research to production", flow="10.0.20.11 -> 10.0.10.11")]))
    downs: list[str] = []
    monkeypatch.setattr(pipeline, "run_verify_stage", lambda *a, **k: failed)
    monkeypatch.setattr(pipeline, "lab_down", lambda network, *a, **k: downs.append(network))
    demo = Demo(Run(INVENTORIES / "lab-mini", tmp_path), DemoOptions())
    try:
        build_and_verify(demo, quiet, quiet)
    except Stopped as stop:
        lines, results = stop.lines, stop.results
    else:
        raise AssertionError("a failed verify must stop the demo")
    assert lines[0] == "verify FAILED: nothing deployed. Findings:"
    assert lines[1].startswith("  FAIL Research and production are isolated: ") and "r1" in lines[1]
    assert lines[-1] == "lab lab-mini: down (verify failed)" and downs == ["lab-mini"]
    assert results is not None
    assert [(s.name, s.status) for s in results.stages][-2:] == [("deploy", "SKIPPED"), ("validate", "SKIPPED")]
