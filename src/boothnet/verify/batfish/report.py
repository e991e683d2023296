"""Typed results of the verify stage: findings, per-check results, the report."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from boothnet.status import Status


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass
class Finding:
    """One thing wrong, located: device, interface/ACL/line, an example flow, a message."""

    check: str
    device: str | None
    message: str
    location: str | None = None  # interface, ACL or "ACL: line"
    flow: str | None = None  # example flow as readable text
    severity: Severity = Severity.ERROR
    # The answer row the finding comes from (kept for assert errors, not serialized).
    row: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "device": self.device,
            "location": self.location,
            "flow": self.flow,
            "severity": str(self.severity),
            "message": self.message,
        }

    def one_line(self) -> str:
        where = ", ".join(x for x in (self.device, self.location) if x)
        flow = f" — example flow: {self.flow}" if self.flow else ""
        return f"[{where or 'network'}] {self.message}{flow}"


@dataclass
class CheckResult:
    """The outcome of one check. A check with error findings FAILs; SKIPPED carries a reason."""

    name: str
    title: str
    status: Status
    findings: list[Finding] = field(default_factory=list)
    reason: str | None = None
    source: str = "batfish"  # "batfish", or e.g. "lint" for offline checks merged in

    @classmethod
    def from_findings(
        cls, name: str, title: str, findings: list[Finding], source: str = "batfish"
    ) -> CheckResult:
        failed = any(f.severity == Severity.ERROR for f in findings)
        return cls(name, title, Status.FAIL if failed else Status.PASS, findings, source=source)

    @classmethod
    def skipped(cls, name: str, title: str, reason: str, source: str = "batfish") -> CheckResult:
        return cls(name, title, Status.SKIPPED, [], reason, source)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CheckResult:
        findings = [
            Finding(
                check=f.get("check", d["name"]),
                device=f.get("device"),
                message=f["message"],
                location=f.get("location"),
                flow=f.get("flow"),
                severity=Severity(f.get("severity", "error")),
            )
            for f in d.get("findings", [])
        ]
        return cls(
            d["name"],
            d.get("title", d["name"]),
            Status(d["status"]),
            findings,
            d.get("reason"),
            d.get("source", "external"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "status": str(self.status),
            "source": self.source,
            "reason": self.reason,
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass
class VerifyReport:
    """All check results of one verify run; offline results can be merged in with `add`."""

    checks: list[CheckResult] = field(default_factory=list)
    batfish_host: str | None = None
    service_status: str | None = None
    snapshot: str | None = None
    out_dir: Path | None = field(default=None, compare=False)  # where `write` put the report
    # where the configs Batfish reads differ from what the devices get, and why
    view_notes: list[str] = field(default_factory=list)

    def add(self, results: CheckResult | Iterable[CheckResult]) -> VerifyReport:
        self.checks.extend([results] if isinstance(results, CheckResult) else results)
        return self

    @property
    def status(self) -> Status:
        """FAIL beats SKIPPED beats PASS: a skipped check never makes the run pass."""
        states = {c.status for c in self.checks}
        if Status.FAIL in states:
            return Status.FAIL
        if Status.SKIPPED in states or not self.checks:
            return Status.SKIPPED
        return Status.PASS

    def check(self, name: str) -> CheckResult:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "batfish_host": self.batfish_host,
            "service_status": self.service_status,
            "snapshot": self.snapshot,
            "checks": [c.to_dict() for c in self.checks],
            "view_notes": self.view_notes,
        }

    def to_markdown(self) -> str:
        out = [f"# Verify report: {self.status}", ""]
        if self.batfish_host or self.service_status:
            out += [f"Batfish service: {self.batfish_host or 'none'} ({self.service_status})", ""]
        out += ["| Check | Status | Findings | Note |", "|---|---|---|---|"]
        for c in self.checks:
            note = (c.reason or "").replace("|", "\\|").replace("\n", " ")
            out.append(f"| {c.title} | **{c.status}** | {len(c.findings)} | {note} |")
        for c in self.checks:
            if not c.findings:
                continue
            out += ["", f"## {c.title}: {c.status}", ""]
            for f in c.findings:
                tag = "" if f.severity == Severity.ERROR else " (warning)"
                out.append(f"- {f.one_line()}{tag}")
        if self.view_notes:
            out += ["", "## What Batfish reads", ""] + [f"- {note}" for note in self.view_notes]
        return "\n".join(out) + "\n"

    def write(self, out_dir: Path) -> tuple[Path, Path]:
        out_dir.mkdir(parents=True, exist_ok=True)
        self.out_dir = out_dir
        js, md = out_dir / "verify.json", out_dir / "verify.md"
        js.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        md.write_text(self.to_markdown())
        return js, md
