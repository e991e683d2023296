"""The verify stage: offline lint results plus every Batfish check, into build/<network>/verify/."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from boothnet.intent import load_network
from boothnet.intent.stamp import stamp_intent
from boothnet.render.build import BuildResult, build_intent
from boothnet.verify.batfish.from_intent import render_batfish_view, verify_intent_from_model, view_differences
from boothnet.verify.batfish.report import CheckResult, Finding, Status, VerifyReport
from boothnet.verify.batfish.service import find_host
from boothnet.verify.batfish.verify import run_verify


def offline_results(result: BuildResult) -> list[CheckResult]:
    """The build's offline lint (and the tool checks it skipped) as verify check results."""
    findings = [Finding("offline_lint", None, finding) for finding in result.findings]
    checks = [
        CheckResult(
            "offline_lint",
            "Rendered configs pass offline lint",
            Status.FAIL if findings else Status.PASS,
            findings,
            source="lint",
        )
    ]
    for name, status in sorted(result.tool_checks.items()):
        if status.startswith("SKIPPED"):
            checks.append(CheckResult.skipped(name, name, status.partition(": ")[2], source="lint"))
    return checks


def run_verify_stage(
    inventory: Path,
    build_root: Path = Path("build"),
    host: str | None = None,
    require: bool = False,
    progress: Callable[[str], None] = lambda _: None,
) -> VerifyReport:
    """The intent is loaded and validated once and derived once per context: the device
    configs (built and linted as `boothnet build` does) and the Batfish view, whose models
    also give the VerifyIntent. The report goes to build/<network>/verify (`report.out_dir`)."""
    host = find_host(host, build_root / "batfish")  # an Ansible module runs elsewhere than build/
    started = time.perf_counter()
    progress(f"validate {inventory}")
    stamp = stamp_intent(inventory)  # before reading it, as `build` does
    net = load_network(inventory)
    progress("offline: build and lint")
    # the device models are not kept: only the Batfish view's are needed from here on
    extra = offline_results(build_intent(net, build_root, started=started, stamp=stamp)[0])
    progress("Batfish view of the configs")
    view, models = render_batfish_view(net, build_root)
    intent = verify_intent_from_model(net, models)
    progress(f"Batfish at {host}" if host else "Batfish: no BATFISH_HOST")
    return run_verify(
        intent,
        view.out_dir,
        intent.links,
        build_root / net.name / "verify",
        host=host,
        require=require,
        extra_results=extra,
        network=net.name,
        view_notes=view_differences(net),
    )
