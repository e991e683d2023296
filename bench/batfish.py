"""Batfish benchmark: start the service, load a snapshot, answer every verify question.

    BATFISH_JAR=../shared/batfish/server/allinone-bundle.jar .venv/bin/python bench/batfish.py --runs 3

Times, as medians of --runs: starting a service from BATFISH_JAR until it answers (each run
starts and stops its own, in a private state folder, heap --heap), then per network (sc-booth
and generated 50/200/500-device show floors) loading the Batfish view as a snapshot and
answering every question verify asks (`boothnet.verify.batfish.questions.collect`), and the whole
verify stage as `boothnet verify` runs it. The service's peak resident memory after the
largest floor says what heap that floor needs. Results go to bench/results/batfish.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from boothnet.intent import load_network
from boothnet.tools.showfloor import floor_size, write_showfloor
from boothnet.verify.batfish import local
from boothnet.verify.batfish.from_intent import render_batfish_view, verify_intent_from_model
from boothnet.verify.batfish.questions import collect
from boothnet.verify.batfish.service import open_session, probe
from boothnet.verify.batfish.snapshot import build_snapshot_dir, init_snapshot
from boothnet.verify.stage import run_verify_stage

REPO = Path(__file__).resolve().parents[1]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def inventory(name: str, work: Path) -> Path:
    if name.startswith("floor"):
        path = work / "inventories" / name
        if not path.exists():
            write_showfloor(path, floor_size(int(name[5:])), name)
        return path
    return REPO / "inventories" / name


def run_once(networks: list[str], work: Path) -> dict:
    state = Path(tempfile.mkdtemp(prefix="bn-bench-bf-"))
    os.environ.pop("BATFISH_HOST", None)
    t0 = time.monotonic()
    host, started = local.up(state, timeout=300)
    out: dict = {"start_s": round(time.monotonic() - t0, 2), "networks": {}}
    try:
        status = probe(host)
        for name in networks:
            net = load_network(inventory(name, work))
            view, models = render_batfish_view(net, work / "build")
            intent = verify_intent_from_model(net, models)
            bf = open_session(status, f"bench-{name}")
            t1 = time.monotonic()
            init_snapshot(bf, build_snapshot_dir(view.out_dir, intent.links, work / "snap" / name), "bench")
            t2 = time.monotonic()
            answers = collect(bf, intent, "bench")
            t3 = time.monotonic()
            os.environ["BATFISH_HOST"] = host
            report = run_verify_stage(inventory(name, work), work / "verify-build")
            t4 = time.monotonic()
            os.environ.pop("BATFISH_HOST")
            out["networks"][name] = {
                "devices": len(net.devices), "load_s": round(t2 - t1, 2), "questions_s": round(t3 - t2, 2),
                "question_errors": len(answers.errors), "verify_stage_s": round(t4 - t3, 2),
                "verify_status": str(report.status),
                "service_peak_rss_mib": round(rss_mib(started.pid), 0) if started and started.pid else None,
            }
            print(f"  {name}: {out['networks'][name]}", flush=True)
    finally:
        local.stop(state)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--networks", default="sc-booth,floor50,floor200,floor500")
    parser.add_argument("--heap", default=os.environ.get("BATFISH_HEAP", "6g"))
    parser.add_argument("--out", default="batfish.json", help="file name under bench/results/")
    args = parser.parse_args()
    if not os.environ.get("BATFISH_JAR"):
        raise SystemExit("bench/batfish.py: set BATFISH_JAR (e.g. ../shared/batfish/server/allinone-bundle.jar)")
    os.environ["BATFISH_HEAP"] = args.heap
    networks = args.networks.split(",")
    work = Path(tempfile.mkdtemp(prefix="bn-bench-bf-work-"))
    runs = []
    for i in range(args.runs):
        print(f"run {i + 1}/{args.runs}", flush=True)
        runs.append(run_once(networks, work))

    def median(key: str, name: str | None = None) -> float:
        values = [r["networks"][name][key] if name else r[key] for r in runs]
        return round(statistics.median(values), 2)

    result = {
        "machine": f"{platform.node()} {os.cpu_count()} cores",
        "heap": args.heap,
        "runs": args.runs,
        "start_s": median("start_s"),
        "networks": {
            name: {
                "devices": runs[0]["networks"][name]["devices"],
                "load_s": median("load_s", name),
                "questions_s": median("questions_s", name),
                "verify_stage_s": median("verify_stage_s", name),
                "verify_status": runs[-1]["networks"][name]["verify_status"],
                "service_peak_rss_mib": max((r["networks"][name]["service_peak_rss_mib"] or 0) for r in runs),
            }
            for name in networks
        },
    }
    path = REPO / "bench" / "results" / args.out
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
