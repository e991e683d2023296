#!/usr/bin/env python3
"""Time netns lab bring-up and teardown (issue 3 target: < 60 s up, < 20 s down for about
60 namespaces on 2 cores). A script, not a test; needs root.

  .venv/bin/python bench/lab_updown.py --spec build/sc-booth/lab/spec.json -n 3
  .venv/bin/python bench/lab_updown.py --synthetic 60 -n 3

"up" ends when lab_up returns (namespaces, links, shaping, FRR and sshd started);
"ssh" is the extra time until every node answered an SSH login with strict host keys.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
RESULTS = Path(__file__).resolve().parent / "results"

from boothnet.lab.runner import lab_down, lab_up  # noqa: E402
from boothnet.lab.spec import LabSpec  # noqa: E402
from boothnet.lab.specio import load_spec  # noqa: E402
from boothnet.lab.synthetic import synthetic_spec  # noqa: E402


def ssh_all(spec: LabSpec, state_dir: Path) -> list[str]:
    def one(ip: str) -> str | None:
        cmd = ["ssh", "-i", str(state_dir / "id_ed25519"),
               "-o", f"UserKnownHostsFile={state_dir / 'known_hosts'}",
               "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
               "-o", "ConnectTimeout=10", f"root@{ip}", "true"]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return None if res.returncode == 0 else f"{ip}: {res.stderr.strip()}"

    ips = [str(ipaddress.ip_interface(n.mgmt_address).ip) for n in spec.nodes]
    with ThreadPoolExecutor(max_workers=8) as pool:
        return [e for e in pool.map(one, ips) if e]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--spec", type=Path, help="LabSpec JSON")
    src.add_argument("--synthetic", type=int, metavar="N", help="generated lab of ~N nodes")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--state-dir", type=Path, help="default: a temporary folder")
    ap.add_argument("--no-ssh", action="store_true", help="skip the SSH check of every node")
    ap.add_argument("-v", "--verbose", action="store_true", help="print lab progress lines")
    ap.add_argument("--out", type=Path, help="default: bench/results/lab_updown_<network>.json")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root", file=sys.stderr)
        return 2

    tmp = Path(tempfile.mkdtemp(prefix="bnt-bench-"))
    spec = load_spec(args.spec) if args.spec else synthetic_spec(args.synthetic, tmp / "configs")
    state_dir = args.state_dir or tmp / "state"
    routers = sum(n.kind == "router" for n in spec.nodes)
    print(f"lab {spec.network}: {len(spec.nodes)} nodes ({routers} routers), "
          f"{len(spec.links)} links; cpus {os.cpu_count()}; {args.runs} runs", flush=True)

    def progress(msg: str) -> None:
        if args.verbose:
            print("   ", msg, flush=True)

    ups, downs, sshs = [], [], []
    lab_down(spec.network, state_dir, progress)  # start clean
    try:
        for i in range(args.runs):
            t0 = time.monotonic()
            lab_up(spec, state_dir, progress)
            ups.append(time.monotonic() - t0)
            if not args.no_ssh:
                t1 = time.monotonic()
                errors = ssh_all(spec, state_dir)
                sshs.append(time.monotonic() - t1)
                if errors:
                    print(f"run {i + 1}: SSH failed on {len(errors)} nodes: {errors[:3]}")
                    return 1
            t2 = time.monotonic()
            res = lab_down(spec.network, state_dir, progress)
            downs.append(time.monotonic() - t2)
            print(f"run {i + 1}: up {ups[-1]:.2f} s"
                  + (f", ssh all {sshs[-1]:.2f} s" if sshs else "")
                  + f", down {downs[-1]:.2f} s ({len(res['removed']['processes'])} processes,"
                  f" {len(res['removed']['namespaces'])} namespaces)", flush=True)
    finally:
        lab_down(spec.network, state_dir, progress)
    print(f"median up {statistics.median(ups):.2f} s, "
          + (f"ssh all {statistics.median(sshs):.2f} s, " if sshs else "")
          + f"down {statistics.median(downs):.2f} s over {args.runs} runs")
    out = args.out or RESULTS / f"lab_updown_{spec.network}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "what": "netns lab bring-up and teardown (issue 3 target: < 60 s up, < 20 s down)",
        "network": spec.network, "nodes": len(spec.nodes), "routers": routers, "links": len(spec.links),
        "cpus": os.cpu_count(), "load_average": os.getloadavg(), "runs": args.runs,
        "up_s": ups, "ssh_all_s": sshs, "down_s": downs,
        "median_up_s": statistics.median(ups), "median_down_s": statistics.median(downs),
        "median_ssh_all_s": statistics.median(sshs) if sshs else None,
    }, indent=2) + "\n")
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
