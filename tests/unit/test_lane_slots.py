"""Issue 68: a check measured in another's lanes (backbone, loss in throughput's) asks for its
slot through ``lane_jobs``, runs no stage of its own, and its rows reach the results through its
own ``store``; the lanes keep the order host paths, backbone aggregates, loss tests."""

from __future__ import annotations

from dataclasses import replace

from boothnet.validate.access import Access
from boothnet.validate.checks import catalog
from boothnet.validate.checks.backbone import CHECK as BACKBONE
from boothnet.validate.checks.loss import CHECK as LOSS
from boothnet.validate.checks.throughput import CHECK as THROUGHPUT
from boothnet.validate.perf.runner import CommandResult
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.results import ValidationResults
from boothnet.validate.run import LaneJob, Lanes


def _lanes(inventory_copy) -> Lanes:
    """lab-mini with its admins measuring the research VLAN: host paths and an aggregate across r1 -- r2."""
    from boothnet.intent import load_network

    inv = inventory_copy("lab-mini")
    inv.edit("group_vars/all/policy.yml", lambda d: d["policy"]["rules"].insert(0, {
        "name": "admins-measure-lab", "from": "group:admins", "to": "zone:research", "proto": "tcp",
        "ports": [5201, 5000, 5001], "action": "permit"}))

    def runner(node, argv, timeout):
        return CommandResult(node, tuple(argv), 0, "", "")

    return Lanes(load_network(inv.path), Access("lab", runner, str), lambda _: None)


def _jobs(lanes: Lanes) -> list[tuple[str, LaneJob]]:
    return [(check.name, job) for check in (THROUGHPUT, *(c for c in catalog() if c.rides == "throughput"))
            for job in check.lane_jobs(lanes)]


def _row(job: LaneJob, kind: str) -> ThroughputResult:
    return ThroughputResult(tool=job.tool, path=job.test.name + (" (loss)" if kind == "loss" else ""),
                            reverse=job.reverse, kind=kind, succeeded=True)


def test_the_riders_ask_for_their_slots_in_the_checks_order(inventory_copy) -> None:
    assert [c.name for c in catalog() if c.rides == "throughput"] == ["backbone", "loss"]
    lanes = _lanes(inventory_copy)
    jobs = _jobs(lanes)
    names = [name for name, _ in jobs]
    assert names == sorted(names, key=["throughput", "backbone", "loss"].index)  # host paths, aggregates, loss
    assert {"throughput", "backbone", "loss"} <= set(names)
    assert all((job.test.across is not None) == (name == "backbone") for name, job in jobs)
    assert all(job.tool == "iperf3" for name, job in jobs if name == "loss")
    spot = _jobs(replace(lanes, spot=3))  # a watch round's spot check: one host path alone
    assert [(name, job.test.across) for name, job in spot] == [("throughput", None)]


def test_each_riders_rows_are_stored_through_its_own_check(inventory_copy) -> None:
    jobs = _jobs(_lanes(inventory_copy))
    rows = [_row(job, "loss" if name == "loss" else "path") for name, job in jobs]
    results = ValidationResults(network="lab-mini")
    THROUGHPUT.store(results, rows)
    assert results.throughput == rows  # one field, in the lanes' order
    for check in (THROUGHPUT, BACKBONE, LOSS):
        assert check.rows(results) == [row for (name, _), row in zip(jobs, rows, strict=True) if name == check.name]


def test_a_rider_makes_no_stage_of_its_own() -> None:
    class Ctx:  # what execute would touch first: a rider returns before it
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"a rider's execute read ctx.{name}")

    for rider in (BACKBONE, LOSS):
        rider.execute(Ctx())  # type: ignore[arg-type]  # a stand-in that fails on any use
