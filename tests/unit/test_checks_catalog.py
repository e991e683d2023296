"""Issue 45: a live check is one module of validate/checks/; the run, the report and watch iterate
over the catalog and name no check."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import boothnet
from boothnet.report.history import check_verdicts
from boothnet.report.summary import summarize
from boothnet.validate.checks import catalog, sections
from boothnet.validate.checks.base import LiveCheck
from boothnet.validate.results import ValidationResults
from tests.unit.report.report_sample import sample

SRC = Path(boothnet.__file__).parent
CHECKS = SRC / "validate" / "checks"


def test_every_module_of_the_package_that_defines_a_check_is_in_the_catalog_in_its_order() -> None:
    modules = {p.stem for p in CHECKS.glob("*.py") if not p.stem.startswith("_") and p.stem != "base"}
    found = {type(check).__module__.rsplit(".", 1)[1] for check in catalog()}
    assert found == modules
    names = [check.name for check in catalog()]
    assert len(set(names)) == len(names) and [c.order for c in catalog()] == sorted(c.order for c in catalog())
    for expected in ("convergence", "reach", "cabling", "endpoints", "isolation", "mtu", "vpn", "throughput",
                     "loss", "backbone", "production under load", "wan", "wan sweep", "drift", "conditions"):
        assert expected in names


def test_each_check_with_rows_has_a_table_whose_rows_fit_its_header() -> None:
    results = sample()
    for check in catalog():
        if not check.has_rows:
            continue
        assert check.title and check.header and check.section, check.name
        for row in check.table(results):
            assert len(row) == len(check.header), check.name


def test_a_row_of_a_shared_field_belongs_to_exactly_one_check() -> None:
    results = sample()
    for field in {check.field for check in catalog() if check.field}:
        owners = [check for check in catalog() if check.field == field]
        for row in getattr(results, field):
            mine = [check.name for check in owners if check.owns(row)]
            assert len(mine) == 1, (field, row, mine)


def _string_constants(path: Path) -> set[str]:
    return {node.value for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Constant)
            and isinstance(node.value, str)}


def test_the_report_and_watch_name_no_check() -> None:
    names = {check.name for check in catalog()}
    for package in ("report", "watch"):
        for path in (SRC / package).glob("*.py"):
            named = names & _string_constants(path)
            assert not named, f"{path.relative_to(SRC)} names the check(s) {sorted(named)}"


class _Reboots(LiveCheck):
    """A check the results' schema does not know: its rows go to results.more."""

    name = section = "reboots"
    order = 999
    title = "Reboots"
    header = ("verdict", "device")


def test_a_check_without_a_field_keeps_its_rows_in_more_and_reads_them_back() -> None:
    from pydantic import BaseModel

    class Row(BaseModel):
        device: str
        verdict: str

    check = _Reboots()
    type(check).row_type = Row
    results = ValidationResults(network="n")
    check.store(results, [Row(device="r1", verdict="FAIL")])
    again = ValidationResults.model_validate(json.loads(results.model_dump_json()))
    assert again.more == {"reboots": [{"device": "r1", "verdict": "FAIL"}]}
    assert check.rows(again) == [Row(device="r1", verdict="FAIL")]


def test_the_summary_and_history_of_the_sample_come_from_the_catalog() -> None:
    results = sample()
    summary = summarize(results)
    assert {f.section for f in summary.failures} <= {"stage"} | set(sections())
    keys = check_verdicts(results)
    assert sum(not k.startswith("stage ") for k in keys) == sum(len(c.rows(results)) for c in catalog())
