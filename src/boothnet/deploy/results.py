"""Per-device deploy records and the run summary: which config is in force where.

Outcomes (the question a booth team asks on Saturday night is "what is running?"):

- ``new-confirmed``: the new config is in force and confirmed;
- ``unchanged``: the running config already matched the intent, nothing was committed;
- ``reverted``: the new config was committed, then the device went back to its previous
  config (health check failed, session lost, not confirmed): the previous one is in force;
- ``failed-before-apply``: the device rejected a part (or was unreachable) before
  anything changed: the previous config is in force;
- ``unknown``: the device could not be reached after a revert was due; check it by hand.
- ``check-only``: a ``--check`` run; nothing changed, the diff says what would.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from boothnet.files import write_text_atomic
from boothnet.layout import Layout
from boothnet.status import Status

Outcome = Literal[
    "new-confirmed", "unchanged", "reverted", "failed-before-apply", "unknown", "check-only"
]
# the one vocabulary of results: a check run deployed nothing (SKIPPED); `unknown` could not be checked
STATUS: dict[str, Status] = {
    "new-confirmed": Status.PASS,
    "unchanged": Status.PASS,
    "reverted": Status.FAIL,
    "failed-before-apply": Status.FAIL,
    "unknown": Status.ERROR,
    "check-only": Status.SKIPPED,
}
IN_FORCE: dict[str, str] = {
    "new-confirmed": "new",
    "unchanged": "new (already running)",
    "reverted": "previous",
    "failed-before-apply": "previous",
    "unknown": "unknown",
    "check-only": "previous (check mode)",
}


@dataclass
class DeviceResult:
    device: str
    outcome: Outcome
    reason: str = ""
    changed_parts: list[str] = field(default_factory=list)
    backup: str | None = None
    seconds: float = 0.0
    driver: str = ""  # the NAPALM driver that ran ("ios", "eos", "frr_linux", "ios_simulated")
    transport: str = ""  # how it reached the device ("ssh", "https" for eAPI)
    simulated: bool = False  # a simulated device answered, not a real one
    # the open sessions the new policy denies, cut or left (deploy.sessions.SessionRecord.as_dict);
    # None where there was nothing to check (a stateless device, no new policy in the run)
    sessions: dict[str, Any] | None = None

    @property
    def driven_by(self) -> str:
        """``ios over ssh``, ``eos over https, SIMULATED``."""
        if not self.driver:
            return "-"
        return f"{self.driver} over {self.transport or '?'}" + (", SIMULATED" if self.simulated else "")

    @property
    def sessions_said(self) -> str:
        """``1 ended``, ``2 left``, ``not checked``, or ``-`` (nothing to check)."""
        return sessions_said(self.sessions)

    @property
    def status(self) -> Status:
        return STATUS[self.outcome]

    @property
    def ok(self) -> bool:
        """The config in force is the one the run meant (a check run changes nothing, as meant)."""
        return self.status in (Status.PASS, Status.SKIPPED)

    @property
    def in_force(self) -> str:
        return IN_FORCE[self.outcome]

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "in_force": self.in_force}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> DeviceResult:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)  # type: ignore[arg-type]  # a result file boothnet wrote itself


def sessions_said(sessions: dict[str, Any] | None) -> str:
    """A device's sessions record (deploy.sessions.SessionRecord) in one table cell."""
    if not sessions:
        return "-"
    if not sessions.get("checked"):
        return "not checked"
    ended, left = len(sessions.get("ended", [])), len(sessions.get("left", []))
    if sessions.get("mode") == "check":
        return f"{left} would end"
    parts = [f"{ended} ended"] if sessions.get("mode") == "cut" else []
    if left or sessions.get("mode") == "list":
        parts.append(f"{left} left")
    return ", ".join(parts)


def backup_path(build_dir: Path, network: str, device: str, stamp: str | None = None) -> Path:
    """``build/<network>/backups/<device>/<timestamp>/`` (UTC, sortable, no colons)."""
    stamp = stamp or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return Layout(build_dir, network).backups(device) / stamp


def write_backup(folder: Path, parts: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in parts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def record(deploy_dir: Path, result: DeviceResult) -> Path:
    """Write one device's record and refresh ``summary.json`` from all records.

    Refreshing on every record keeps the summary true even when a batch aborts the play
    (``max_fail_percentage``) before a final summary step could run.
    """
    results = deploy_dir / "results"
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"{result.device}.json"
    write_text_atomic(path, json.dumps(result.as_dict(), indent=2) + "\n")
    write_summary(deploy_dir)
    return path


def load_results(deploy_dir: Path) -> list[DeviceResult]:
    return [
        DeviceResult.from_dict(json.loads(p.read_text(encoding="utf-8")))
        for p in sorted((deploy_dir / "results").glob("*.json"))
    ]


def summarize(results: list[DeviceResult]) -> dict[str, object]:
    counts: dict[str, int] = {}
    for r in results:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    return {
        "devices": {r.device: r.as_dict() for r in results},
        "counts": counts,
        "ok": all(r.ok for r in results),
        "sessions": session_totals(results),
    }


def session_totals(results: list[DeviceResult]) -> dict[str, object]:
    """The open sessions the new policy denies, over the whole run: a session held by several
    devices on its path (each cuts its own entry) counts once; the devices that could not check."""
    def flows(kind: str) -> dict[tuple[object, ...], str]:
        out: dict[tuple[object, ...], str] = {}
        for r in results:
            for row in (r.sessions or {}).get(kind, []):
                ends = sorted([(row["src"], row["sport"] or 0), (row["dst"], row["port"] or 0)])
                out.setdefault((row["proto"], *ends), row["flow"])  # either way round: one session
        return out

    ended, left = flows("ended"), flows("left")
    left = {k: v for k, v in left.items() if k not in ended}
    return {"ended": len(ended), "left": len(left), "flows_ended": sorted(ended.values()),
            "flows_left": sorted(left.values()),
            "not_checked": sorted(r.device for r in results if r.sessions and not r.sessions.get("checked"))}


def write_summary(deploy_dir: Path) -> Path:
    path = deploy_dir / "summary.json"
    # devices record in parallel (one module process each): the temp name is per process
    write_text_atomic(path, json.dumps(summarize(load_results(deploy_dir)), indent=2) + "\n")
    return path


def summary_table(results: list[DeviceResult]) -> str:
    """A plain-text table: device, outcome, config in force, which driver ran it, the open sessions
    the new policy denies (ended or left), reason; then each of those sessions, device by device."""
    rows = [("device", "outcome", "in force", "driver", "sessions", "reason")] + [
        (r.device, r.outcome, r.in_force, r.driven_by, r.sessions_said, r.reason or "-") for r in results
    ]
    last = len(rows[0]) - 1
    widths = [max(len(row[i]) for row in rows) for i in range(last)]
    lines = ["  ".join(cell.ljust(widths[i]) if i < last else cell for i, cell in enumerate(row)) for row in rows]
    return "\n".join(lines + session_lines(results))


def session_lines(results: list[DeviceResult]) -> list[str]:
    """Each session the new policy denies, and what the deploy did about it; why a device's
    sessions were not checked."""
    out = []
    for r in results:
        s = r.sessions or {}
        if s and not s.get("checked"):
            out.append(f"{r.device}: {s.get('why', 'sessions not checked')}")
        for row in [*s.get("ended", []), *s.get("left", [])]:
            out.append(f"{r.device}: session {row['flow']} {row['outcome']} (the new policy: {row['denied_at']})")
    return out
