"""The validate stage: plan the tests from the intent, run them in the lab, judge them; the
results go to the report stage.

Tests come from the intent only: one probe per VLAN pair and per policy rule between real
endpoints, an MTU probe per endpoint link and per declared path, and a throughput test per
research subnet (each cluster node to its file server) and per declared path.
"""

from __future__ import annotations

import os
import platform
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from boothnet.intent.model import Network
from boothnet.locks import measurement_turn
from boothnet.progress import Progress
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.access import Access, lab_access
from boothnet.validate.cabling import run_cabling
from boothnet.validate.drift import DriftTarget, run_drift
from boothnet.validate.floor.reach import reach_stage
from boothnet.validate.isolation import run_isolation
from boothnet.validate.perf.calibrate import forwarding_ceiling, lab_ceiling, window_factor
from boothnet.validate.perf.schema import RttRow, ThroughputResult
from boothnet.validate.perf.wan import WanPath, capped, probe_wan_links, run_wan_path, run_wan_sweep, wan_paths
from boothnet.validate.placement import run_placement
from boothnet.validate.plan import crosses_vpn, isolation_plan, path_mtu
from boothnet.validate.production import production_under_load
from boothnet.validate.profile import FULL, Profile
from boothnet.validate.results import Conditions, MtuRow, ProductionRow, Stage, ValidationResults, VpnTunnel
from boothnet.validate.run import batfish_answers, run_mtu, run_throughput_tests, wait_converged
from boothnet.validate.verdicts import guarded, judge_batfish_agreement, timed_stage
from boothnet.validate.vpn import LabVpn, lab_vpn, network_vpn, run_vpn

SEED_ENV = "BOOTHNET_ISOLATION_SEED"


def random_seed() -> int:
    """The isolation sample's seed: BOOTHNET_ISOLATION_SEED, else a new one each run (printed), so
    that run after run other ports get their chance."""
    value = os.environ.get(SEED_ENV, "").strip()
    return int(value) if value.isdigit() else random.SystemRandom().randrange(1_000_000)


def run_wan(
    net: Network, access: Access, progress: Progress, stages: list[Stage], tunnel_mtu: int | None,
    sweep: bool, window_factor: Callable[[str, int], float], ceiling: Callable[[str, WanPath], float],
) -> tuple[list[RttRow], list[ThroughputResult]]:
    """The WAN stage (every WAN link's RTT; per declared path that crosses one: RTT, window pair,
    parallel streams, UDP) and the WAN sweep stage; neither when the intent has no WAN link."""
    if not any(link.wan for link in net.links):
        return [], []
    runner, ns = access.runner, access.node
    paths = wan_paths(net, lambda src, dst: path_mtu(net, src, dst, tunnel_mtu))
    if not access.on_floor:  # the lab's own delay line and userspace tunnel carry only so much here
        paths = [capped(p, ceiling, crosses_vpn(net, p.source, p.destination)) for p in paths]

    def probe() -> list[RttRow | ThroughputResult]:
        rows: list[RttRow | ThroughputResult] = list(probe_wan_links(net, runner, ns, progress, access.has_shell))
        for path in paths:
            rtts, tests = run_wan_path(runner, path, ns, net, progress, window_factor)
            rows += [*rtts, *tests]
        return rows

    rows = timed_stage(stages, "wan", probe)
    points: list[ThroughputResult] = []
    if not paths:
        stages.append(Stage(name="wan sweep", status=Status.SKIPPED, reason="no declared path crosses a WAN link"))
    elif sweep:
        points = timed_stage(stages, "wan sweep",
                             lambda: [p for path in paths
                                      for p in run_wan_sweep(runner, path, ns, net, progress, window_factor)])
    else:
        stages.append(Stage(name="wan sweep", status=Status.SKIPPED, reason="--no-wan-sweep"))
    rtt = [r for r in rows if isinstance(r, RttRow)]
    return rtt, [r for r in rows if isinstance(r, ThroughputResult)] + points


def _throughput(net: Network, access: Access, progress: Progress, stages: list[Stage],
                tunnel_mtu: int | None, profile: Profile, build_root: Path
                ) -> tuple[list[ThroughputResult], list[RttRow], list[ProductionRow]]:
    """The LAN throughput tests, production under research load, then the WAN paths (their RTT
    rows beside), in one measurement turn of this machine; SKIPPED unless the profile asks."""
    if not profile.throughput:
        stages.append(Stage(name="throughput", status=Status.SKIPPED, reason="throughput tests not requested"))
        return [], [], []
    with measurement_turn(progress):
        return _measured(net, access, progress, stages, tunnel_mtu, profile.wan_sweep, build_root)


def _measured(net: Network, access: Access, progress: Progress, stages: list[Stage], tunnel_mtu: int | None,
              wan_sweep: bool, build_root: Path) -> tuple[list[ThroughputResult], list[RttRow], list[ProductionRow]]:
    forwarding = None if access.on_floor else forwarding_ceiling(build_root, progress)
    results = timed_stage(stages, "throughput",
                          lambda: run_throughput_tests(net, access, progress, tunnel_mtu, forwarding=forwarding))
    production = timed_stage(stages, "production under load", lambda: production_under_load(net, access, progress),
                             "no production host to probe, or no research traffic to load the network with")
    rtt, wan = run_wan(net, access, progress, stages, tunnel_mtu, wan_sweep, window_factor(build_root, progress),
                       lab_ceiling(build_root, progress))
    return results + wan, rtt, production


def _drift_targets(access: Access) -> Path | list[DriftTarget]:
    if access.devices is not None:
        return access.devices.drift
    if access.lab_dir is None:
        raise ValueError("the lab's state folder is not known: its routers cannot be read")
    return access.lab_dir


def _vpn(net: Network, vpn: LabVpn | None, access: Access, progress: Progress,
         stages: list[Stage], resilience: bool, light: bool) -> tuple[list[VpnTunnel], list[MtuRow]]:
    """The VPN checks and their stage, when the network has a VPN."""
    if vpn is None:
        return [], []
    started = time.monotonic()
    tunnels, vpn_mtu = run_vpn(net, vpn, access, progress, resilience=resilience, light=light)
    verdicts = [row.verdict for row in tunnels] + [row.verdict for row in vpn_mtu]
    failed = any(verdict not in (Status.PASS, Status.NOT_RUN) for verdict in verdicts)
    stages.append(Stage(name="vpn", status=Status.of(not failed), duration_s=round(time.monotonic() - started, 1)))
    return tunnels, vpn_mtu


def _tool_versions(access: Access, host: str) -> dict[str, str]:
    """iperf3's and nuttcp's version lines on ``host`` (a measured host)."""
    versions = {}
    for tool, flag in (("iperf3", "--version"), ("nuttcp", "-V")):
        answer = access.runner(access.node(host), [tool, flag], 10)
        versions[tool] = (answer.output.strip().splitlines() or ["not found"])[0]
    return versions


def measured_conditions(access: Access, net: Network, load_before: tuple[float, ...]) -> Conditions:
    """The run's conditions; in the lab a 1-minute load above the cores makes it busy (every
    namespace shares this machine's CPUs). A floor's hosts carry their own load."""
    load_after = os.getloadavg()
    cpus = os.cpu_count() or 1
    host = next((e.name for e in sorted(net.endpoints.values(), key=lambda e: e.name)
                 if not access.why_not(e.name, "iperf3", "nuttcp")), None)
    return Conditions(reached=access.kind, kernel=platform.release(), cpus=cpus,
                      load_before=[round(x, 2) for x in load_before], load_after=[round(x, 2) for x in load_after],
                      tools=_tool_versions(access, host) if host else {},
                      busy=not access.on_floor and max(load_before[0], load_after[0]) > cpus)


def run_validate(run: Run, profile: Profile = FULL, access: Access | None = None,
                 progress: Progress = lambda _: None, extra_stages: list[Stage] | None = None) -> ValidationResults:
    """Every stage of ``profile`` against the running lab, or against the network ``access``
    reaches (a floor); ``extra_stages`` (a demo's) come first in the results."""
    net = run.net
    load_before = os.getloadavg()
    access = access or lab_access(net, run.layout.lab.resolve())
    floor = access.devices
    vpn = network_vpn(run, floor.stand_in_vlan_mode) if floor else lab_vpn(run, run.layout.lab.resolve())
    stages = list(extra_stages or [])
    seed = profile.isolation_seed if profile.isolation_seed is not None else random_seed()
    plan = isolation_plan(net, seed)
    flows, coverage = plan.flows, plan.describe()
    share = profile.share
    if share is not None:
        flows = [f for f in flows if share(f"{f.src.name}>{f.dst.name}")]
        coverage = f"{len({(f.src.name, f.dst.name) for f in flows})} of {coverage}"
    progress(f"isolation: {coverage}; BOOTHNET_ISOLATION_SEED={seed} repeats this sample")
    if floor is not None:
        shells = sorted(net.endpoints) + sorted(d for d in net.devices if access.has_shell(d))
        stages.append(reach_stage(shells, access, progress))
    progress("waiting for routing to converge")
    guarded(stages, "convergence",
            lambda: stages.append(wait_converged(net, access, flows, profile.convergence_timeout_s)), None)
    progress(f"convergence: {stages[-1].status} in {stages[-1].duration_s} s")
    cabling = timed_stage(stages, "cabling", lambda: run_cabling(net, access, progress), "no cables")
    warnings: list[str] = []
    endpoints = timed_stage(stages, "endpoints", lambda: run_placement(net, access, progress, warnings),
                            "no endpoints")
    unanswered: list[Stage] = []
    if profile.ask_batfish:
        answers, batfish_stage = guarded(unanswered, "isolation (Batfish)",
                                         lambda: batfish_answers(run, flows, profile.batfish_host, progress),
                                         None) or ([None] * len(flows), unanswered[0])
    else:
        answers, batfish_stage = [None] * len(flows), Stage(name="isolation (Batfish)", status=Status.SKIPPED,
                                                           reason=f"not asked ({profile.name})")
    isolation = timed_stage(stages, "isolation", lambda: run_isolation(net, access, flows, progress, answers))
    stages[-1].note = coverage
    judge_batfish_agreement(batfish_stage, isolation)
    stages.append(batfish_stage)
    mtu = timed_stage(stages, "mtu", lambda: run_mtu(net, access, progress, share or (lambda _: True)))
    no_vpn: tuple[list[VpnTunnel], list[MtuRow]] = ([], [])
    tunnels, vpn_mtu = guarded(stages, "vpn", lambda: _vpn(net, vpn, access, progress, stages, profile.vpn_resilience,
                                                           share is not None), no_vpn)
    mtu += vpn_mtu
    results, rtt, production = _throughput(net, access, progress, stages, vpn.inner_mtu if vpn else None,
                                           profile, run.build_root)
    drift = timed_stage(stages, "drift", lambda: run_drift(_drift_targets(access), progress), "no routers to compare")
    zones = [v.name for v in net.vlans if not v.routers]
    conditions = guarded(stages, "conditions", lambda: measured_conditions(access, net, load_before), None)
    validation = ValidationResults(
        network=net.name,
        generated=datetime.now(UTC).isoformat(timespec="seconds"),
        stages=stages,
        zones=zones,
        endpoints=endpoints,
        isolation=isolation,
        mtu=mtu,
        throughput=results,
        rtt=rtt,
        production=production,
        vpn=tunnels,
        drift=drift,
        cabling=cabling,
        conditions=conditions,
        warnings=warnings,
    )
    return validation
