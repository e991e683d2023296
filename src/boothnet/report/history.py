"""Show day against rehearsal: every validate run kept under ``build/<network>/runs/<timestamp>/``
(report.json, the plots, the rendered configs and their hashes), and a comparison of two runs:
checks that newly fail or newly pass, throughput and RTT rows that moved beyond their own noise,
configs that changed. The comparison informs; it never changes a run's verdict."""

from __future__ import annotations

import difflib
import hashlib
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from boothnet.validate.checks import Moved, catalog
from boothnet.validate.results import ValidationResults

# A kept run's folder (``build/<network>/runs/<UTC>/``): its report and the lab configs it ran on
RUN_REPORT = "report.json"
RUN_CONFIGS = "configs"

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


def check_verdicts(res: ValidationResults) -> dict[str, str]:
    """Every check of a run by a key that names it the same way in the next run."""
    checks: dict[str, str] = {f"stage {s.name}{' on ' + s.device if s.device else ''}": s.status for s in res.stages}
    checks |= {check.key(row): check.verdict(row) for check in catalog() for row in check.rows(res)}
    return checks


def _moved(before: ValidationResults, results: ValidationResults) -> list[Moved]:
    """Each measured row of ``results`` whose figure moved beyond its noise since ``before``."""
    moved = []
    for check in catalog():
        earlier = {check.key(row): row for row in check.rows(before)}
        moved += [m for row in check.rows(results)
                  if (was := earlier.get(check.key(row))) is not None and (m := check.moved(was, row))]
    return moved


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
    old, new = check_verdicts(before), check_verdicts(results)
    failing = {"FAIL", "ERROR"}
    cmp = Comparison(previous=previous.name,
                     newly_failing=[k for k, v in new.items() if v in failing and old.get(k) == "PASS"],
                     newly_passing=[k for k, v in new.items() if v == "PASS" and old.get(k) in failing],
                     only_before=len(set(old) - set(new)), only_now=len(set(new) - set(old)),
                     configs=_config_diffs(previous / RUN_CONFIGS, configs), moved=_moved(before, results))
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
