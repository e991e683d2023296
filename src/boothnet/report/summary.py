"""Verdict of a whole run, and the failure list for the first screen."""

from __future__ import annotations

from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.results import STATUSES, Failure, Overall, Status, Summary, ValidationResults


def throughput_status(r: ThroughputResult) -> Status:
    if not r.succeeded:
        return Status.ERROR if r.verdict == Status.ERROR else Status.FAIL  # ERROR: a host could not run it
    return r.verdict or Status.SKIPPED  # measured but never judged against an expectation


def throughput_subject(r: ThroughputResult) -> str:
    name = r.path or f"{r.source} -> {r.destination}"
    test = "" if r.kind == "path" else f"{r.kind}{f' -w {r.window}' if r.window else ''}, "
    way = f"reverse, {r.source} -> {r.destination}, " if r.reverse else ""
    return f"path {name} ({way}{test}{r.tool}, {r.streams} stream{'s' if r.streams != 1 else ''})"


def both_ways(results: list[ThroughputResult]) -> list[tuple[ThroughputResult | None, ThroughputResult | None]]:
    """The LAN path tests as (forward, reverse) pairs, in the order measured."""
    pairs: dict[tuple[str, str, int], list[ThroughputResult | None]] = {}
    for r in results:
        if r.kind == "path":
            pairs.setdefault((r.path, r.tool, r.streams), [None, None])[r.reverse] = r
    return [(forward, reverse) for forward, reverse in pairs.values()]


def throughput_message(r: ThroughputResult) -> str:
    if r.explanation:
        return r.explanation
    if not r.succeeded:
        return f"{r.tool} failed: {r.error}"
    if r.expected is None:
        return f"{r.throughput / 1e6:.1f} Mb/s measured, no expectation"
    return (f"{r.throughput / 1e6:.1f} Mb/s measured, {r.throughput / r.expected:.0%} of "
            f"expected {r.expected / 1e6:.1f} Mb/s (needs >= {r.pass_ratio or 0:.0%})")


STAGE_ACTIONS = {
    "deploy": "read the deploy summary: which config is in force on each device, then fix and deploy again",
    "convergence": "routing did not converge: check OSPF on the routers (vtysh: show ip ospf neighbor)",
    "verify (Batfish)": "fix the findings in build/<network>/verify/verify.md, then build and verify again",
    "verify (offline lint)": "fix the findings in build/<network>/verify/verify.md, then build and verify again",
}


def _isolation_action(row) -> str:  # noqa: ANN001 - an IsolationRow
    where = f" on {row.device}" if row.device else ""
    if row.batfish is not None and row.batfish != row.observed:
        return f"the running config{where} is not what was built: redeploy, then look for drift"
    if row.observed == "permit":
        return f"close it{where}: the rule {row.rule!r} must drop it; redeploy" if row.rule else \
            f"close it{where}; redeploy"
    return f"open it{where}: the intent permits it" + (f" (rule {row.rule!r})" if row.rule else "")


def _throughput_action(r: ThroughputResult) -> str:
    if r.expected and r.succeeded and r.throughput > r.expected:
        return "shape the path's links to their speed (or correct the speed in the intent)"
    if not r.succeeded:
        return f"make {r.tool} run between {r.source} and {r.destination} (is its port open?)"
    return "find the slow hop: a link below its speed, drops (retransmits), or a window too small for the RTT"


def _count(statuses: list[Status]) -> dict[str, int]:
    return {s: statuses.count(s) for s in STATUSES}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _stage_failures(res: ValidationResults) -> list[Failure]:
    failures = []
    for st in res.stages:
        where = f" on {st.device}" if st.device else ""
        if st.status in ("FAIL", "ERROR"):
            failures.append(Failure(section="stage", subject=f"stage {st.name}{where}",
                                    message=st.reason or st.status.lower(), kind=st.status,
                                    action=STAGE_ACTIONS.get(st.name, "see the stage's section below")))
    return failures


def _skipped_stages(res: ValidationResults) -> list[str]:
    return [f"stage {st.name}: {st.reason or 'skipped'}{' (NOT RUN)' if st.status == 'NOT RUN' else ''}"
            for st in res.stages if st.status in ("SKIPPED", "NOT RUN")]


def isolation_subject(row) -> str:  # noqa: ANN001 - an IsolationRow
    return f"flow {row.src_zone} -> {row.dst_zone} {row.flow} ({row.src} -> {row.dst})"


def mtu_subject(row) -> str:  # noqa: ANN001 - an MtuRow
    return f"link {row.path}" + (f" [{row.device}]" if row.device else "")


def _isolation_failures(res: ValidationResults) -> list[Failure]:
    failures = []
    for row in res.isolation:
        flow = isolation_subject(row)
        if row.verdict == "ERROR":
            failures.append(Failure(section="isolation", kind="ERROR", subject=flow,
                                    message=f"not probed: {row.error}",
                                    action="free the port on the destination host and run validate again"))
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
                + (f": {row.detail}" if row.detail else ""),
                action=_isolation_action(row)))
    return failures


def _wiring_failures(res: ValidationResults) -> list[Failure]:
    """Cables, endpoints and drift: what is plugged or changed where the intent says otherwise."""
    failures = []
    for c in res.cabling:
        if c.verdict in ("FAIL", "ERROR"):
            failures.append(Failure(section="cabling", subject=f"cable {c.cable}", kind=c.verdict,
                                    message=c.cause or "not where the intent says",
                                    action=f"re-plug {c.label} as its label says ({c.cable.partition(' ')[2]})"
                                    if c.label != "-" else "unplug it, or add the cable to the intent"))
    for e in res.endpoints:
        if e.verdict in ("FAIL", "ERROR"):
            failures.append(Failure(section="endpoints", subject=f"endpoint {e.host} ({e.vlan}, {e.attach})",
                                    kind=e.verdict,
                                    message=e.cause or "not where the intent puts it",
                                    action=f"plug {e.host} into {e.attach.replace(':', ' ')} and give it "
                                    f"{e.address} (VLAN {e.vlan})"))
    for d in res.drift:
        if d.verdict in ("FAIL", "ERROR"):
            failures.append(Failure(section="drift", subject=f"device {d.device}", kind=d.verdict,
                                    message=d.cause or "differs from what was deployed",
                                    action=f"find who changed {d.device}; redeploy (make deploy) or put the "
                                    "change into the intent"))
    return failures


def _path_failures(res: ValidationResults) -> list[Failure]:
    """MTU, throughput, RTT and the VPN: what a path carries and how fast."""
    return [*_mtu_failures(res), *_throughput_failures(res), *_rtt_failures(res), *_production_failures(res),
            *_vpn_failures(res)]


def _mtu_failures(res: ValidationResults) -> list[Failure]:
    failures = []
    for m in res.mtu:
        if m.verdict in ("FAIL", "ERROR"):
            failures.append(Failure(section="mtu", subject=mtu_subject(m), kind=m.verdict,
                                    message=f"MTU {m.mtu} {m.source} -> {m.destination}: "
                                            f"{m.cause or 'failed'}",
                                    action=f"set MTU {m.mtu} on every hop of {m.path}"
                                    + (f" (first: {m.device})" if m.device else "")))
    return failures


def _throughput_failures(res: ValidationResults) -> list[Failure]:
    failures = []
    for r in res.throughput:
        if (status := throughput_status(r)) in ("FAIL", "ERROR"):
            failures.append(Failure(section="throughput", subject=throughput_subject(r), kind=status,
                                    message=throughput_message(r), action=_throughput_action(r)))
    return failures


def _rtt_failures(res: ValidationResults) -> list[Failure]:
    failures = []
    for row in res.rtt:
        if row.verdict == "FAIL":
            failures.append(Failure(section="rtt", subject=f"path {row.path} ({row.payload} B DF ping)",
                                    message=row.cause or "failed",
                                    action="check the WAN hop's delay and the intent's delay_ms for it"))
    return failures


def _production_failures(res: ValidationResults) -> list[Failure]:
    failures = []
    for probe in res.production:
        if probe.verdict in ("FAIL", "ERROR"):
            failures.append(Failure(section="production", kind=probe.verdict,
                                    subject=f"{probe.probe} {probe.source} -> {probe.destination} under research load",
                                    message=probe.cause,
                                    action="find what carries research traffic into this production host's path: "
                                    "a mirror (SPAN) session, a shared trunk or uplink, shaping or QoS removed"))
    return failures


def _vpn_failures(res: ValidationResults) -> list[Failure]:
    failures = []
    for v in res.vpn:
        if v.verdict == "FAIL":
            rec = "" if v.recovery_time_s is None else \
                f", recovered in {v.recovery_time_s:g} s (max {v.max_recovery_s:g} s)" \
                if v.max_recovery_s is not None else f", recovered in {v.recovery_time_s:g} s"
            failures.append(Failure(
                section="vpn", subject=f"tunnel {v.name}" +
                (f" [{', '.join(v.devices)}]" if v.devices else ""),
                message=f"state {v.state} (expected {v.expected_state}){rec}",
                action=f"on {', '.join(v.devices) or 'the gateways'}: `swanctl --list-sas`; check the PSK, "
                "the proposals and that UDP 500/4500 pass"))
    return failures


def _counts(res: ValidationResults) -> dict[str, dict[str, int]]:
    return {
        "stages": _count([s.status for s in res.stages]),
        "endpoints": _count([e.verdict for e in res.endpoints]),
        "isolation": _count([r.verdict or Status.SKIPPED for r in res.isolation]),
        "mtu": _count([m.verdict for m in res.mtu]),
        "throughput": _count([throughput_status(r) for r in res.throughput]),
        "rtt": _count([row.verdict for row in res.rtt]),
        "production": _count([probe.verdict for probe in res.production]),
        "vpn": _count([v.verdict or Status.SKIPPED for v in res.vpn]),
        "drift": _count([d.verdict for d in res.drift]),
        "cabling": _count([c.verdict for c in res.cabling]),
    }


def summarize(res: ValidationResults) -> Summary:
    failures = _stage_failures(res) + _isolation_failures(res) + _wiring_failures(res) + _path_failures(res)
    skipped = _skipped_stages(res)
    counts = _counts(res)
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
    if res.warnings:
        headline += f"; {_plural(len(res.warnings), 'warning')}"
    return Summary(network=res.network, overall=overall, headline=headline, failures=failures,
                   skipped=skipped, counts=counts, errors=errors)
