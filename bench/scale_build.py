#!/usr/bin/env python3
"""Build and verify a generated show floor at several sizes (issue 8), and compare the build
with the naive way of rendering (one ansible.builtin.template task per host). A benchmark,
not a test.

  .venv/bin/python bench/scale_build.py                  # N = 50, 200, 500 devices, 3 runs each
  .venv/bin/python bench/scale_build.py --sizes 50 -n 1  # quick look

Per size, each timed as a fresh run (previous output removed) of the real command:
  build   ansible-playbook playbooks/build.yml (validate, derive, render, offline lint with
          vtysh --dryrun and nft -c of every frr_linux device)
  stages  the same steps in this process, timed one by one (where the build's time goes)
  naive   ansible-playbook bench/naive/render_per_host.yml: the same derived models and
          templates, one template task per host (derivation not counted: it favours naive)
  verify  ansible-playbook playbooks/verify.yml without BATFISH_HOST (offline part; the
          Batfish checks report SKIPPED)
Figures are medians; peak memory is the largest sampled RSS sum of the command's process
tree. Results: bench/results/scale_build.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from boothnet.derive import derive_network  # noqa: E402
from boothnet.intent import load_network  # noqa: E402
from boothnet.render.build import check_with_tools, render_all, write_configs  # noqa: E402
from boothnet.render.lint import lint_rendered  # noqa: E402
from boothnet.tools.scalebench import Series, growth_exponent, run_measured, write_naive_inputs  # noqa: E402
from boothnet.tools.showfloor import floor_size, write_showfloor  # noqa: E402

PLAYBOOK = str(ROOT / ".venv" / "bin" / "ansible-playbook")


def stage_times(inventory: Path, scratch: Path) -> dict[str, float]:
    """The build's steps one by one, in this process (same calls as boothnet.render.build.build)."""
    times: dict[str, float] = {}
    t = time.perf_counter()
    net = load_network(inventory)
    times["validate"] = time.perf_counter() - t
    t = time.perf_counter()
    models = derive_network(net)
    times["derive"] = time.perf_counter() - t
    t = time.perf_counter()
    files = render_all(models, net.name)
    lint_rendered(files, models)
    times["render_lint"] = time.perf_counter() - t
    t = time.perf_counter()
    write_configs(files, scratch)
    times["write"] = time.perf_counter() - t
    t = time.perf_counter()
    check_with_tools(scratch, models)
    times["vtysh_nft"] = time.perf_counter() - t
    shutil.rmtree(scratch)
    return {k: round(v, 3) for k, v in times.items()}


def measure(argv: list[str], runs: int, before, env: dict[str, str]) -> tuple[Series, float]:
    wall, peak = Series(), 0.0
    for _ in range(runs):
        before()
        m = run_measured(argv, cwd=ROOT, env=env)
        if m.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({m.returncode}):\n{m.output_tail}")
        wall.runs.append(m.wall_s)
        peak = max(peak, m.peak_rss_mb)
    return wall, peak


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 500])
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--naive-runs", type=int, default=2)
    ap.add_argument("--no-naive", action="store_true")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scale_build.json")
    args = ap.parse_args()

    env = {k: v for k, v in os.environ.items() if k != "BATFISH_HOST"}
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    build_root = ROOT / "build"
    results: list[dict[str, object]] = []
    for n in args.sizes:
        name = f"floor{n}"
        inventory = build_root / "inventories" / name
        size = floor_size(n)
        write_showfloor(inventory, size, name)
        net = load_network(inventory)
        row: dict[str, object] = {
            "devices": n,
            "booths": size.booths,
            "distribution": size.distribution,
            "frr_linux_devices": sum(d.platform == "frr_linux" for d in net.devices.values()),
            "vlans": len(net.vlans),
            "endpoints": len(net.endpoints),
            "policy_rules": len(net.policy.rules),
            "links": len(net.links),
        }
        out_dir = build_root / name / "configs"
        build, build_peak = measure(
            [PLAYBOOK, "-i", str(inventory), "playbooks/build.yml"],
            args.runs,
            lambda d=out_dir: shutil.rmtree(d, ignore_errors=True),
            env,
        )
        row["build_s"], row["build_peak_mb"] = build.to_json(), build_peak
        row["config_bytes"] = sum(p.stat().st_size for p in out_dir.rglob("*") if p.is_file())
        row["stages_s"] = stage_times(inventory, build_root / name / "stage-scratch")
        line = (
            f"N={n}: {row['frr_linux_devices']} frr_linux, {row['vlans']} VLANs, {row['endpoints']} hosts, "
            f"{row['policy_rules']} rules | build.yml {build.median} s (peak {build_peak} MB) "
            f"stages {row['stages_s']}"
        )
        if not args.no_naive:
            naive_dir = build_root / name / "naive"
            shutil.rmtree(naive_dir, ignore_errors=True)
            write_naive_inputs(build_root / name / "configs.model.json", name, naive_dir)
            naive, naive_peak = measure(
                [PLAYBOOK, "-i", str(inventory), "bench/naive/render_per_host.yml", "-e", f"naive_dir={naive_dir}"],
                args.naive_runs,
                lambda d=naive_dir / "out": shutil.rmtree(d, ignore_errors=True),
                env,
            )
            row["naive_s"], row["naive_peak_mb"] = naive.to_json(), naive_peak
            row["naive_over_build"] = round(naive.median / build.median, 2)
            line += f" | naive {naive.median} s (peak {naive_peak} MB), naive/build {row['naive_over_build']}x"
        if not args.no_verify:
            verify, verify_peak = measure(
                [PLAYBOOK, "-i", str(inventory), "playbooks/verify.yml"],
                args.runs,
                lambda d=build_root / name: [shutil.rmtree(d / s, ignore_errors=True) for s in ("configs", "batfish")],
                env,
            )
            row["verify_s"], row["verify_peak_mb"] = verify.to_json(), verify_peak
            line += f" | verify.yml {verify.median} s (peak {verify_peak} MB)"
        row["loadavg_1m"] = round(os.getloadavg()[0], 2)
        print(f"{line} | load {row['loadavg_1m']}", flush=True)
        results.append(row)

    sizes = [int(r["devices"]) for r in results]  # type: ignore[arg-type]
    growth = {
        key: growth_exponent(sizes, [r[key]["median"] for r in results])  # type: ignore[index]
        for key in ("build_s", "naive_s", "verify_s")
        if all(key in r for r in results)
    }
    summary = {
        "benchmark": "scale_build",
        "runs": args.runs,
        "naive_runs": args.naive_runs,
        # other work on the machine skews wall times: the load average says how much
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "kernel": platform.release()},
        "sizes": results,
        "growth_exponent": growth,  # slope of log(time) over log(N): 1 linear, 2 quadratic
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"growth exponents (log time / log N): {growth}\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
