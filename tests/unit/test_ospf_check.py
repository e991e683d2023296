"""The OSPF adjacency check, added after the catalog (issue 45): one module, its rows in
results.more, its failures, table and history keys found by the report through the catalog."""

from __future__ import annotations

from boothnet.report.history import check_verdicts
from boothnet.report.render import write_report
from boothnet.report.summary import summarize
from boothnet.validate.checks import catalog
from boothnet.validate.checks.ospf import CHECK, adjacency_rows
from boothnet.validate.results import ValidationResults

INTENDED = {"eth3": {"10.0.0.2": "r2"}, "br10": {"10.0.10.2": "r3", "10.0.10.3": "r4"}}


def test_an_adjacency_is_up_when_full_or_two_way_toward_a_drother_and_names_what_it_found_otherwise() -> None:
    read = {"eth3": [{"router_id": "10.0.0.2", "address": "10.0.0.2", "state": "ExStart"}],
            "br10": [{"router_id": "3.3.3.3", "address": "10.0.10.2", "state": "2-Way"},
                     {"router_id": "9.9.9.9", "address": "10.0.10.9", "state": "Full"}]}  # the DR
    rows = {(r.interface, r.neighbour): r for r in adjacency_rows("r1", INTENDED, read)}
    assert rows[("br10", "r3")].verdict == "PASS"
    assert rows[("eth3", "r2")].verdict == "FAIL"
    assert rows[("eth3", "r2")].cause == "r1 eth3: no adjacency with r2 (10.0.0.2): stuck in ExStart"
    assert rows[("br10", "r4")].cause == "r1 br10: no adjacency with r4 (10.0.10.3): no such neighbour"
    full = {"eth3": [{"address": "10.0.0.2", "state": "Full"}],
            "br10": [{"address": "10.0.10.2", "state": "Full"}, {"address": "10.0.10.3", "state": "Full"}]}
    assert {r.verdict for r in adjacency_rows("r1", INTENDED, full)} == {"PASS"}
    # two routers on a link, both 2-Way: no DR, no routes (still forming, or both priority 0)
    forming = adjacency_rows("r1", {"eth3": {"10.0.0.2": "r2"}}, {"eth3": [{"address": "10.0.0.2", "state": "2-Way"}]})
    assert forming[0].cause == "r1 eth3: no adjacency with r2 (10.0.0.2): stuck in 2-Way"


def test_a_device_not_read_is_an_error_and_one_whose_driver_cannot_is_not_run() -> None:
    unread = adjacency_rows("r1", INTENDED, "could not be reached: TimeoutError: timed out")
    assert {r.verdict for r in unread} == {"ERROR"} and len(unread) == 3
    assert unread[0].cause == "r1's OSPF neighbours not read: could not be reached: TimeoutError: timed out"
    ios = adjacency_rows("core1", INTENDED, "its driver reads no OSPF neighbours (IOSDriver has no get_ospf_neighbors)")
    assert {r.verdict for r in ios} == {"NOT RUN"}


def test_the_report_history_and_watch_find_it_through_the_catalog(tmp_path) -> None:
    assert CHECK in catalog()
    results = ValidationResults(network="lab-mini")
    CHECK.store(results, adjacency_rows("r1", {"eth3": {"10.0.0.2": "r2"}}, {"eth3": []}))
    assert results.more["ospf"][0]["verdict"] == "FAIL"
    summary = summarize(results)
    assert [(f.section, f.subject) for f in summary.failures] == [("ospf", "adjacency r1 eth3 -> r2 (10.0.0.2)")]
    assert summary.counts["ospf"]["FAIL"] == 1
    assert check_verdicts(results) == {"ospf adjacency r1 eth3 -> r2 (10.0.0.2)": "FAIL"}
    page = write_report(results, tmp_path / "report").markdown.read_text()
    assert "## OSPF adjacencies" in page and "no such neighbour" in page


def test_the_adjacency_wait_takes_only_what_the_convergence_wait_left(monkeypatch) -> None:
    """A network that did not converge in the convergence wait is not waited for again: the
    adjacencies are read once more, within what is left of that wait's time."""
    import time
    from types import SimpleNamespace

    from boothnet.validate.checks import ospf
    from boothnet.validate.checks.base import Context
    from boothnet.validate.profile import FULL

    waits: list[float] = []
    monkeypatch.setattr(ospf, "poll", lambda probe, done, timeout: waits.append(timeout) or probe())
    ctx = Context(run=SimpleNamespace(), access=SimpleNamespace(routers=lambda: []), profile=FULL.edit(
        convergence_timeout_s=60), progress=lambda _: None, results=ValidationResults(network="n"))
    for settle_by in (None, time.monotonic() - 5, time.monotonic() + 30):
        ctx.settle_by = settle_by
        CHECK.measure(ctx)
    assert waits[:2] == [60, 0.0] and 29 < waits[2] <= 30, waits
