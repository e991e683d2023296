#!/usr/bin/env python3
"""Benchmark (not a test): single-stream measured/expected on a 1 Gb/s htb-shaped veth.

For iperf3 and nuttcp at MTU 1500 and 9000: the median of 3 runs against the physical
limit rate x (MTU-52)/(MTU+38). Target >= 0.95 each. Needs root.

    .venv/bin/python bench/throughput.py [--runs 3] [--duration 5] [--speed 1000]

Writes bench/results/throughput.json and exits 1 when a ratio is below the target.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from boothnet.validate.perf.formula import expected_goodput
from boothnet.validate.perf.pairnet import VethPair
from boothnet.validate.perf.ports import PortAllocator
from boothnet.validate.perf.run import ToolRequest, run_throughput
from boothnet.validate.perf.runner import netns_runner

TARGET = 0.95
OUT = Path(__file__).parent / "results" / "throughput.json"


def _version(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    return (done.stdout or done.stderr).strip().splitlines()[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--speed", type=int, default=1000, help="htb rate in Mb/s")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("bench/throughput.py needs root (network namespaces)", file=sys.stderr)
        return 2

    alloc = PortAllocator()
    rows = []
    for mtu in (1500, 9000):
        with VethPair(mtu_a=mtu, mtu_b=mtu, speed_mbps=args.speed) as pair:
            expected = expected_goodput(args.speed * 1e6, mtu)
            for tool in ("iperf3", "nuttcp"):
                figures = []
                for run in range(args.runs):
                    block = alloc.allocate(f"bench {tool} {mtu} {run}", pair.ns_b)
                    r = run_throughput(netns_runner, ToolRequest(tool, pair.ns_b, pair.ns_a,  # type: ignore[arg-type]
                                                                 pair.addr_b, block, duration=args.duration))
                    alloc.release(block)
                    if not r.succeeded:
                        print(f"{tool} MTU {mtu} run {run + 1}: {r.error}", file=sys.stderr)
                        continue
                    figures.append(r.throughput)
                    print(f"  {tool:6} MTU {mtu:5} run {run + 1}: {r.throughput / 1e6:7.1f} Mb/s "
                          f"retrans {r.retransmits}", flush=True)
                    time.sleep(0.3)
                median = statistics.median(figures) if figures else 0.0
                rows.append({"tool": tool, "mtu": mtu, "speed_mbps": args.speed,
                             "streams": 1, "duration_s": args.duration, "runs_bps": figures,
                             "median_bps": median, "expected_bps": expected,
                             "ratio": median / expected, "target": TARGET,
                             "ok": median / expected >= TARGET})

    print()
    print(f"{'tool':7}{'MTU':>6}{'measured Mb/s':>15}{'expected Mb/s':>15}{'ratio':>8}")
    for row in rows:
        print(f"{row['tool']:7}{row['mtu']:>6}{row['median_bps'] / 1e6:>15.1f}"
              f"{row['expected_bps'] / 1e6:>15.1f}{row['ratio']:>8.3f}"
              f"{'' if row['ok'] else '  < target'}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "what": "single-stream TCP goodput over one htb-shaped veth, median of runs",
        "kernel": platform.release(), "cpus": os.cpu_count(),
        "iperf3": _version(["iperf3", "--version"]), "nuttcp": _version(["nuttcp", "-V"]),
        "results": rows}, indent=2) + "\n")
    print(f"\nwritten {args.out}")
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
