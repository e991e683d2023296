"""The machine a figure was taken on, in one line: cores, CPU model, and the time of a fixed
pure-Python loop (the speed figure docs/benchmarks.md reads every figure against), with the load
average beside it, since a busy machine's loop is slower too.

    python3 bench/machine.py          # 2 cores, Intel(R) Xeon(R) Processor, loop 10 M: 0.52 s CPU ...
    python3 bench/machine.py --json   # the same as JSON, for a bench script's results

Standard library only: .ci/run prints it before the venv exists.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

LOOP = 10_000_000
REPEATS = 3


def loop_seconds(iterations: int = LOOP, repeats: int = REPEATS) -> tuple[float, float]:
    """(CPU, wall) seconds of a fixed additions loop, each the best of `repeats`: the best, since a
    neighbour's work only ever makes it slower. The CPU figure is the core's speed (a process
    waiting for a busy core is not charged); the wall figure above it shows that wait."""
    cpu = wall = float("inf")
    for _ in range(repeats):
        start_cpu, start = time.process_time(), time.perf_counter()
        total = 0
        for i in range(iterations):
            total += i
        cpu, wall = min(cpu, time.process_time() - start_cpu), min(wall, time.perf_counter() - start)
    return cpu, wall


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    try:
        for line in cpuinfo.read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "cpu model"):  # x86; ARM boards; MIPS
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def cpu_quota(cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> float | None:
    """Cores' worth of CPU time a cgroup v2 quota allows this process (None: no quota)."""
    try:
        quota, period = cpu_max.read_text().split()
    except (OSError, ValueError):
        return None
    return None if quota == "max" else int(quota) / int(period)


def machine(iterations: int = LOOP) -> dict[str, Any]:
    cpu, wall = loop_seconds(iterations)
    return {"cores": os.cpu_count(), "usable_cores": len(os.sched_getaffinity(0)), "cpu_quota": cpu_quota(),
            "model": cpu_model(), "loop_iterations": iterations, "loop_cpu_s": round(cpu, 3),
            "loop_wall_s": round(wall, 3),
            "python": platform.python_version(), "load": [round(x, 2) for x in os.getloadavg()]}


def line(m: dict[str, Any]) -> str:
    cores = f"{m['cores']} cores"
    if m["usable_cores"] != m["cores"]:
        cores += f" ({m['usable_cores']} usable)"
    if m["cpu_quota"] is not None:
        cores += f" (quota {m['cpu_quota']:g} cores)"
    return (f"{cores}, {m['model']}, loop {m['loop_iterations'] / 1e6:g} M: {m['loop_cpu_s']:.2f} s CPU "
            f"(wall {m['loop_wall_s']:.2f} s), best of {REPEATS}, Python {m['python']}, "
            f"load {' '.join(f'{x:.2f}' for x in m['load'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--iterations", type=int, default=LOOP, help="the loop's length (a figure compares "
                        f"with another only at the same length; default {LOOP:,})")
    args = parser.parse_args()
    m = machine(args.iterations)
    print(json.dumps(m) if args.json else line(m))


if __name__ == "__main__":
    main()
