"""Deploy benchmark: full-deploy and no-change re-run times (median of N).

    bench/deploy.py --inventory build/sc-booth/lab/inventory.yml --runs 3
    bench/deploy.py --fixture --runs 3     # the deploy tests' two-router netns fixture (root)

A "full deploy" run first takes every device back to its previous config state with
``rollback`` being unavailable across runs, so it alternates two candidates (A, B): each
full run really changes every device. The re-run deploys the same candidate again and must
report changed=0.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_playbook(inventory: Path, build: Path | None, *extra: str) -> tuple[float, int, int]:
    cmd = [str(REPO / ".venv/bin/ansible-playbook"), "-i", str(inventory),
           str(REPO / "playbooks/deploy.yml"), *extra]
    if build is not None:
        cmd += ["-e", f"boothnet_build_dir={build}"]
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    secs = time.monotonic() - t0
    changed = sum(int(n) for n in re.findall(r"changed=(\d+)", r.stdout))
    if r.returncode:
        print(r.stdout[-1500:], file=sys.stderr)
    return secs, changed, r.returncode


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--inventory", type=Path)
    p.add_argument("--fixture", action="store_true")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--revert-in", type=int, default=60)
    a = p.parse_args()
    extra = ["-e", f"deploy_revert_in={a.revert_in}"]
    if a.fixture:
        sys.path.insert(0, str(REPO / "tests/integration/deploy"))
        from fixture import DeployFixture, render_candidate, write_candidate

        fx = DeployFixture(Path("/tmp/bdtest-bench")).up()
        build = Path("/tmp/bdtest-bench-build")
        inv = build / "inventory.yml"
        build.mkdir(parents=True, exist_ok=True)
        fx.write_inventory(inv, build)
        nets = {"A": {"bdt1": "198.18.210.129/28", "bdt2": "198.18.210.161/28"},
                "B": {"bdt1": "198.18.210.145/28", "bdt2": "198.18.210.177/28"}}

        def prepare(which: str) -> None:
            for n in fx.nodes:
                write_candidate(build / "bdtest/configs" / n,
                                render_candidate(n, extra_net=nets[which][n]))
    elif a.inventory:
        fx, build, inv = None, None, a.inventory

        def prepare(which: str) -> None:  # the sc-booth lab: build once, deploy as is
            return None
    else:
        p.error("give --inventory or --fixture")
    full: list[float] = []
    rerun: list[float] = []
    try:
        for i in range(a.runs):
            prepare("AB"[i % 2])
            secs, changed, rc = run_playbook(inv, build, *extra)
            print(f"full  run {i + 1}: {secs:6.1f} s changed={changed} rc={rc}")
            full.append(secs)
            secs, changed, rc = run_playbook(inv, build, *extra)
            print(f"rerun run {i + 1}: {secs:6.1f} s changed={changed} rc={rc}")
            if changed:
                print("  re-run changed something: not idempotent", file=sys.stderr)
            rerun.append(secs)
    finally:
        if fx is not None:
            fx.down()
    print(f"median full deploy {statistics.median(full):.1f} s, "
          f"median no-change re-run {statistics.median(rerun):.1f} s (target < 30 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
