"""The lab's WAN delay line (boothnet.lab.delayline), measured (root): RTT against the delay it
was given, and the ceiling of one TCP stream through it, unshaped, at MTU 1500 and 9000.

    .venv/bin/python bench/wan.py [--delay-ms 25] [--seconds 6]

Two scratch namespaces joined by net.add_delay_link (the code the lab runs), 10.99.0.1/2;
iperf3 with -w 4M (net.core.wmem_max caps larger asks) and -O 2. Results to
bench/results/wan.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from boothnet.lab import net
from boothnet.lab.spec import LabEnd, LabLink

REPO = Path(__file__).resolve().parents[1]
NS = ("bnbench-wan-a", "bnbench-wan-b")


def sh(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def measure(mtu: int, delay_ms: float, seconds: int, work: Path) -> dict[str, object]:
    for ns in NS:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        net.create_namespace(ns, f"boothnet-bench:{ns}")
    try:
        link = LabLink(LabEnd("a", "wan0"), LabEnd("b", "wan0"), 1000, mtu, "bench", delay_ms)
        net.add_delay_link(link, NS[0], NS[1], work / f"delay-{mtu}.log")
        sh("ip", "-n", NS[0], "addr", "add", "10.99.0.1/24", "dev", "wan0")
        sh("ip", "-n", NS[1], "addr", "add", "10.99.0.2/24", "dev", "wan0")
        sh("ip", "netns", "exec", NS[0], "ping", "-c", "2", "-W", "2", "10.99.0.2")  # ARP, first frames
        ping = sh("ip", "netns", "exec", NS[0], "ping", "-n", "-c", "20", "-i", "0.1", "-M", "do", "-s",
                  str(mtu - 28), "10.99.0.2")
        low, avg, high = (float(x) for x in re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/", ping).groups())  # type: ignore[union-attr]
        subprocess.run(["ip", "netns", "exec", NS[1], "iperf3", "-s", "-1", "-D"], check=True)
        time.sleep(0.3)
        out = json.loads(sh("ip", "netns", "exec", NS[0], "iperf3", "-c", "10.99.0.2", "-J", "-t", str(seconds),
                            "-O", "2", "-w", "4M"))
        end = out["end"]
        return {"mtu": mtu, "delay_ms": delay_ms, "rtt_ms": {"min": low, "avg": avg, "max": high},
                "tcp_mbps": round(end["sum_received"]["bits_per_second"] / 1e6, 1),
                "retransmits": end["sum_sent"].get("retransmits")}
    finally:
        for ns in NS:
            for pid in sh("ip", "netns", "pids", ns).split():
                subprocess.run(["kill", pid], capture_output=True)
            time.sleep(0.2)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--delay-ms", type=float, default=25.0)
    p.add_argument("--seconds", type=int, default=6)
    p.add_argument("--out", type=Path, default=REPO / "bench/results/wan.json")
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench/wan.py builds network namespaces: run it as root")
    with tempfile.TemporaryDirectory(prefix="boothnet-bench-wan-") as work:
        runs = [measure(mtu, delay, a.seconds, Path(work)) for mtu in (1500, 9000) for delay in (0.0, a.delay_ms)]
    for r in runs:
        print(f"MTU {r['mtu']:5} delay {r['delay_ms']:4g} ms: RTT {r['rtt_ms']['avg']:.2f} ms (min "  # type: ignore[index]
              f"{r['rtt_ms']['min']:.2f}), one stream {r['tcp_mbps']} Mb/s, {r['retransmits']} retransmits")  # type: ignore[index]
    res = {"runs": runs, "host": platform.node(), "cpus": os.cpu_count(),
           "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    a.out.write_text(json.dumps(res, indent=2) + "\n")
    print(f"-> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
