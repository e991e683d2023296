"""The validate stage: plan the tests from the intent, run them in the lab, judge them; the
results go to the report stage.

Tests come from the intent only: one probe per VLAN pair and per policy rule between real
endpoints, an MTU probe per endpoint link and per declared path, and a throughput test per
research subnet (each cluster node to its file server) and per declared path.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from boothnet.intent import load_network
from boothnet.intent.model import Network
from boothnet.lab.names import ns_name
from boothnet.validate.perf.runner import Runner, netns_runner
from boothnet.validate.perf.schema import RttRow, ThroughputResult
from boothnet.validate.perf.wan import run_wan_path, sweep_verdict, wan_paths
from boothnet.validate.plan import isolation_flows, path_mtu
from boothnet.validate.results import Stage, ValidationResults, VpnTunnel
from boothnet.validate.run import batfish_answers, run_isolation, run_mtu, run_throughput_tests, wait_converged
from boothnet.validate.verdicts import judge_batfish_agreement, timed_stage
from boothnet.validate.vpn import lab_vpn, run_vpn


def run_wan(
    net: Network, runner: Runner, progress: Callable[[str], None], stages: list[Stage], tunnel_mtu: int | None,
    sweep: bool,
) -> tuple[list[RttRow], list[ThroughputResult]]:
    """The WAN stage (RTT probes, window pair, parallel streams, UDP) and the WAN sweep stage of
    every declared path that crosses a WAN link; none when no path does."""
    paths = wan_paths(net, lambda src, dst: path_mtu(net, src, dst, tunnel_mtu))
    if not paths:
        return [], []
    started = time.monotonic()
    rtt: list[RttRow] = []
    tests: list[ThroughputResult] = []
    points: list[ThroughputResult] = []
    for path in paths:
        r, t, p = run_wan_path(runner, path, lambda node: ns_name(net.name, node), net, progress, sweep)
        rtt, tests, points = rtt + r, tests + t, points + p
    failed = any(row.verdict != "PASS" for row in [*rtt, *tests])
    stages.append(Stage(name="wan", status="FAIL" if failed else "PASS",
                        duration_s=round(time.monotonic() - started - sum(p.duration for p in points), 1)))
    if sweep:
        why = sweep_verdict(points)
        stages.append(Stage(name="wan sweep", status="FAIL" if why else "PASS", reason=why,
                            duration_s=round(sum(p.duration for p in points), 1)))
    else:
        stages.append(Stage(name="wan sweep", status="SKIPPED", reason="--no-wan-sweep"))
    return rtt, tests + points


def run_validate(
    inventory: Path,
    build_root: Path = Path("build"),
    runner: Runner = netns_runner,
    throughput: bool = True,
    progress: Callable[[str], None] = lambda _: None,
    extra_stages: list[Stage] | None = None,
    vpn_resilience: bool = True,
    batfish_host: str | None = None,
    wan_sweep: bool = True,
) -> ValidationResults:
    net = load_network(inventory)
    lab_dir = (build_root / net.name / "lab").resolve()
    vpn = lab_vpn(net, lab_dir)
    stages = list(extra_stages or [])
    flows = isolation_flows(net)
    progress("waiting for routing to converge")
    stages.append(wait_converged(net, runner, flows))
    progress(f"convergence: {stages[-1].status} in {stages[-1].duration_s} s")
    answers, batfish_stage = batfish_answers(net, build_root, flows, batfish_host, progress)
    isolation = timed_stage(stages, "isolation", lambda: run_isolation(net, runner, flows, progress, answers))
    judge_batfish_agreement(batfish_stage, isolation)
    stages.append(batfish_stage)
    mtu = timed_stage(stages, "mtu", lambda: run_mtu(net, runner, progress))
    tunnels: list[VpnTunnel] = []
    if vpn is not None:
        started = time.monotonic()
        tunnels, vpn_mtu = run_vpn(net, lab_dir, runner, progress, resilience=vpn_resilience)
        mtu += vpn_mtu
        failed = any(row.verdict != "PASS" for row in [*tunnels, *vpn_mtu])
        stages.append(Stage(name="vpn", status="FAIL" if failed else "PASS",
                            duration_s=round(time.monotonic() - started, 1)))
    tunnel_mtu = vpn.inner_mtu if vpn else None
    results: list[ThroughputResult] = []
    rtt: list[RttRow] = []
    if throughput:
        results = timed_stage(stages, "throughput", lambda: run_throughput_tests(net, runner, progress, tunnel_mtu))
        rtt, wan = run_wan(net, runner, progress, stages, tunnel_mtu, wan_sweep)
        results += wan
    else:
        stages.append(Stage(name="throughput", status="SKIPPED", reason="throughput tests not requested"))
    zones = [v.name for v in net.vlans if not v.routers]
    validation = ValidationResults(
        network=net.name,
        generated=datetime.now(UTC).isoformat(timespec="seconds"),
        stages=stages,
        zones=zones,
        isolation=isolation,
        mtu=mtu,
        throughput=results,
        rtt=rtt,
        vpn=tunnels,
    )
    return validation
