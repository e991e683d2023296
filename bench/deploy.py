"""Deploy benchmark on the netns lab (root): day-0 full deploy and no-change re-deploy.

    .venv/bin/python bench/deploy.py --runs 3

Each run brings a private copy of an intent (sc-booth by default: six routers; network
"lab-bench", 198.18.3.0/24, so it never clashes with another lab) up at day 0 (untimed), then times
``ansible-playbook playbooks/deploy.yml`` twice: the full deploy (every router changes)
and the re-deploy of the same intent, which must report changed=0. Medians go to
``bench/results/deploy.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from boothnet.lab.plan import plan_lab
from boothnet.lab.runner import detect_vlan_mode, lab_down, lab_up
from boothnet.lab.scratch import copy_inventory

REPO = Path(__file__).resolve().parents[1]
NETWORK = "lab-bench"
MGMT_SUBNET = "198.18.3.0/24"


def run_playbook(inventory: Path, build: Path, *extra: str) -> tuple[float, int, int]:
    cmd = [str(REPO / ".venv/bin/ansible-playbook"), "-i", str(inventory), str(REPO / "playbooks/deploy.yml"),
           "-e", f"boothnet_build_dir={build}", *extra]
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    secs = time.monotonic() - t0
    changed = sum(int(n) for n in re.findall(r"changed=(\d+)", r.stdout))
    if r.returncode:
        print(r.stdout[-3000:], file=sys.stderr)
    return secs, changed, r.returncode


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--inventory", type=Path, default=REPO / "inventories/sc-booth", help="intent to copy")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--revert-in", type=int, default=60)
    p.add_argument("--settle", type=float, default=10.0,
                   help="seconds of quiet before each timed run: the lab's own start (OSPF, IKE, lldpd) "
                        "and the previous deploy's convergence are not the deploy's time")
    p.add_argument("--out", type=Path, default=REPO / "bench/results/deploy.json")
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="boothnet-bench-deploy-"))
    inv = copy_inventory(a.inventory, work / "inventory", NETWORK, MGMT_SUBNET)
    build = work / "build"
    spec, result = plan_lab(inv, detect_vlan_mode(), build)
    if not result.ok:
        sys.exit(f"lab configs have findings: {result.findings}")
    state_dir = build / NETWORK / "lab"
    routers = sum(1 for n in spec.nodes if n.kind == "router")
    full: list[float] = []
    rerun: list[float] = []
    failures: list[str] = []
    try:
        for i in range(a.runs):
            lab_down(NETWORK, state_dir, lambda _: None)
            lab_up(spec, state_dir, lambda _: None, configs="day0")
            extra = ("-e", f"deploy_revert_in={a.revert_in}")
            time.sleep(a.settle)
            secs, changed, rc = run_playbook(state_dir / "inventory.yml", build, *extra)
            print(f"full deploy run {i + 1}: {secs:6.1f} s changed={changed} rc={rc}", flush=True)
            full.append(secs)
            if rc or not changed:
                failures.append(f"full run {i + 1}: rc={rc} changed={changed}")
            time.sleep(a.settle)
            secs, changed, rc = run_playbook(state_dir / "inventory.yml", build, *extra)
            print(f"re-deploy   run {i + 1}: {secs:6.1f} s changed={changed} rc={rc}", flush=True)
            rerun.append(secs)
            if rc or changed:
                failures.append(f"re-deploy run {i + 1}: rc={rc} changed={changed} (must be 0)")
    finally:
        lab_down(NETWORK, state_dir, lambda _: None)
    res = {
        "network": f"{a.inventory.name} (as {NETWORK}, day 0)",
        "routers": routers,
        "runs": a.runs,
        "settle_s": a.settle,
        "full_deploy_s": [round(x, 2) for x in full],
        "redeploy_s": [round(x, 2) for x in rerun],
        "median_full_deploy_s": round(statistics.median(full), 2),
        "median_redeploy_s": round(statistics.median(rerun), 2),
        "failures": failures,
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],  # other jobs skew the figures
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(res, indent=2) + "\n")
    print(f"{routers} routers: median full deploy {res['median_full_deploy_s']:.1f} s, "
          f"median no-change re-deploy {res['median_redeploy_s']:.1f} s -> {a.out}")
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
