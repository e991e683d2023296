"""Show day against rehearsal: every validate run kept under ``build/<network>/runs/<timestamp>/``
(report.json, the plots, the rendered configs and their hashes), and a comparison of two runs:
checks that newly fail or newly pass, throughput and RTT rows that moved beyond their own noise,
configs that changed. The comparison informs; it never changes a run's verdict."""

from __future__ import annotations

import difflib
import hashlib
import json
import shutil
import statistics
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from boothnet.report.summary import throughput_status
from boothnet.validate.perf.schema import RttRow, ThroughputResult
from boothnet.validate.results import ValidationResults

# A kept run's folder (``build/<network>/runs/<UTC>/``): its report and the lab configs it ran on
RUN_REPORT = "report.json"
RUN_CONFIGS = "configs"

NOISE_SIGMAS = 3  # a throughput row moved when the change exceeds 3 combined interval deviations
NOISE_FLOOR = 0.02  # ... and 2 % of its limit: one-second intervals can be very steady in the lab
RTT_FLOOR_MS = 1.0


class Moved(BaseModel):
    subject: str  # "path r110: node1 -> fs1 (iperf3, 1 stream)"
    before: float
    after: float
    unit: str  # "Mb/s", "ms"
    noise: float  # the change that would still be noise, in the unit
    limit: str  # what the row is judged against: "expected 900.0 Mb/s (physical)"

    @property
    def line(self) -> str:
        change = self.after - self.before
        pct = f" ({change / self.before:+.0%})" if self.before else ""
        return (f"{self.subject}: {self.before:.1f} -> {self.after:.1f} {self.unit}, {change:+.1f} {self.unit}"
                f"{pct}, beyond its noise of {self.noise:.1f} {self.unit}; {self.limit}")


class Comparison(BaseModel):
    previous: str  # the earlier run's folder name (its timestamp)
    newly_failing: list[str] = Field(default_factory=list)
    newly_passing: list[str] = Field(default_factory=list)
    moved: list[Moved] = Field(default_factory=list)
    configs: dict[str, str] = Field(default_factory=dict)  # config file -> unified diff
    only_before: int = 0  # checks the earlier run had and this one has not
    only_now: int = 0

    @property
    def unchanged(self) -> bool:
        return not (self.newly_failing or self.newly_passing or self.moved or self.configs)

    def lines(self) -> list[str]:
        if self.unchanged:
            return [f"no change since the run of {self.previous}"]
        out = [f"compared with the run of {self.previous}:"]
        out += [f"newly FAIL: {s}" for s in self.newly_failing]
        out += [f"newly PASS: {s}" for s in self.newly_passing]
        out += [f"moved: {m.line}" for m in self.moved]
        out += [f"config changed: {name}" for name in self.configs]
        return out


def _verdicts(res: ValidationResults) -> dict[str, str]:
    """Every check of a run by a key that names it the same way in the next run."""
    checks: dict[str, str] = {f"stage {s.name}{' on ' + s.device if s.device else ''}": s.status for s in res.stages}
    checks |= {f"isolation {r.src} -> {r.dst} {r.flow}": r.verdict or "SKIPPED" for r in res.isolation}
    checks |= {f"mtu {m.path} {m.source} -> {m.destination} ({m.kind})": m.verdict for m in res.mtu}
    checks |= {_throughput_key(r): throughput_status(r) for r in res.throughput}
    checks |= {f"rtt {r.path} {r.payload} B": r.verdict for r in res.rtt}
    checks |= {f"production {p.probe} {p.source} -> {p.destination}": p.verdict for p in res.production}
    checks |= {f"vpn {v.name}": v.verdict or "SKIPPED" for v in res.vpn}
    checks |= {f"endpoint {e.host}": e.verdict for e in res.endpoints}
    checks |= {f"drift {d.device}": d.verdict for d in res.drift}
    checks |= {f"cabling {c.cable}": c.verdict for c in res.cabling}
    return checks


def _throughput_key(r: ThroughputResult) -> str:
    window = f" -w {r.window}" if r.window else ""
    streams = f"{r.streams} stream{'s' * (r.streams != 1)}"
    way = "reverse, " if r.reverse else ""
    return f"throughput {r.path or r.source + ' -> ' + r.destination} ({way}{r.kind}{window}, {r.tool}, {streams})"


def _spread(r: ThroughputResult) -> float:
    samples = [i.throughput for i in r.intervals]
    return statistics.stdev(samples) if len(samples) > 1 else 0.0


def _moved_throughput(before: ThroughputResult, after: ThroughputResult) -> Moved | None:
    if not (before.succeeded and after.succeeded):
        return None
    limit = after.expected or before.expected or max(before.throughput, after.throughput)
    noise = max(NOISE_SIGMAS * (_spread(before) ** 2 + _spread(after) ** 2) ** 0.5, NOISE_FLOOR * limit)
    if abs(after.throughput - before.throughput) <= noise:
        return None
    against = f"expected {limit / 1e6:.1f} Mb/s" + (f" ({after.limit})" if after.limit else "")
    return Moved(subject=_throughput_key(after).removeprefix("throughput "), before=before.throughput / 1e6,
                 after=after.throughput / 1e6, unit="Mb/s", noise=noise / 1e6, limit=against)


def _moved_rtt(before: RttRow, after: RttRow) -> Moved | None:
    if before.avg_ms is None or after.avg_ms is None:
        return None
    spread = [(r.max_ms or r.avg_ms or 0.0) - (r.min_ms or r.avg_ms or 0.0) for r in (before, after)]
    noise = max(max(spread), RTT_FLOOR_MS)
    if abs(after.avg_ms - before.avg_ms) <= noise:
        return None
    return Moved(subject=f"RTT {after.path} ({after.payload} B)", before=before.avg_ms, after=after.avg_ms, unit="ms",
                 noise=noise, limit=f"declared {after.declared_ms:g} +- {after.tolerance_ms:g} ms")


def config_hashes(configs: Path) -> dict[str, str]:
    return {str(p.relative_to(configs)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(configs.rglob("*")) if p.is_file()}


def _config_diffs(before: Path, after: Path) -> dict[str, str]:
    old, new = config_hashes(before) if before.is_dir() else {}, config_hashes(after) if after.is_dir() else {}
    diffs = {}
    for name in sorted(set(old) | set(new)):
        if old.get(name) == new.get(name):
            continue
        a = (before / name).read_text(errors="replace").splitlines(keepends=True) if name in old else []
        b = (after / name).read_text(errors="replace").splitlines(keepends=True) if name in new else []
        diffs[name] = "".join(difflib.unified_diff(a, b, f"before/{name}", f"now/{name}"))
    return diffs


def compare(previous: Path, results: ValidationResults, configs: Path) -> Comparison:
    """This run (``results``, rendered ``configs``) against the run kept in ``previous``."""
    before = load_results(previous)
    old, new = _verdicts(before), _verdicts(results)
    failing = {"FAIL", "ERROR"}
    cmp = Comparison(previous=previous.name,
                     newly_failing=[k for k, v in new.items() if v in failing and old.get(k) == "PASS"],
                     newly_passing=[k for k, v in new.items() if v == "PASS" and old.get(k) in failing],
                     only_before=len(set(old) - set(new)), only_now=len(set(new) - set(old)),
                     configs=_config_diffs(previous / RUN_CONFIGS, configs))
    earlier = {_throughput_key(r): r for r in before.throughput}
    cmp.moved = [m for r in results.throughput if (e := earlier.get(_throughput_key(r)))
                 and (m := _moved_throughput(e, r))]
    rtts = {(r.path, r.payload): r for r in before.rtt}
    cmp.moved += [m for row in results.rtt
                  if (was := rtts.get((row.path, row.payload))) and (m := _moved_rtt(was, row))]
    return cmp


def load_results(run_dir: Path) -> ValidationResults:
    doc = json.loads((run_dir / RUN_REPORT).read_text())
    return ValidationResults.model_validate(doc["results"])


def runs(runs_dir: Path) -> list[Path]:
    """Kept runs, oldest first."""
    return sorted(p for p in runs_dir.glob("*") if (p / RUN_REPORT).is_file()) if runs_dir.is_dir() else []


def find_run(runs_dir: Path, name: str | None) -> Path | None:
    """A kept run by folder name or path; None: the latest."""
    if name is None:
        kept = runs(runs_dir)
        return kept[-1] if kept else None
    path = Path(name)
    if (path / RUN_REPORT).is_file():
        return path
    return runs_dir / name if (runs_dir / name / RUN_REPORT).is_file() else None


def keep_run(runs_dir: Path, report_dir: Path, configs: Path) -> Path:
    """Copy the report's JSON and plots, the configs and their hashes into ``runs/<timestamp>/``."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    run_dir = runs_dir / stamp
    run_dir.mkdir(parents=True)
    for path in report_dir.glob("*"):
        if path.suffix in (".json", ".png", ".svg"):
            shutil.copy2(path, run_dir / path.name)
    if configs.is_dir():
        shutil.copytree(configs, run_dir / RUN_CONFIGS)
        (run_dir / "configs.sha256.json").write_text(json.dumps(config_hashes(configs), indent=1) + "\n")
    return run_dir
