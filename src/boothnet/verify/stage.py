"""The verify stage: offline lint results plus every Batfish check, into build/<network>/verify/."""

from __future__ import annotations

import time
from pathlib import Path

from boothnet.family import Family
from boothnet.layout import Layout
from boothnet.progress import Progress
from boothnet.render.build import BuildResult, BuildStart, build_intent
from boothnet.run import Run
from boothnet.verify.batfish.from_intent import batfish_view
from boothnet.verify.batfish.report import CheckResult, Finding, Severity, Status, VerifyReport
from boothnet.verify.batfish.service import find_host
from boothnet.verify.batfish.verify import Alongside, run_verify
from boothnet.verify.policy import PolicyPaths, flow_text


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
    # not wrong, but for a reviewer to see: a rule admitting listed hosts on unbound ports, a redundant rule
    checks.append(CheckResult.from_findings(
        "intent_warnings", "Intent warnings (rules on unbound ports, redundant rules)",
        [Finding("intent_warnings", None, warning, severity=Severity.WARNING) for warning in result.warnings],
        source="lint"))
    for name, outcome in sorted(result.tool_checks.items()):
        if outcome.status == Status.SKIPPED:
            checks.append(CheckResult.skipped(name, name, outcome.reason, source="lint"))
    return checks


def ipv6_policy(run: Run) -> list[CheckResult]:
    """A dual-stack intent's IPv6 ACLs against the intent, by boothnet's offline evaluator: Batfish
    0.36 models no IPv6 ACL, so this check is the offline one, and says so in its title."""
    if not run.net.dual_stack:
        return []
    paths = PolicyPaths(run.net, run.models("hardware"), family=Family.V6)
    findings = [Finding("ipv6_policy", m.expected.device, m.describe(), location=f"{m.expected.acl}: {m.line}",
                        flow=flow_text(m.expected.flow)) for m in paths.mismatches()]
    return [CheckResult.from_findings(
        "ipv6_policy", f"IPv6: every compiled ACL decides {len(paths.flows):,} representative flows as the intent "
        "does (offline evaluator: Batfish 0.36 models no IPv6 ACL)", findings, source="lint")]


def run_verify_stage(
    intent: Run | Path,
    build_root: Path = Path("build"),
    host: str | None = None,
    require: bool = False,
    progress: Progress = lambda _: None,
) -> VerifyReport:
    """The device configs built and linted as `boothnet build` does, and the Batfish view checked.
    The report goes to build/<network>/verify (`report.out_dir`). The snapshot stays loaded in
    the run (`run.batfish_snapshot`), for the validate stage to ask its flows of."""
    run = Run.of(intent, build_root)
    started = time.perf_counter()
    progress(f"validate {run.inventory}")
    net = run.net
    layout = Layout(build_root, net.name)
    host = find_host(host, layout.batfish_service)  # an Ansible module runs elsewhere than build/
    progress("offline: build and lint")
    built = build_intent(net, build_root, start=BuildStart(run.stamp, started), models=run.models("hardware"))[0]
    extra = offline_results(built) + ipv6_policy(run)
    progress("Batfish view of the configs")
    view = batfish_view(run)
    progress(f"Batfish at {host}" if host else "Batfish: no BATFISH_HOST")
    return run_verify(
        view.intent,
        view.configs.out_dir,
        layout.verify,
        host=host,
        require=require,
        network=net.name,
        alongside=Alongside(extra, view.notes(net), lambda loaded: setattr(run, "batfish_snapshot", loaded)),
    )
