"""What every check's stage shares: its status from its rows, timed, and an internal error kept
to that stage."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from boothnet.validate.results import Stage, Status

T = TypeVar("T")


def stage_status(rows: list) -> Status:
    """FAIL when a row failed, else ERROR when a row could not be checked; a stage with no rows
    checked nothing and is NOT RUN, never a PASS."""
    return Status.of_rows(row.verdict for row in rows)


def timed_stage(stages: list[Stage], name: str, run: Callable[[], list], empty: str = "nothing to check") -> list:
    """Run one stage, append its Stage and return its rows."""
    started = time.monotonic()
    try:
        rows = run()
    except Exception as exc:  # one stage that cannot run never loses the others
        stages.append(Stage(name=name, status=Status.ERROR, duration_s=round(time.monotonic() - started, 1),
                            reason=f"the {name} stage could not run: {type(exc).__name__}: {exc}"))
        return []
    status = stage_status(rows)
    count = {verdict: sum(row.verdict == verdict for row in rows) for verdict in (Status.FAIL, Status.ERROR,
                                                                                  Status.SKIPPED)}
    skipped = f" ({count[Status.SKIPPED]} not judged here)" if count[Status.SKIPPED] else ""
    reason = {Status.NOT_RUN: empty, Status.SKIPPED: f"none of {len(rows)} checks judged here",
              Status.FAIL: f"{count[Status.FAIL]} of {len(rows)} checks failed{skipped}",
              Status.ERROR: f"{count[Status.ERROR]} of {len(rows)} checks could not be made{skipped}"}.get(status)
    stages.append(Stage(name=name, status=status, duration_s=round(time.monotonic() - started, 1), reason=reason))
    return rows


def guarded(stages: list[Stage], name: str, run: Callable[[], T], fallback: T) -> T:
    """``run()`` (a stage that appends its own Stage); if it raises, an ERROR stage naming why
    and ``fallback``: one stage that cannot run never loses the others."""
    started = time.monotonic()
    try:
        return run()
    except Exception as exc:
        stages.append(Stage(name=name, status=Status.ERROR, duration_s=round(time.monotonic() - started, 1),
                            reason=f"the {name} stage could not run: {type(exc).__name__}: {exc}"))
        return fallback
