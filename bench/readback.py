#!/usr/bin/env python3
"""What reading every IOS/EOS config back costs a build (issue 41), on generated show floors. A
benchmark, not a test.

  .venv/bin/python bench/readback.py                  # N = 50, 200, 500 devices, 3 runs each
  .venv/bin/python bench/readback.py --sizes 50 -n 1  # quick look

Per size: the hardware models derived and rendered once, then `readback.fidelity` (hier_config's
tree, the reader, the comparison with the model) timed over every vendor config, and the route
closure of the declared paths. Medians. Results: bench/results/readback.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from boothnet.derive import derive_network  # noqa: E402
from boothnet.derive.reach import route_problems  # noqa: E402
from boothnet.intent import load_network  # noqa: E402
from boothnet.readback import READ_PLATFORMS, fidelity  # noqa: E402
from boothnet.render.build import render_all, single_file_configs  # noqa: E402
from boothnet.tools.showfloor import floor_size, write_showfloor  # noqa: E402


def measure(devices: int, runs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="bn-readback-") as scratch:
        write_showfloor(Path(scratch), floor_size(devices), f"floor{devices}")
        net = load_network(scratch)
        models = derive_network(net)
        configs = single_file_configs(render_all(models, net.name))
        read = sum(1 for m in models.values() if m.platform in READ_PLATFORMS)
        lines = sum(configs[n].count("\n") for n, m in models.items() if m.platform in READ_PLATFORMS)
        times, found = [], []
        for _ in range(runs):
            started = time.perf_counter()
            found = fidelity(models, configs)
            times.append(time.perf_counter() - started)
        started = time.perf_counter()
        route_problems(net, models)
        routes_s = time.perf_counter() - started
    median = statistics.median(times)
    return {"devices": devices, "configs_read": read, "lines": lines, "seconds": round(median, 3),
            "ms_per_config": round(1000 * median / max(read, 1), 2), "mismatches": len(found),
            "route_closure_s": round(routes_s, 3), "load": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("-n", "--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        row = measure(size, args.runs)
        print(json.dumps(row))
        rows.append(row)
    out = ROOT / "bench" / "results" / "readback.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"results: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
