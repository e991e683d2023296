"""Verdict of a whole run, and the failure list for the first screen: each check of the catalog
says its own failures; the stages say theirs where no row does."""

from __future__ import annotations

from boothnet.validate.checks import catalog, sections
from boothnet.validate.results import STATUSES, Failure, Overall, Stage, Status, Summary, ValidationResults

# the pipeline's own stages (not live checks): what to do when one fails
STAGE_ACTIONS = {
    "deploy": "read the deploy summary: which config is in force on each device, then fix and deploy again",
    "verify (Batfish)": "fix the findings in build/<network>/verify/verify.md, then build and verify again",
    "verify (offline lint)": "fix the findings in build/<network>/verify/verify.md, then build and verify again",
}


def _count(statuses: list[Status]) -> dict[str, int]:
    return {s: statuses.count(s) for s in STATUSES}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _stage_action(stage: Stage) -> str:
    check = next((c for c in catalog() if c.name == stage.name), None)
    return check.stage_action if check else STAGE_ACTIONS.get(stage.name, "see the stage's section below")


def stage_subject(st: Stage) -> str:
    return f"stage {st.name}{f' on {st.device}' if st.device else ''}"


def stage_failures(res: ValidationResults) -> list[Failure]:
    return [Failure(section="stage", subject=stage_subject(st),
                    message=st.reason or st.status.lower(), kind=st.status, action=_stage_action(st))
            for st in res.stages if st.status in ("FAIL", "ERROR")]


def row_failures(res: ValidationResults) -> list[Failure]:
    """Every failed or unmade check's row, check by check."""
    return [failure for check in catalog() if check.has_rows
            for row in check.rows(res) if (failure := check.failure(row)) is not None]


def _skipped_stages(res: ValidationResults) -> list[str]:
    return [f"stage {st.name}: {st.reason or 'skipped'}{' (NOT RUN)' if st.status == 'NOT RUN' else ''}"
            for st in res.stages if st.status in ("SKIPPED", "NOT RUN")]


def _counts(res: ValidationResults) -> dict[str, dict[str, int]]:
    counts = {"stages": _count([s.status for s in res.stages])}
    for section in sections():
        counts[section] = _count([check.verdict(row) for check in catalog() if check.section == section
                                  for row in check.rows(res)])
    return counts


def _families(res: ValidationResults) -> dict[str, dict[str, int]]:
    """Per IP version, the verdicts of the rows made in one family (those with a `family`)."""
    by_family: dict[int, list[Status]] = {}
    for check in catalog():
        for row in check.rows(res):
            if (family := getattr(row, "family", None)) is not None:
                by_family.setdefault(family, []).append(check.verdict(row))
    return {f"IPv{family}": _count(verdicts) for family, verdicts in sorted(by_family.items())}


def summarize(res: ValidationResults) -> Summary:
    failures = stage_failures(res) + row_failures(res)
    skipped = _skipped_stages(res)
    counts = _counts(res)
    for section, count in counts.items():
        if section != "stages" and (n := count["SKIPPED"]):
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
                   skipped=skipped, counts=counts, errors=errors, families=_families(res))
