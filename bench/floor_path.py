#!/usr/bin/env python3
"""The floor path's cost against the lab path on the same running lab (issue 32): `boothnet
validate-hw --lab` (controller namespace, SSH through Ansible's connection plugins, NAPALM) and
`boothnet validate-lab` (ip netns exec), both without throughput (its tests take the same time
either way: they are the measurement), the isolation sample's seed fixed. Counts every ssh the floor
path starts (an audit hook in each Python process), the distinct hosts it opened a connection to,
and the isolation probes per second. A benchmark, not a test; needs root.

  .venv/bin/python bench/floor_path.py -n lab-mini
  .venv/bin/python bench/floor_path.py -n sc-booth
  .venv/bin/python bench/floor_path.py --synthetic 28 --hosts-per-vlan 4     # a generated floor, ~200 hosts

Results: bench/results/floor_path_<network>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from boothnet.report.history import load_results  # noqa: E402
from tests.integration.floor.test_floor_path import AUDIT_HOOK  # noqa: E402

BIN = ROOT / ".venv" / "bin"


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return round(time.monotonic() - started, 1), done.returncode


def latest(build: Path, network: str) -> dict[str, object]:
    results = load_results(sorted((build / network / "runs").iterdir())[-1])
    note = next((s.note or "" for s in results.stages if s.name == "isolation"), "")
    pairs = re.match(r"(\d+) host pairs x (\d+) probes", note)
    return {"stages_s": {s.name: s.duration_s for s in results.stages}, "isolation_rows": len(results.isolation),
            "isolation_probes": int(pairs[1]) * int(pairs[2]) if pairs else None,
            "verdicts": {s.name: str(s.status) for s in results.stages}}


def _settled(seconds: float, run: dict) -> float:
    return max(0.1, seconds - (run["stages_s"].get("convergence") or 0))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--network", default="lab-mini")
    ap.add_argument("--synthetic", type=int, metavar="DEVICES", help="a generated show floor of DEVICES devices")
    ap.add_argument("--hosts-per-vlan", type=int, default=4)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root", file=sys.stderr)
        return 2
    build = ROOT / "build"
    inventory = ROOT / "inventories" / args.network
    network = args.network
    if args.synthetic:
        from boothnet.tools.showfloor import floor_size, write_showfloor

        network = f"floor{args.synthetic}h{args.hosts_per_vlan}"
        inventory = build / "inventories" / network
        write_showfloor(inventory, floor_size(args.synthetic, hosts_per_vlan=args.hosts_per_vlan), network)
    common = ["-i", str(inventory), "--build-dir", str(build)]
    env = {**os.environ, "BOOTHNET_ISOLATION_SEED": "4242"}
    up_s, rc = timed([str(BIN / "boothnet"), "lab-up", *common], env)
    if rc:
        print(f"lab-up failed (exit {rc})", file=sys.stderr)
        return 1
    try:
        with tempfile.TemporaryDirectory() as hook:
            (Path(hook) / "sitecustomize.py").write_text(AUDIT_HOOK)
            log = Path(hook) / "commands.jsonl"
            floor_env = {**env, "PYTHONPATH": hook, "BOOTHNET_AUDIT_LOG": str(log)}
            floor_s, floor_rc = timed([str(BIN / "boothnet"), "validate-hw", *common, "--lab", "--no-throughput"],
                                      floor_env)
            floor = latest(build, network)
            ran = [json.loads(line)["argv"] for line in log.read_text().splitlines()] if log.exists() else []
        ssh = [argv for argv in ran if argv[:1] == ["ssh"]]
        lab_s, lab_rc = timed([str(BIN / "boothnet"), "validate-lab", *common, "--no-throughput",
                               "--no-vpn-resilience", "--no-wan-sweep"], env)
        lab = latest(build, network)
    finally:
        subprocess.run([str(BIN / "boothnet"), "lab-down", *common], cwd=ROOT, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
    probes = floor["isolation_probes"] or 0
    iso_s = floor["stages_s"].get("isolation") or 0
    summary = {
        "benchmark": "floor_path", "network": network, "lab_up_s": up_s,
        "floor": {"seconds": floor_s, "exit": floor_rc, **floor},
        "lab": {"seconds": lab_s, "exit": lab_rc, **lab},
        # the first run after lab-up waits for OSPF: compared without the convergence stage
        "floor_over_lab": round(_settled(floor_s, floor) / _settled(lab_s, lab), 2) if lab_s else None,
        "ssh_commands": len(ssh),
        "hosts_connected": len({argv[-2] for argv in ssh if len(argv) > 2}),
        "isolation_probes_per_s_floor": round(probes / iso_s, 1) if iso_s else None,
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    out = ROOT / "bench" / "results" / f"floor_path_{network}.json"
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({k: summary[k] for k in ("network", "floor_over_lab", "ssh_commands", "hosts_connected",
                                                "isolation_probes_per_s_floor")}),
          f"floor {floor_s} s (exit {floor_rc}), lab {lab_s} s (exit {lab_rc}); {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
