"""bench/machine.py, the line .ci/run prints first: a figure in a CI log or docs/benchmarks.md is
read against this machine's cores and speed."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

SCRIPT = ROOT / "bench" / "machine.py"


def _module():  # a script, not a package
    spec = importlib.util.spec_from_file_location("bench_machine", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_line_names_this_machines_cores_model_and_loop_time() -> None:
    figures = json.loads(subprocess.run([sys.executable, str(SCRIPT), "--json", "--iterations", "100000"],
                                        capture_output=True, text=True, check=True).stdout)
    assert figures["cores"] == os.cpu_count() and figures["loop_iterations"] == 100_000
    assert 0 < figures["loop_cpu_s"] <= figures["loop_wall_s"] * 1.05 + 0.01
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), None)
    assert model is None or figures["model"] == model
    line = _module().line(figures)
    assert line.startswith(f"{os.cpu_count()} cores, {figures['model']}, loop 0.1 M: ")
    assert " s CPU (wall " in line and "load " in line


def test_a_cgroup_quota_and_an_arm_board_are_said(tmp_path: Path) -> None:
    machine = _module()
    (tmp_path / "cpu.max").write_text("100000 100000\n")
    assert machine.cpu_quota(tmp_path / "cpu.max") == 1.0
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert machine.cpu_quota(tmp_path / "cpu.max") is None and machine.cpu_quota(tmp_path / "absent") is None
    (tmp_path / "cpuinfo").write_text("processor\t: 0\nBogoMIPS\t: 108.00\n\nModel\t\t: Raspberry Pi 4 Model B\n")
    assert machine.cpu_model(tmp_path / "cpuinfo") == "Raspberry Pi 4 Model B"
    said = machine.line({"cores": 4, "usable_cores": 2, "cpu_quota": 1.0, "model": "m", "loop_iterations": 10**7,
                         "loop_cpu_s": 0.3, "loop_wall_s": 0.61, "python": "3.11.7", "load": [1.0, 0.5, 0.25]})
    assert said == ("4 cores (2 usable) (quota 1 cores), m, loop 10 M: 0.30 s CPU (wall 0.61 s), best of 3, "
                    "Python 3.11.7, load 1.00 0.50 0.25")


def test_ci_prints_the_machine_before_anything_else_runs() -> None:
    steps = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    first_work = next(i for i, line in enumerate(steps) if line.startswith("make "))
    assert any(line == 'echo "ci: machine $(python3 bench/machine.py)"' for line in steps[:first_work]), steps
