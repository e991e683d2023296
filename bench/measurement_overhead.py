"""What one measurement costs beyond its own seconds (root): the server's start, the client's
run and the server's stop, timed apart, for iperf3 and nuttcp, both ways, on a scratch veth pair.

    .venv/bin/python bench/measurement_overhead.py [--seconds 2] [--omit 1] [--repeats 3]

The code validate runs (validate/perf/run.py's argv, runner.start_background and
stop_background). Medians to bench/results/measurement_overhead.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import time
from pathlib import Path

from boothnet.lab import net
from boothnet.validate.perf.ports import PortBlock
from boothnet.validate.perf.run import TOOLS, ToolName, ToolRequest
from boothnet.validate.perf.runner import netns_runner, start_background, stop_background

REPO = Path(__file__).resolve().parents[1]
NS = ("bnbench-ovh-a", "bnbench-ovh-b")
PORT = 5201


def sh(*argv: str) -> None:
    subprocess.run(argv, capture_output=True, text=True, check=True)


def once(tool: ToolName, reverse: bool, seconds: int, omit: int) -> dict[str, float]:
    server, client, client_timeout = TOOLS[tool].commands(ToolRequest(
        tool, NS[1], NS[0], "10.99.7.2", PortBlock("overhead", NS[1], PORT, 2), duration=seconds, omit=omit,
        reverse=reverse))
    started = time.monotonic()
    handle = start_background(netns_runner, NS[1], server, f"/tmp/bnbench-ovh-{tool}.pid", limit_s=60, port=PORT)
    listening = time.monotonic()
    result = netns_runner(NS[0], client, client_timeout)
    ran = time.monotonic()
    stop_background(netns_runner, handle)
    stopped = time.monotonic()
    if not result.ok:
        raise RuntimeError(f"{tool}: {result.output}")
    return {"start": listening - started, "client": ran - listening, "stop": stopped - ran, "total": stopped - started}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=2)
    parser.add_argument("--omit", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for ns in NS:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        net.create_namespace(ns, f"boothnet-bench:{ns}")
    rows = []
    try:
        sh("ip", "link", "add", "ovh0", "netns", NS[0], "type", "veth", "peer", "name", "ovh0", "netns", NS[1])
        for ns, address in zip(NS, ("10.99.7.1/24", "10.99.7.2/24"), strict=True):
            sh("ip", "-n", ns, "addr", "add", address, "dev", "ovh0")
            sh("ip", "-n", ns, "link", "set", "ovh0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        tools: tuple[ToolName, ...] = ("iperf3", "nuttcp")
        for tool in tools:
            for reverse in (False, True):
                runs = [once(tool, reverse, args.seconds, args.omit) for _ in range(args.repeats)]
                row = {"tool": tool, "reverse": reverse, "asked_s": args.seconds + args.omit,
                       **{phase: round(statistics.median(r[phase] for r in runs), 3) for phase in runs[0]}}
                rows.append(row)
                print(json.dumps(row))
    finally:
        for ns in NS:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    out = REPO / "bench" / "results" / "measurement_overhead.json"
    out.write_text(json.dumps({"kernel": platform.release(), "repeats": args.repeats, "rows": rows}, indent=1) + "\n")
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
