"""Report content: the first screen names every failure; SKIPPED is never PASS."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from report_sample import FAILING_LINK, FAILING_PATH, sample

from boothnet.report import IsolationRow, Stage, ValidationResults, summarize, write_report
from boothnet.report.__main__ import main

FIRST_SCREEN_LINES = 25


def _first_screen_md(path: Path) -> str:
    return "\n".join(path.read_text().splitlines()[:FIRST_SCREEN_LINES])


def _first_screen_html(path: Path) -> str:
    # everything before the first section table is the first screen
    text = path.read_text()
    return html.unescape(text[: text.index("<h2>Stages</h2>")])


def test_planted_failures_are_on_the_first_screen(tmp_path: Path) -> None:
    paths = write_report(sample(), tmp_path)
    for first in (_first_screen_md(paths.markdown), _first_screen_html(paths.html)):
        assert "FAIL" in first
        assert FAILING_PATH in first  # throughput, named by path
        assert FAILING_LINK in first  # MTU, named by link
        assert "flow r110 -> mgmt icmp" in first  # isolation, named by flow
        assert "r113: node2 -> fs1" in first
        assert "Connection refused" in first


def test_clean_run_is_pass_and_lists_no_failures(tmp_path: Path) -> None:
    # one isolation row in the sample is not measured: that alone makes it incomplete
    s = summarize(sample(plant_failures=False))
    assert s.overall == "PASS_WITH_SKIPS" and not s.failures
    assert "1 isolation check not measured" in s.headline
    res = sample(plant_failures=False)
    res.isolation = [r for r in res.isolation if r.observed is not None]
    assert summarize(res).overall == "PASS"
    paths = write_report(res, tmp_path)
    assert 'class="banner PASS"' in paths.html.read_text()


def test_skipped_stage_is_not_shown_as_passed(tmp_path: Path) -> None:
    res = sample(plant_failures=False, skip_batfish=True)
    res.isolation = [r for r in res.isolation if r.observed is not None]
    s = summarize(res)
    assert s.overall == "PASS_WITH_SKIPS"
    assert "SKIPPED" in s.headline and "batfish" in s.headline
    paths = write_report(res, tmp_path)
    page = paths.html.read_text()
    assert 'class="banner PASS"' not in page and 'class="banner PASS_WITH_SKIPS"' in page
    assert re.search(r'<td class="s-SKIPPED">SKIPPED</td>\s*<td>batfish</td>', page)
    assert not re.search(r'<td class="s-PASS">PASS</td>\s*<td>batfish</td>', page)
    md = _first_screen_md(paths.markdown)
    assert "## PASS (incomplete)" in md and "stage batfish: BATFISH_HOST not set" in md
    assert "| SKIPPED | batfish |" in paths.markdown.read_text()


def test_only_skips_is_not_pass() -> None:
    res = ValidationResults(network="x", stages=[Stage(name="batfish", status="SKIPPED")])
    assert summarize(res).overall == "SKIPPED"


def test_html_is_self_contained(tmp_path: Path) -> None:
    paths = write_report(sample(), tmp_path)
    page = paths.html.read_text()
    assert page.count("data:image/png;base64,") == 2
    assert not re.search(r'(src|href)="(?!data:)', page)  # no external file or URL
    assert "<link" not in page and "<script" not in page
    assert paths.plots["throughput"].read_bytes()[:4] == b"\x89PNG"
    assert paths.plots["isolation"].read_bytes()[:4] == b"\x89PNG"


def test_report_json_has_summary_and_round_trips(tmp_path: Path) -> None:
    res = sample()
    paths = write_report(res, tmp_path)
    doc = json.loads(paths.json.read_text())
    assert doc["summary"]["overall"] == "FAIL"
    subjects = [f["subject"] for f in doc["summary"]["failures"]]
    assert any(FAILING_PATH in s for s in subjects)
    again = ValidationResults.model_validate(doc["results"])
    assert [t.path for t in again.throughput] == [t.path for t in res.throughput]


def test_isolation_verdict_is_derived_and_cannot_lie() -> None:
    row = IsolationRow(src="a", dst="b", src_zone="r110", dst_zone="mgmt", flow="icmp",
                       expected="deny", observed="permit")
    assert row.verdict == "FAIL"
    with pytest.raises(ValueError, match="contradicts"):
        IsolationRow(src="a", dst="b", src_zone="r110", dst_zone="mgmt", flow="icmp",
                     expected="deny", observed="permit", verdict="PASS")


def test_cli_writes_report_and_fails_on_failures(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "results.json"
    src.write_text(sample().model_dump_json())
    assert main([str(src), str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and str(tmp_path / "out" / "report.html") in out


def test_a_dual_stack_run_counts_each_family_on_the_first_screen(tmp_path: Path) -> None:
    rows = [IsolationRow(src="h1", dst="h3", src_zone="users", dst_zone="lab", flow="icmp", expected="permit",
                         observed="permit"),
            IsolationRow(src="h3", dst="h1", src_zone="lab", dst_zone="users", flow="tcp/22 (IPv6)", expected="deny",
                         observed="permit", family=6, batfish="deny", engine="offline evaluator",
                         batfish_detail="LAB_IN_V6 on cs1: deny ipv6 any any log")]
    res = ValidationResults(network="eos-core-ds", stages=[Stage(name="isolation", status="FAIL")], isolation=rows)
    summary = summarize(res)
    assert summary.family_line() == "IPv4: 1 passed, 0 failed · IPv6: 0 passed, 1 failed"
    paths = write_report(res, tmp_path)
    md = paths.markdown.read_text()
    assert "By family: IPv4: 1 passed, 0 failed · IPv6: 0 passed, 1 failed" in html.unescape(paths.html.read_text())
    assert "By family: IPv4: 1 passed, 0 failed · IPv6: 0 passed, 1 failed" in md
    assert "live lab permit, offline evaluator deny (LAB_IN_V6 on cs1: deny ipv6 any any log)" in md
    # an IPv4-only run says nothing of families
    assert summarize(res.model_copy(update={"isolation": rows[:1]})).family_line() is None
