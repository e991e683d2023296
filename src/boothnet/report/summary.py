"""Verdict of a whole run, and the failure list for the first screen."""

from __future__ import annotations

from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.results import STATUSES, Failure, Overall, Status, Summary, ValidationResults


def throughput_status(r: ThroughputResult) -> Status:
    if not r.succeeded:
        return "FAIL"
    return r.verdict or "SKIPPED"  # measured but never judged against an expectation


def throughput_subject(r: ThroughputResult) -> str:
    name = r.path or f"{r.source} -> {r.destination}"
    test = "" if r.kind == "path" else f"{r.kind}{f' -w {r.window}' if r.window else ''}, "
    return f"path {name} ({test}{r.tool}, {r.streams} stream{'s' if r.streams != 1 else ''})"


def throughput_message(r: ThroughputResult) -> str:
    if r.explanation:
        return r.explanation
    if not r.succeeded:
        return f"{r.tool} failed: {r.error}"
    if r.expected is None:
        return f"{r.throughput / 1e6:.1f} Mb/s measured, no expectation"
    return (f"{r.throughput / 1e6:.1f} Mb/s measured, {r.throughput / r.expected:.0%} of "
            f"expected {r.expected / 1e6:.1f} Mb/s (needs >= {r.pass_ratio or 0:.0%})")


def _count(statuses: list[Status]) -> dict[str, int]:
    return {s: statuses.count(s) for s in STATUSES}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def summarize(res: ValidationResults) -> Summary:
    failures: list[Failure] = []
    skipped: list[str] = []
    for st in res.stages:
        where = f" on {st.device}" if st.device else ""
        if st.status in ("FAIL", "ERROR"):
            failures.append(Failure(section="stage", subject=f"stage {st.name}{where}",
                                    message=st.reason or st.status.lower(), kind=st.status))
        elif st.status in ("SKIPPED", "NOT RUN"):
            skipped.append(f"stage {st.name}: {st.reason or 'skipped'}{' (NOT RUN)' if st.status == 'NOT RUN' else ''}")
    for row in res.isolation:
        flow = f"flow {row.src_zone} -> {row.dst_zone} {row.flow} ({row.src} -> {row.dst})"
        if row.verdict == "ERROR":
            failures.append(Failure(section="isolation", kind="ERROR", subject=flow,
                                    message=f"not probed: {row.error}"))
        if row.verdict == "FAIL":
            at = f" (rule {row.rule!r} on {row.device})" if row.rule and row.device else \
                 f" (on {row.device})" if row.device else ""
            failures.append(Failure(
                section="isolation",
                subject=flow,
                message=(f"live lab {row.observed}, Batfish {row.batfish} ({row.batfish_detail}): the "
                         f"configs and the lab disagree{at}")
                if row.batfish is not None and row.batfish != row.observed
                else f"expected {row.expected}, observed {row.observed}{at}"
                + (f": {row.detail}" if row.detail else "")))
    for c in res.cabling:
        if c.verdict in ("FAIL", "ERROR"):
            failures.append(Failure(section="cabling", subject=f"cable {c.cable}", kind=c.verdict,
                                    message=c.cause or "not where the intent says"))
    for e in res.endpoints:
        if e.verdict == "FAIL":
            failures.append(Failure(section="endpoints", subject=f"endpoint {e.host} ({e.vlan}, {e.attach})",
                                    message=e.cause or "not where the intent puts it"))
    for d in res.drift:
        if d.verdict in ("FAIL", "ERROR"):
            failures.append(Failure(section="drift", subject=f"device {d.device}", kind=d.verdict,
                                    message=d.cause or "differs from what was deployed"))
    for m in res.mtu:
        if m.verdict == "FAIL":
            dev = f" [{m.device}]" if m.device else ""
            failures.append(Failure(section="mtu", subject=f"link {m.path}{dev}",
                                    message=f"MTU {m.mtu} {m.source} -> {m.destination}: "
                                            f"{m.cause or 'failed'}"))
    for r in res.throughput:
        if throughput_status(r) == "FAIL":
            failures.append(Failure(section="throughput", subject=throughput_subject(r),
                                    message=throughput_message(r)))
    for row in res.rtt:
        if row.verdict == "FAIL":
            failures.append(Failure(section="rtt", subject=f"path {row.path} ({row.payload} B DF ping)",
                                    message=row.cause or "failed"))
    for v in res.vpn:
        if v.verdict == "FAIL":
            rec = "" if v.recovery_time_s is None else \
                f", recovered in {v.recovery_time_s:g} s (max {v.max_recovery_s:g} s)" \
                if v.max_recovery_s is not None else f", recovered in {v.recovery_time_s:g} s"
            failures.append(Failure(
                section="vpn", subject=f"tunnel {v.name}" +
                (f" [{', '.join(v.devices)}]" if v.devices else ""),
                message=f"state {v.state} (expected {v.expected_state}){rec}"))

    counts = {
        "stages": _count([s.status for s in res.stages]),
        "endpoints": _count([e.verdict for e in res.endpoints]),
        "isolation": _count([r.verdict or "SKIPPED" for r in res.isolation]),
        "mtu": _count([m.verdict for m in res.mtu]),
        "throughput": _count([throughput_status(r) for r in res.throughput]),
        "rtt": _count([row.verdict for row in res.rtt]),
        "vpn": _count([v.verdict or "SKIPPED" for v in res.vpn]),
        "drift": _count([d.verdict for d in res.drift]),
        "cabling": _count([c.verdict for c in res.cabling]),
    }
    for section in ("isolation", "mtu", "throughput", "vpn"):
        if n := counts[section]["SKIPPED"]:
            skipped.append(f"{n} {section} check{'s' if n != 1 else ''} not measured")
    checked = sum(c["PASS"] + c["FAIL"] for c in counts.values())
    errors = sum(f.kind == "ERROR" for f in failures)
    failed = len(failures) - errors

    overall: Overall
    if failures:
        overall = "FAIL"
        parts = [_plural(failed, "failure")] if failed else []
        if errors:
            parts.append(_plural(errors, "error") + " (checks that could not be made)")
        headline = "FAIL: " + ", ".join(parts)
        if skipped:
            headline += f"; {len(skipped)} item{'s' if len(skipped) != 1 else ''} SKIPPED"
    elif checked == 0:
        overall = "SKIPPED"
        headline = "SKIPPED: nothing was checked"
    elif skipped:
        overall = "PASS_WITH_SKIPS"
        headline = "PASS for what ran, but incomplete: " + "; ".join(skipped) + " (SKIPPED)"
    else:
        overall = "PASS"
        headline = f"PASS: all {checked} checks passed"
    return Summary(network=res.network, overall=overall, headline=headline, failures=failures,
                   skipped=skipped, counts=counts, errors=errors)
