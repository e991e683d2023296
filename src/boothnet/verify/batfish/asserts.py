"""`assert_*` checks in the pybatfish style: return True, or raise with the offending rows.

`soft=True` downgrades a failure to a warning (warnings.warn, return False). Warning-level
findings (e.g. a trace Batfish could not follow through a tunnel) never raise; they warn.
"""

from __future__ import annotations

import warnings

import pandas as pd

from boothnet.verify.batfish import checks as ck
from boothnet.verify.batfish.intent import VerifyIntent
from boothnet.verify.batfish.report import CheckResult, Finding, Severity, Status


class BatfishCheckError(AssertionError):
    """A check failed; `.rows` holds the offending answer rows, `.findings` the findings."""

    def __init__(self, message: str, findings: list[Finding]) -> None:
        super().__init__(message)
        self.findings = findings
        self.rows = pd.DataFrame(
            [f.row if f.row is not None else f.to_dict() for f in findings]
        )


class CheckNotRun(BatfishCheckError):
    """The check was SKIPPED: it proves nothing, so it cannot pass."""


class BatfishCheckWarning(UserWarning):
    pass


def _conclude(name: str, findings: list[Finding], soft: bool) -> bool:
    title = ck.CHECKS.get(name, name)
    errors = [f for f in findings if f.severity == Severity.ERROR]
    notes = [f for f in findings if f.severity != Severity.ERROR]
    if notes:
        warnings.warn(f"{title}: " + "; ".join(f.one_line() for f in notes),
                      BatfishCheckWarning, stacklevel=3)
    if not errors:
        return True
    text = f"{title}: {len(errors)} finding(s)\n" + "\n".join(
        f"  - {f.one_line()}" for f in errors)
    if soft:
        warnings.warn(text, BatfishCheckWarning, stacklevel=3)
        return False
    raise BatfishCheckError(text, errors)


def assert_check_passed(result: CheckResult, *, soft: bool = False) -> bool:
    """A CheckResult from verify: PASS is True, FAIL raises, SKIPPED raises CheckNotRun."""
    if result.status == Status.SKIPPED:
        text = f"{result.title}: SKIPPED, proves nothing ({result.reason})"
        if soft:
            warnings.warn(text, BatfishCheckWarning, stacklevel=2)
            return False
        raise CheckNotRun(text, [])
    return _conclude(result.name, result.findings, soft)


def assert_configs_parse(
    file_status: pd.DataFrame,
    parse_warnings: pd.DataFrame | None = None,
    init_issues: pd.DataFrame | None = None,
    *,
    soft: bool = False,
) -> bool:
    return _conclude("parsing", ck.check_parsing(file_status, parse_warnings, init_issues), soft)


def assert_no_undefined_references(
    frame: pd.DataFrame, configs: dict[str, str] | None = None, *, soft: bool = False
) -> bool:
    return _conclude("references", ck.check_undefined_references(frame, configs), soft)


def assert_vlans_on_switches(
    vlan_props: pd.DataFrame,
    iface_props: pd.DataFrame,
    intent: VerifyIntent,
    configs: dict[str, str] | None = None,
    *,
    soft: bool = False,
) -> bool:
    return _conclude("vlans", ck.check_vlans(vlan_props, iface_props, intent, configs), soft)


def assert_mtu_consistent(
    iface_props: pd.DataFrame,
    l3_edges: pd.DataFrame | None,
    intent: VerifyIntent,
    *,
    soft: bool = False,
) -> bool:
    return _conclude("mtu", ck.check_mtu(iface_props, l3_edges, intent), soft)


def assert_zones_isolated(
    answers: list[pd.DataFrame], intent: VerifyIntent, *, soft: bool = False
) -> bool:
    return _conclude("isolation", ck.check_isolation(answers, intent), soft)


def assert_secure_network_only_from_clients(
    answers: list[pd.DataFrame], intent: VerifyIntent, *, soft: bool = False
) -> bool:
    return _conclude("secure_network", ck.check_secure_network(answers, intent), soft)


def assert_no_unreachable_acl_lines(frame: pd.DataFrame, *, soft: bool = False) -> bool:
    return _conclude("acl_lines", ck.check_acl_lines(frame), soft)


def assert_ipsec_established(
    frame: pd.DataFrame, intent: VerifyIntent, *, soft: bool = False
) -> bool:
    return _conclude("ipsec", ck.check_ipsec(frame, intent), soft)


def assert_path_mtu(
    traces: dict[str, pd.DataFrame],
    iface_props: pd.DataFrame,
    intent: VerifyIntent,
    configs: dict[str, str] | None = None,
    *,
    soft: bool = False,
) -> bool:
    return _conclude("path_mtu", ck.check_path_mtu(traces, iface_props, intent, configs), soft)


def assert_routes(traces: dict[str, pd.DataFrame], intent: VerifyIntent, *, soft: bool = False) -> bool:
    return _conclude("routes", ck.check_routes(traces, intent), soft)


__all__ = [
    "BatfishCheckError",
    "BatfishCheckWarning",
    "CheckNotRun",
    "assert_check_passed",
    "assert_configs_parse",
    "assert_ipsec_established",
    "assert_mtu_consistent",
    "assert_no_undefined_references",
    "assert_no_unreachable_acl_lines",
    "assert_path_mtu",
    "assert_routes",
    "assert_secure_network_only_from_clients",
    "assert_vlans_on_switches",
    "assert_zones_isolated",
]
