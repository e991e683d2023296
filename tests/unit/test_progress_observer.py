"""Issue 45 item 5: progress is one observer a run is given once; its lines and its stages' ends
reach the terminal and a watch round's record of where its time went."""

from __future__ import annotations

from boothnet.progress import Observer, StageTimes, observed, stage_line
from boothnet.watch.loop import _round_line
from boothnet.watch.model import RoundRecord


def test_a_line_reaches_every_sink_and_a_stage_end_each_as_it_can_hear_it() -> None:
    terminal: list[str] = []
    times = StageTimes()
    observer = Observer(terminal.append, times)
    observer("[isolation] h1: 12 flows probed")
    observer.stage("isolation", "PASS", 5.1)
    observer.stage("mtu", "FAIL", 2.0, "1 of 6 checks failed")
    observer.stage("ospf", "PASS", 0.8)
    assert terminal == ["[isolation] h1: 12 flows probed", "[stage] isolation PASS in 5.1 s",
                        "[stage] mtu FAIL in 2 s: 1 of 6 checks failed", "[stage] ospf PASS in 0.8 s"]
    assert times.slowest(2) == "isolation 5.1 s, mtu 2.0 s"


def test_an_observer_is_wrapped_once_and_a_function_becomes_its_sink() -> None:
    lines: list[str] = []
    observer = observed(lines.append)
    assert observed(observer) is observer
    observer.stage("convergence", "SKIPPED", None, "not asked")
    assert lines == [stage_line("convergence", "SKIPPED", None, "not asked")]
    assert lines == ["[stage] convergence SKIPPED: not asked"]


def test_a_watch_round_line_says_where_its_time_went() -> None:
    record = RoundRecord(number=3, started=0.0, finished=9.5, seed=3, verdict="PASS", headline="all 40 checks passed",
                         checks=40, slowest="isolation 5.1 s, mtu 2.0 s, ospf 0.8 s")
    assert _round_line(record).endswith("round 3: PASS, all 40 checks passed, 9.5 s (isolation 5.1 s, mtu 2.0 s, "
                                        "ospf 0.8 s)")
