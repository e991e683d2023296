"""The one vocabulary of results, for every stage: build's tool checks, verify, deploy's
health, validate and the report."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    # the check could not be made (a responder that never started): no verdict either way
    ERROR = "ERROR"
    SKIPPED = "SKIPPED"
    # a stage that had nothing to check: never a PASS
    NOT_RUN = "NOT RUN"

    @classmethod
    def of(cls, ok: bool) -> Status:
        return cls.PASS if ok else cls.FAIL

    @classmethod
    def of_rows(cls, verdicts: Iterable[str]) -> Status:
        """A stage's status from its rows' verdicts: FAIL when one failed, else ERROR when one
        could not be checked; no rows checked nothing and is NOT RUN, never a PASS."""
        seen = set(verdicts)
        if seen - {cls.NOT_RUN}:  # a row not run on purpose (a live floor) neither passes nor fails the stage
            seen -= {cls.NOT_RUN}
        if not seen:
            return cls.NOT_RUN
        if cls.FAIL in seen:
            return cls.FAIL
        if cls.ERROR in seen:
            return cls.ERROR
        return cls.PASS if seen == {cls.PASS} else cls.FAIL


@dataclass(frozen=True)
class Outcome:
    """A status with its reason, e.g. a tool check's "FAIL: <the tool's last line>"."""

    status: Status
    reason: str = ""

    def __str__(self) -> str:
        return f"{self.status}: {self.reason}" if self.reason else str(self.status)
