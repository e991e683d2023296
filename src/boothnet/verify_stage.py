"""The verify stage: offline lint results plus every Batfish check, into build/<network>/verify/."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from boothnet.batfish.from_intent import build_batfish_view, verify_intent_from_model
from boothnet.batfish.report import CheckResult, Finding, Status, VerifyReport
from boothnet.batfish.verify import run_verify
from boothnet.build import build


def offline_results(inventory: Path, build_root: Path) -> list[CheckResult]:
    result = build(inventory, build_root)
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
    host = host or os.environ.get("BATFISH_HOST") or None
    progress("offline: build and lint")
    extra = offline_results(inventory, build_root)
    progress("Batfish view of the configs")
    view, net = build_batfish_view(inventory, build_root)
    intent = verify_intent_from_model(net)
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
    )
