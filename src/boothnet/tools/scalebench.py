"""Helpers for the show-floor scale benchmarks (bench/scale_*.py): run a command and record
its wall time and the peak memory of its whole process tree, summarise repeated runs, fit
how cost grows with size, and prepare the naive per-host Ansible rendering to compare with.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pydantic import TypeAdapter

from boothnet.derive.model import DeviceModel
from boothnet.platforms import platforms

SAMPLE_S = 0.05


@dataclass
class Measured:
    wall_s: float
    peak_rss_mb: float  # sum over the process tree, sampled every SAMPLE_S
    returncode: int
    output_tail: str = ""


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except OSError:
            continue
    return found


def tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants (kB)."""
    total, todo, seen = 0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
        todo += _children(current)
    return total


def run_measured(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> Measured:
    started = time.perf_counter()
    proc = subprocess.Popen(  # argv built by the bench scripts
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    # drained by a thread while it runs: a full pipe would stall a chatty command (ansible)
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.append(proc.stdout.read() if proc.stdout else ""))
    reader.start()
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_kb(proc.pid))
        time.sleep(SAMPLE_S)
    wall = time.perf_counter() - started
    reader.join()
    return Measured(round(wall, 3), round(peak / 1024, 1), proc.returncode, "".join(output)[-2000:])


@dataclass
class Series:
    """Repeated runs of one measurement; the median is the figure reported."""

    runs: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return round(statistics.median(self.runs), 3) if self.runs else math.nan

    def to_json(self) -> dict[str, object]:
        return {"median": self.median, "runs": self.runs}


def growth_exponent(sizes: list[int], values: list[float]) -> float:
    """Least-squares slope of log(value) over log(size): 1.0 is linear, 2.0 quadratic."""
    if len(sizes) < 2:
        return math.nan
    xs, ys = [math.log(s) for s in sizes], [math.log(v) for v in values]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return round(sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs), 2)


def write_naive_inputs(model_json: Path, network: str, out_dir: Path) -> int:
    """Per-host inputs of the naive playbook from a build's derived models: the platform's
    features in file order and the model, one JSON file per host. Returns the host count."""
    models = json.loads(model_json.read_text())
    (out_dir / "models").mkdir(parents=True, exist_ok=True)
    for name, model in models.items():
        features = [f for files in platforms()[model["platform"]].files.values() for f in files]
        data = {"network": network, "features": features, "model": model}
        (out_dir / "models" / f"{name}.json").write_text(json.dumps(data))
    return len(models)


@cache
def _model_adapter() -> TypeAdapter[DeviceModel]:
    return TypeAdapter(DeviceModel)


def naive_host(text: str) -> dict[str, object]:
    """One host's naive-playbook input (JSON text, as Ansible's file lookup reads it) with
    its model back as a DeviceModel, addresses as ipaddress objects the templates use."""
    data = json.loads(str(text))
    return {**data, "model": _model_adapter().validate_python(data["model"])}


def mem_available_kb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1])
    raise RuntimeError("no MemAvailable in /proc/meminfo")
