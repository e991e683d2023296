"""The main job as one runner: the stages of `boothnet demo` in order, each saying what it takes
from the run and what it gives the stages after it. The CLI parses arguments, hands the runner a
`Run` and prints; the runner returns what the report needs, or stops with a `Stopped` that
says why (and, when there is one, the report of what did run)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from boothnet.deploy.results import DeviceResult, load_results
from boothnet.errors import Refusal
from boothnet.lab.kernel import detect_vlan_mode
from boothnet.lab.plan import plan_lab
from boothnet.lab.runner import lab_down, lab_up
from boothnet.lab.standin import StandInRefused
from boothnet.lab.state import CONFIG_MODES, ConfigMode, LabState
from boothnet.layout import REPO, Layout
from boothnet.progress import Progress
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.checks.drift import drift_stage
from boothnet.validate.profile import FULL
from boothnet.validate.results import Stage, ValidationResults
from boothnet.validate.stage import run_validate
from boothnet.verify.batfish.report import VerifyReport
from boothnet.verify.batfish.service import BatfishUnavailable
from boothnet.verify.stage import run_verify_stage


@dataclass
class DemoOptions:
    vlan_mode: str | None = None  # default: what the kernel supports
    batfish_host: str | None = None  # None: the Batfish checks are SKIPPED
    throughput: bool = True
    vpn_resilience: bool = True
    wan_sweep: bool = True


@dataclass
class Demo:
    """What the steps give each other."""

    run: Run
    options: DemoOptions
    stages: list[Stage] = field(default_factory=list)
    verify: VerifyReport | None = None
    deployed: list[DeviceResult] = field(default_factory=list)
    results: ValidationResults | None = None


class Stopped(Exception):  # the pipeline stopped, it did not crash
    """The pipeline stopped before the end: `lines` say why; `results` is the report of what ran."""

    def __init__(self, lines: list[str], results: ValidationResults | None = None) -> None:
        super().__init__("\n".join(lines))
        self.lines, self.results = lines, results


@dataclass(frozen=True)
class Step:
    banner: str
    takes: str
    gives: str
    run: Callable[[Demo, Progress, Progress], None]  # (demo, progress, announce)


def bring_up_lab(run: Run, vlan_mode: str | None, configs: ConfigMode, progress: Progress, announce: Progress
                 ) -> tuple[str, LabState]:
    """The lab of the run's intent up with `configs` ("full", or "day0": routers unconfigured).
    Returns the VLAN mode and the lab's state."""
    mode = vlan_mode or detect_vlan_mode()
    progress(f"VLAN mode: {mode} ({'802.1Q trunks' if mode == 'dot1q' else 'one L2 segment per VLAN'})")
    try:
        spec, built = plan_lab(run, mode, run.build_root, progress=progress)  # type: ignore[arg-type]  # CLI choices
    except StandInRefused as refused:
        raise Stopped(["the lab's stand-ins run what the IOS/EOS configs read as; these lines cannot be read:",
                       *refused.lines]) from refused
    if not built.ok:
        raise Stopped([built.summary_table()])
    state = lab_up(spec, run.layout.lab, progress=progress, configs=configs)
    announce(f"lab {spec.network}: {'up' if state.changed else 'already up, no change'} "
             f"({len(spec.nodes)} nodes, {len(spec.links)} links, VLAN mode {mode}, configs {configs})")
    announce(f"inventory: {run.layout.lab_inventory}")
    return mode, state


class LabFindings(Refusal):
    """The lab's configs did not build clean: no lab is started from them."""


def lab_task(run: Run, state: str, vlan_mode: str | None, configs: str, progress: Progress) -> dict:
    """The boothnet_lab task: the run's lab up (with `configs`) or down; what the task returns."""
    if state == "down":
        return {"changed": bool(lab_down(run.net.name, run.layout.lab, progress=progress).removed)}
    try:
        if configs not in CONFIG_MODES:  # the module's choices say so too
            raise LabFindings(f"configs must be one of {', '.join(CONFIG_MODES)}, not {configs!r}")
        mode, lab_state = bring_up_lab(run, vlan_mode, cast(ConfigMode, configs), progress, progress)
    except Stopped as exc:
        raise LabFindings(f"lab configs have findings:\n{exc}") from exc
    return {"changed": lab_state.changed, "inventory": str(run.layout.lab_inventory),
            "vlan_mode": mode, "configs": configs}


def lab_up_day0(demo: Demo, progress: Progress, announce: Progress) -> None:
    bring_up_lab(demo.run, demo.options.vlan_mode, "day0", progress, announce)


def verify_stages(verify: VerifyReport, out_dir: Path) -> list[Stage]:
    """Verify as two report stages, offline lint and Batfish, so that lint that passed is not
    hidden behind Batfish checks SKIPPED for want of a service. Each stage's status is the
    verify report's rule over its checks; the note names the checks that did not pass."""
    stages = []
    for name, checks in (
        ("verify (offline lint)", [c for c in verify.checks if c.source != "batfish"]),
        ("verify (Batfish)", [c for c in verify.checks if c.source == "batfish"]),
    ):
        status = VerifyReport(checks=checks).status
        open_checks = [c for c in checks if c.status != Status.PASS]
        reason = None
        if open_checks:
            names = ", ".join(f"{c.name} {c.status}" for c in open_checks[:4])
            more = f" and {len(open_checks) - 4} more" if len(open_checks) > 4 else ""
            why = next((c.reason for c in open_checks if c.reason), "")
            reason = f"{names}{more}" + (f" ({why})" if why else "") + f"; see {out_dir / 'verify.md'}"
        stages.append(Stage(name=name, status=status, reason=reason))
    return stages


def build_and_verify(demo: Demo, progress: Progress, _announce: Progress) -> None:
    run = demo.run
    try:
        verify = run_verify_stage(run, run.build_root, host=demo.options.batfish_host, progress=progress)
    except BatfishUnavailable as exc:  # it answered when the demo began, then stopped
        lab_down(run.net.name, run.layout.lab, progress=progress)
        raise Stopped([f"verify: FAIL: {exc}", f"lab {run.net.name}: down"]) from None
    demo.verify = verify
    demo.stages = verify_stages(verify, run.layout.verify)
    if verify.status == Status.FAIL:
        # nothing was deployed, so there is nothing in the lab to look at
        lines = ["verify FAILED: nothing deployed. Findings:"] + [
            f"  FAIL {check.title}: {finding.one_line()}"
            for check in verify.checks if check.status == Status.FAIL for finding in check.findings]
        not_run = "not run: verify failed, nothing deployed"
        stages = demo.stages + [Stage(name=name, status=Status.SKIPPED, reason=not_run)
                                for name in ("deploy", "validate")]
        lab_down(run.net.name, run.layout.lab, progress=progress)
        raise Stopped([*lines, f"lab {run.net.name}: down (verify failed)"],
                      ValidationResults(network=run.net.name, stages=stages))


def deploy_lab(demo: Demo, progress: Progress, _announce: Progress) -> None:
    """playbooks/deploy.yml against the lab inventory, its output streamed as progress; the
    devices' records come back typed from the deploy's results."""
    layout = demo.run.layout
    playbook = Path(sys.executable).parent / "ansible-playbook"
    build_dir = layout.build_root.resolve()  # the playbook runs in the repository, not here
    started = time.monotonic()
    with subprocess.Popen(
        [str(playbook), "-i", str(layout.lab_inventory.resolve()), str(REPO / "playbooks" / "deploy.yml"),
         "-e", f"boothnet_build_dir={build_dir}"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(("TASK", "PLAY RECAP", "fatal", "changed", "ok: [localhost]")) or "    - " in line:
                progress(line.rstrip())
    duration = round(time.monotonic() - started, 1)
    demo.deployed = load_results(layout.deploy) if layout.deploy.is_dir() else []
    note = ", ".join(f"{r.device} {r.outcome} ({r.driven_by})" for r in demo.deployed) or None
    if proc.returncode == 0 and all(r.ok for r in demo.deployed):
        demo.stages.append(Stage(name="deploy", status=Status.PASS, duration_s=duration, note=note))
    else:
        why = f"ansible-playbook exit {proc.returncode}; which config is in force: " \
              f"{Layout(build_dir, layout.network).deploy_summary}"
        demo.stages.append(Stage(name="deploy", status=Status.FAIL, duration_s=duration, note=note, reason=why))
    demo.stages.append(drift_stage(layout.lab, progress))


def validate_lab(demo: Demo, progress: Progress, _announce: Progress) -> None:
    o = demo.options
    profile = FULL.edit(throughput=o.throughput, vpn_resilience=o.vpn_resilience, batfish_host=o.batfish_host,
                        wan_sweep=o.wan_sweep)
    demo.results = run_validate(demo.run, profile, progress=progress, extra_stages=demo.stages)


def demo_steps(demo: Demo) -> list[Step]:
    network, host = demo.run.net.name, demo.options.batfish_host
    return [
        Step(f"lab up {network} (day 0: routers unconfigured)", "the intent", "a running day-0 lab", lab_up_day0),
        Step(f"build and verify (offline lint; Batfish {host or 'SKIPPED: no service'})",
             "the intent, its hardware and Batfish contexts", "configs, the verify report, its loaded snapshot",
             build_and_verify),
        Step("deploy (NAPALM frr_linux: backup, diff, commit-confirm, health check, confirm)",
             "the lab's configs", "the devices' deploy records, the drift after deploy", deploy_lab),
        Step("validate: isolation, MTU probes, VPN, throughput", "the lab context, the loaded snapshot",
             "the validation results", validate_lab),
    ]


def run_demo(run: Run, options: DemoOptions, progress: Progress, announce: Progress) -> ValidationResults:
    """Every step in order, each announced as `[i/5]` (the CLI's report is the fifth); raises
    Stopped when a step stops the job."""
    demo = Demo(run, options)
    steps = demo_steps(demo)
    for number, step in enumerate(steps, start=1):
        announce(f"[{number}/{len(steps) + 1}] {step.banner}")
        step.run(demo, progress, announce)
    assert demo.results is not None
    return demo.results
