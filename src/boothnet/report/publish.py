"""The report of a validate run, compared with the run before it and kept under runs/."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boothnet.progress import Progress
from boothnet.report.history import RUN_CONFIGS, Comparison, compare, find_run, keep_run, load_results, runs
from boothnet.report.render import ReportPaths, write_report
from boothnet.report.summary import summarize
from boothnet.run import Run
from boothnet.validate.drift import DriftTarget
from boothnet.validate.floor import reach_floor
from boothnet.validate.profile import FLOOR, FULL
from boothnet.validate.results import Summary, ValidationResults
from boothnet.validate.stage import run_validate


@dataclass(frozen=True)
class Published:
    paths: ReportPaths
    summary: Summary
    comparison: Comparison | None
    kept: Path | None  # runs/<timestamp>/ of this run; None when an old run was only re-rendered

    def facts(self) -> dict[str, object]:
        """What the boothnet_validate task returns."""
        return {
            "overall": self.summary.overall,
            "headline": self.summary.headline,
            "failures": [f"{f.section}: {f.subject}: {f.message}" for f in self.summary.failures],
            "since_last_run": self.comparison.lines() if self.comparison else [],
            "report": str(self.paths.html.resolve()),
        }


def lab_configs(run: Run) -> Path:
    """The configs a lab validate measured: what the lab's routers were deployed with."""
    return run.layout.configs("lab/configs")


def publish(run: Run, results: ValidationResults, configs: Path | None = None) -> Published:
    """The report of a new run, with what changed since the last kept run; the run is kept.
    ``configs``: what the network measured was deployed with (default: the lab's)."""
    layout, configs = run.layout, configs or lab_configs(run)
    previous = find_run(layout.runs, None)
    comparison = compare(previous, results, configs) if previous else None
    paths = write_report(results, layout.report, run.net, comparison)
    kept = keep_run(layout.runs, layout.report, configs)
    return Published(paths, summarize(results), comparison, kept)


def validate_and_report(run: Run, progress: Progress, **options: Any) -> Published:
    """The validate stage in the running lab, then its report, compared and kept (the Ansible
    module's one call); ``options`` edit the full profile."""
    return publish(run, run_validate(run, FULL.edit(**options), progress=progress))


def validate_floor_and_report(run: Run, devices: list[DriftTarget],
                              hosts: Mapping[str, Mapping[str, Any]], stand_in_vlan_mode: str | None,
                              progress: Progress, **options: Any) -> Published:
    """The validate stage on a floor (the booth's own network, or the lab reached only through its
    management network), then its report, compared and kept."""
    with reach_floor(run.net, devices, hosts, stand_in_vlan_mode) as access:
        results = run_validate(run, FLOOR.edit(**options), access, progress)
    configs = lab_configs(run) if stand_in_vlan_mode else run.layout.configs()
    return publish(run, results, configs)


def rerender(run: Run, name: str | None, against: str | None) -> Published:
    """The report of a kept run (``name``; default the latest) compared with ``against`` (a run's
    folder name or path; default the run before it). Raises FileNotFoundError naming what is missing."""
    layout = run.layout
    kept = runs(layout.runs)
    current = find_run(layout.runs, name)
    if current is None:
        raise FileNotFoundError(f"no kept run {name!r} under {layout.runs}" if name else
                                f"no kept run under {layout.runs}: `boothnet validate-lab` or `boothnet demo` first")
    if against is None:
        earlier = [p for p in kept if p.name < current.name]
        previous = earlier[-1] if earlier else None
    else:
        previous = find_run(layout.runs, against)
        if previous is None:
            raise FileNotFoundError(f"no kept run {against!r} under {layout.runs} (kept: "
                                    f"{', '.join(p.name for p in kept) or 'none'})")
    results = load_results(current)
    comparison = compare(previous, results, current / RUN_CONFIGS) if previous else None
    paths = write_report(results, layout.report, run.net, comparison)
    return Published(paths, summarize(results), comparison, None)
