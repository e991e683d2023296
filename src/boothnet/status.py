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
        could not be checked. A row not judged (SKIPPED, or NOT RUN on purpose on a live floor)
        neither passes nor fails the stage; a stage with no row judged is SKIPPED when a row was
        skipped, else NOT RUN, never a PASS."""
        seen = set(verdicts)
        judged = seen - {cls.NOT_RUN, cls.SKIPPED}
        if not judged:
            return cls.SKIPPED if cls.SKIPPED in seen else cls.NOT_RUN
        if cls.FAIL in judged:
            return cls.FAIL
        if cls.ERROR in judged:
            return cls.ERROR
        return cls.PASS if judged == {cls.PASS} else cls.FAIL


@dataclass(frozen=True)
class Outcome:
    """A status with its reason, e.g. a tool check's "FAIL: <the tool's last line>"."""

    status: Status
    reason: str = ""

    def __str__(self) -> str:
        return f"{self.status}: {self.reason}" if self.reason else str(self.status)
