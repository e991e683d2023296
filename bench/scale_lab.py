#!/usr/bin/env python3
"""Bring up the netns lab of a generated show floor (issue 8), measure time and memory per
node, take it down and check nothing is left. A benchmark, not a test; needs root.

  .venv/bin/python bench/scale_lab.py            # 200 devices, no hosts: 200 router nodes
  .venv/bin/python bench/scale_lab.py -N 100 --hosts-per-vlan 1 -n 2

Memory: the RSS sum of every process in the lab's namespaces (FRR daemons, sshd) per node,
and the drop of MemAvailable over the bring-up (also counts kernel objects:
namespaces, veths, qdiscs, bridges). Results: bench/results/scale_lab.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from boothnet.lab import names, net, services  # noqa: E402
from boothnet.lab.plan import plan_lab  # noqa: E402
from boothnet.lab.runner import detect_vlan_mode, lab_down, lab_health, lab_up  # noqa: E402
from boothnet.tools.scalebench import mem_available_kb  # noqa: E402
from boothnet.tools.showfloor import floor_size, write_showfloor  # noqa: E402


def lab_processes(namespaces: list[str]) -> tuple[int, Counter[str], int]:
    """(process count, count per command, RSS sum in kB) of the lab's namespaces."""
    rss, kinds, count = 0, Counter(), 0
    for pids in services.pids_in_namespaces(namespaces).values():
        for pid in pids:
            try:
                status = Path(f"/proc/{pid}/status").read_text().splitlines()
            except OSError:
                continue
            fields = dict(line.split(":", 1) for line in status if ":" in line)
            kinds[fields.get("Name", "?").strip()] += 1
            rss += int(fields.get("VmRSS", "0 kB").split()[0])
            count += 1
    return count, kinds, rss


def leftovers(network: str, state_dir: Path) -> dict[str, object]:
    prefix = f"{network}-"
    nss = [ns for ns in net.list_namespaces() if ns.startswith(prefix)]
    return {
        "namespaces": nss,
        "root_links": net.root_links_with_alias(names.alias(network, "")),
        "processes": sum(len(p) for p in services.pids_in_namespaces(nss).values()),
        "frr_dirs": [str(d) for base in (names.FRR_ETC, names.FRR_RUN) for d in base.glob(f"{prefix}*")],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-N", "--devices", type=int, default=200)
    ap.add_argument("--hosts-per-vlan", type=int, default=0, help="lab hosts per booth VLAN (default 0)")
    ap.add_argument("-n", "--runs", type=int, default=1)
    ap.add_argument("--name", help="network name (default floor<N>lab)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scale_lab.json")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root", file=sys.stderr)
        return 2
    name = args.name or f"floor{args.devices}lab"
    build_root = ROOT / "build"
    inventory = build_root / "inventories" / name
    size = floor_size(args.devices, hosts_per_vlan=args.hosts_per_vlan)
    write_showfloor(inventory, size, name)
    state_dir = build_root / name / "lab"
    mode = detect_vlan_mode()

    def progress(msg: str) -> None:
        if args.verbose:
            print("   ", msg, flush=True)

    lab_down(name, state_dir, progress)  # start clean
    runs: list[dict[str, object]] = []
    try:
        for i in range(args.runs):
            t0 = time.monotonic()
            spec, result = plan_lab(inventory, mode, build_root, progress=progress)
            plan_s = time.monotonic() - t0
            mem0 = mem_available_kb()  # after the plan: the drop is the lab's, not this process's
            if not result.ok:
                print(result.summary_table(), file=sys.stderr)
                return 1
            t1 = time.monotonic()
            state = lab_up(spec, state_dir, progress)
            up_s = time.monotonic() - t1
            time.sleep(2)  # daemons settle (FRR reads its config, sshd forks) before counting memory
            problems = lab_health(state)
            nss = list(state["namespaces"].values())
            count, kinds, rss_kb = lab_processes(nss)
            mem1 = mem_available_kb()
            nodes = len(spec.nodes)
            t2 = time.monotonic()
            lab_down(name, state_dir, progress)
            down_s = time.monotonic() - t2
            left = leftovers(name, state_dir)
            run = {
                "nodes": nodes,
                "routers": sum(n.kind == "router" for n in spec.nodes),
                "hosts": sum(n.kind == "host" for n in spec.nodes),
                "links": len(spec.links),
                "vlan_mode": mode,
                "plan_build_s": round(plan_s, 2),
                "up_s": round(up_s, 2),
                "down_s": round(down_s, 2),
                "up_s_per_node": round(up_s / nodes, 3),
                "processes": count,
                "process_kinds": dict(sorted(kinds.items())),
                "rss_mb": round(rss_kb / 1024, 1),
                "rss_mb_per_node": round(rss_kb / 1024 / nodes, 2),
                "mem_available_drop_mb": round((mem0 - mem1) / 1024, 1),
                "mem_available_drop_mb_per_node": round((mem0 - mem1) / 1024 / nodes, 2),
                "health_problems": problems[:5],
                "leftovers": left,
                "clean": not any(left.values()),
            }
            runs.append(run)
            print(
                f"run {i + 1}: {nodes} nodes ({run['routers']} routers, {run['hosts']} hosts), {len(spec.links)} "
                f"links, {mode}: plan+build {run['plan_build_s']} s, up {run['up_s']} s "
                f"({run['up_s_per_node']} s/node), down {run['down_s']} s; {count} processes, RSS "
                f"{run['rss_mb']} MB ({run['rss_mb_per_node']} MB/node), MemAvailable -{run['mem_available_drop_mb']} "
                f"MB ({run['mem_available_drop_mb_per_node']} MB/node); health problems {len(problems)}; "
                f"clean after down: {run['clean']}",
                flush=True,
            )
    finally:
        lab_down(name, state_dir, progress)

    def median(key: str) -> float:
        return round(statistics.median(float(r[key]) for r in runs), 3)  # type: ignore[arg-type]

    summary = {
        "benchmark": "scale_lab",
        "network": name,
        "devices": args.devices,
        "hosts_per_vlan": args.hosts_per_vlan,
        # other work on the machine skews wall times: the load average says how much
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release()},
        "medians": {
            k: median(k)
            for k in ("up_s", "down_s", "up_s_per_node", "rss_mb_per_node", "mem_available_drop_mb_per_node")
        },
        "runs": runs,
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"medians: {summary['medians']}\nwrote {args.out}")
    return 0 if all(r["clean"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
