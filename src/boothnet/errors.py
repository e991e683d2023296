"""Errors that name the file, the field path, the value and what is allowed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class IntentError:
    file: str
    path: str
    value: object
    allowed: str

    def __str__(self) -> str:
        return f"{self.file}: {self.path}: {self.value!r}: {self.allowed}"


class IntentInvalid(Exception):
    """Raised with every error found, never just the first."""

    def __init__(self, errors: list[IntentError]):
        # Deduplicated by text, not by hash: a value may be a list (a trunk's `vlans`, a rule's `ports`).
        unique = {str(error): error for error in errors}
        self.errors = sorted(unique.values(), key=lambda e: (e.file, e.path, str(e.value), e.allowed))
        super().__init__(self.summary())

    def summary(self) -> str:
        lines = [f"intent has {len(self.errors)} error(s):"]
        lines += [f"  {error}" for error in self.errors]
        return "\n".join(lines)


class Refusal(Exception):
    """boothnet will not go on, and its message says why and what to do (no Batfish, a stale
    build, a review that cannot run): printed as it is, never as a bug."""


class RenderError(Exception):
    """A template or platform feature is missing: fail loudly, never render half a config."""
