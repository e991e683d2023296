"""The verify stage: run every Batfish check on the rendered configs and write the report."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boothnet.verify.batfish import checks as ck
from boothnet.verify.batfish.intent import VerifyIntent
from boothnet.verify.batfish.questions import Answers, collect
from boothnet.verify.batfish.report import CheckResult, Finding, Status, VerifyReport
from boothnet.verify.batfish.service import BatfishUnavailable, open_session, service_status
from boothnet.verify.batfish.snapshot import build_snapshot_dir, init_snapshot, read_configs, snapshot_name


def verify_from_answers(
    intent: VerifyIntent, answers: Answers, configs: dict[str, str] | None = None
) -> list[CheckResult]:
    """Interpret answer frames into one CheckResult per check (SKIPPED where none came back)."""
    a = answers

    def run(name: str, needed: list[object], make: Callable[[], list[Finding]]) -> CheckResult:
        title = ck.CHECKS[name]
        if any(x is None for x in needed):
            why = "; ".join(f"{q}: {e}" for q, e in a.errors.items()) or "no Batfish answer"
            return CheckResult.skipped(name, title, f"answer missing ({why})")
        return CheckResult.from_findings(name, title, make())

    return [
        run("parsing", [a.file_status],
            lambda: ck.check_parsing(a.file_status, a.parse_warnings, a.init_issues)),
        run("unused", [a.unused_structures],
            lambda: ck.check_unused_structures(a.unused_structures, intent)),
        run("references", [a.undefined_references],
            lambda: ck.check_undefined_references(a.undefined_references, configs,
                                                  a.file_status)),
        run("vlans", [a.vlan_properties, a.interface_properties],
            lambda: ck.check_vlans(a.vlan_properties, a.interface_properties, intent, configs)),
        run("mtu", [a.interface_properties],
            lambda: ck.check_mtu(a.interface_properties, a.layer3_edges, intent)),
        run("isolation", [a.isolation], lambda: ck.check_isolation(a.isolation or [], intent)),
        run("secure_network", [a.secure],
            lambda: ck.check_secure_network(a.secure or [], intent)),
        _noted(run("policy", [a.policy], lambda: ck.check_policy_decisions(a.policy or [])),
               intent.extra.get("policy_sample")),
        run("acl_lines", [a.filter_lines], lambda: ck.check_acl_lines(a.filter_lines)),
        run("ipsec", [a.ipsec], lambda: ck.check_ipsec(a.ipsec, intent)),
        run("ospf", [a.ospf], lambda: ck.check_ospf(a.ospf)),
        run("path_mtu", [a.traces, a.interface_properties],
            lambda: ck.check_path_mtu(a.traces or {}, a.interface_properties, intent, configs)),
        _noted(run("routes", [a.traces], lambda: ck.check_routes(a.traces or {}, intent)),
               None if intent.routes else "no declared path crosses a router: nothing traced"),
    ]


def _noted(result: CheckResult, note: str | None) -> CheckResult:
    """A check that asked a sample says so, whatever its status."""
    if note:
        result.reason = f"{note}; {result.reason}" if result.reason else note
    return result


def skipped_report(reason: str, host: str | None, service: str) -> VerifyReport:
    report = VerifyReport(batfish_host=host, service_status=service)
    return report.add(CheckResult.skipped(n, t, reason) for n, t in ck.CHECKS.items())


@dataclass(frozen=True)
class LoadedSnapshot:
    """A snapshot of the Batfish view loaded in a session: later stages of the same run ask
    their questions of it instead of loading the same configs again."""

    host: str | None
    session: Any
    name: str


@dataclass(frozen=True)
class Alongside:
    """What the pipeline's verify stage adds to Batfish's checks: its offline results (config
    lint, ...) and the notes on what the Batfish view left out, in the report; and who keeps the
    loaded snapshot (the run, for the validate stage to ask its flows of)."""

    results: Iterable[CheckResult] = ()
    view_notes: Iterable[str] = ()
    keep_session: Callable[[LoadedSnapshot], object] | None = None


def run_verify(
    intent: VerifyIntent,
    snapshot_configs: Path,
    out_dir: Path,
    host: str | None = None,
    require: bool = False,
    network: str = "boothnet",
    snapshot: str | None = None,
    alongside: Alongside | None = None,
) -> VerifyReport:
    """Run all Batfish checks on `snapshot_configs/*.cfg` cabled as the intent's links; write
    verify.json and verify.md.

    No service: every check SKIPPED with the reason and the docker command (fatal with
    `require`, raising BatfishUnavailable). Offline results (e.g. config lint) ride along
    in `alongside`.
    """
    alongside = alongside or Alongside()
    status = service_status(host, require)
    if not status.reachable:
        report = skipped_report(status.skip_reason, status.host, str(status))
    else:
        snap_dir = build_snapshot_dir(snapshot_configs, intent.links, out_dir / "snapshot")
        bf = open_session(status, network)
        snapshot = snapshot or snapshot_name("verify", out_dir)
        init_snapshot(bf, snap_dir, snapshot)
        if alongside.keep_session is not None:
            alongside.keep_session(LoadedSnapshot(status.host, bf, snapshot))
        answers = collect(bf, intent, snapshot)
        if answers.service_lost:
            raise BatfishUnavailable(
                f"Batfish at {status.host} stopped answering during verify: {len(answers.errors)} questions "
                f"unanswered (first: {answers.service_lost[:200]}); the configs are not verified and nothing "
                "was deployed")
        results = verify_from_answers(intent, answers, read_configs(snapshot_configs))
        if require:
            # With require_batfish a question that did not answer is a failure, not a skip.
            for r in results:
                if r.status == Status.SKIPPED:
                    r.status = Status.FAIL
        report = VerifyReport(batfish_host=status.host, service_status=str(status),
                              snapshot=snapshot).add(results)
    report.add(list(alongside.results))
    report.view_notes = list(alongside.view_notes)
    report.write(out_dir)
    return report
