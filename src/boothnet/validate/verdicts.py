"""What the results mean: a stage's status from its rows, and where Batfish and the live lab
disagree."""

from __future__ import annotations

import time
from collections.abc import Callable

from boothnet.validate.results import IsolationRow, Stage


def timed_stage(stages: list[Stage], name: str, run: Callable[[], list]) -> list:
    """Run one stage, append its Stage (FAIL when any row did not pass) and return its rows."""
    started = time.monotonic()
    rows = run()
    failed = any(row.verdict != "PASS" for row in rows)
    stages.append(
        Stage(name=name, status="FAIL" if failed else "PASS", duration_s=round(time.monotonic() - started, 1))
    )
    return rows


def judge_batfish_agreement(stage: Stage, rows: list[IsolationRow]) -> Stage:
    """The isolation (Batfish) stage fails when Batfish and the live lab disagree on any row
    (each such row fails on its own too: IsolationRow derives its verdict)."""
    disagree = [r for r in rows if r.batfish is not None and r.batfish != r.observed]
    if disagree:
        first = disagree[0]
        stage.status = "FAIL"
        stage.reason = (f"{len(disagree)} flow(s) where Batfish and the live lab disagree, first: "
                        f"{first.src} -> {first.dst} {first.flow}: lab {first.observed}, "
                        f"Batfish {first.batfish} ({first.batfish_detail})")
    return stage
