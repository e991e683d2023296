"""Subcommands for the lab and later stages, kept apart from the build stage's CLI."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from boothnet.cli.common import inventory_path, progress, run_of
from boothnet.layout import Layout

if TYPE_CHECKING:
    from boothnet.validate.results import Stage


def _need_root(what: str) -> None:
    if os.geteuid() != 0:
        sys.exit(f"boothnet {what}: needs root (network namespaces); run it with sudo or as root")


def _network_name(args: argparse.Namespace) -> str:
    """The network's name from the loaded intent (network.yml), not --network: that only names
    the default inventory folder and stays sc-booth when -i PATH picks another intent."""
    return run_of(args).net.name


def cmd_lab_up(args: argparse.Namespace) -> int:
    from boothnet.lab.plan import plan_lab
    from boothnet.lab.runner import detect_vlan_mode, lab_up

    _need_root("lab-up")
    mode = args.vlan_mode or detect_vlan_mode()
    progress(f"VLAN mode: {mode} ({'802.1Q trunks' if mode == 'dot1q' else 'one L2 segment per VLAN'})")
    spec, result = plan_lab(run_of(args), mode, Path(args.build_dir), progress=progress)
    if not result.ok:
        print(result.summary_table(), file=sys.stderr)
        return 1
    state_dir = Layout(Path(args.build_dir), spec.network).lab
    configs = "day0" if getattr(args, "day0", False) else "full"
    state = lab_up(spec, state_dir, progress=progress, configs=configs)
    print(
        f"lab {spec.network}: {'up' if state.get('changed', True) else 'already up, no change'} "
        f"({len(spec.nodes)} nodes, {len(spec.links)} links, VLAN mode {mode}, configs {configs})"
    )
    print(f"inventory: {state_dir / 'inventory.yml'}")
    return 0


def cmd_lab_down(args: argparse.Namespace) -> int:
    from boothnet.lab.runner import lab_down

    _need_root("lab-down")
    # without -i no intent is needed (a lab can come down whatever became of its inventory)
    network = _network_name(args) if args.inventory else args.network
    state_dir = Layout(Path(args.build_dir), network).lab
    removed = lab_down(network, state_dir, progress=progress)
    print(f"lab {network}: down")
    print(json.dumps({k: v for k, v in removed.items() if k in ("removed", "seconds")}, default=str))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from boothnet.verify.batfish.service import BatfishUnavailable
    from boothnet.verify.stage import run_verify_stage

    try:
        report = run_verify_stage(
            run_of(args), Path(args.build_dir), args.batfish_host, args.require_batfish, progress=progress
        )
    except BatfishUnavailable as exc:
        print(f"verify: FAIL: {exc}", file=sys.stderr)
        return 4
    print(report.to_markdown())
    print(f"verify: {report.status} -> {report.out_dir}")
    return 1 if str(report.status) == "FAIL" else 0


RESILIENCE_HELP = "skip the VPN outage tests (home IKE restart, outside link cut; about 30 s)"
WAN_SWEEP_HELP = "skip the window sweep of WAN paths (one iperf3 run per window; reported SKIPPED)"


def cmd_validate_lab(args: argparse.Namespace) -> int:
    from boothnet.validate.stage import run_validate

    _need_root("validate-lab")
    results = run_validate(
        run_of(args), Path(args.build_dir), throughput=not args.no_throughput, progress=progress,
        vpn_resilience=not args.no_vpn_resilience, wan_sweep=not args.no_wan_sweep,
    )
    return _report(results, Path(args.build_dir))


def _report(results, build_dir: Path) -> int:  # noqa: ANN001 - report types import lazily
    """Write the report under build/<network>/report and print its first screen; exit status 0
    only for a full PASS."""
    from boothnet.report.render import write_report
    from boothnet.report.summary import summarize

    paths = write_report(results, Layout(build_dir, results.network).report)
    summary = summarize(results)
    print(summary.headline)
    for failure in summary.failures:
        print(f"  FAIL {failure.section}: {failure.subject}: {failure.message}")
    print(f"report: {paths.html.resolve()}")
    return 0 if summary.overall == "PASS" else 1


REPO = Path(__file__).resolve().parents[3]


def _deploy_stage(network: str, build_dir: Path) -> Stage:
    """playbooks/deploy.yml against the lab inventory, its output streamed as progress."""
    from boothnet.validate.results import Stage

    playbook = Path(sys.executable).parent / "ansible-playbook"
    build_dir = build_dir.resolve()  # the playbook runs in the repository, not here
    layout = Layout(build_dir, network)
    started = time.monotonic()
    with subprocess.Popen(
        [str(playbook), "-i", str(layout.lab_inventory), str(REPO / "playbooks" / "deploy.yml"),
         "-e", f"boothnet_build_dir={build_dir}"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(("TASK", "PLAY RECAP", "fatal", "changed", "ok: [localhost]")) or "    - " in line:
                progress(line.rstrip())
    duration = round(time.monotonic() - started, 1)
    if proc.returncode == 0:
        return Stage(name="deploy", status="PASS", duration_s=duration)
    return Stage(name="deploy", status="FAIL", duration_s=duration,
                 reason=f"ansible-playbook exit {proc.returncode}; which config is in force: {layout.deploy_summary}")


def _verify_stages(verify, out_dir: Path) -> list:  # noqa: ANN001 - report types import lazily
    """Verify as two report stages, offline lint and Batfish, so that lint that passed is not
    hidden behind Batfish checks SKIPPED for want of a service. Each stage's status is the
    verify report's rule over its checks; the note names the checks that did not pass."""
    from boothnet.validate.results import Stage
    from boothnet.verify.batfish.report import VerifyReport

    stages = []
    for name, checks in (
        ("verify (offline lint)", [c for c in verify.checks if c.source != "batfish"]),
        ("verify (Batfish)", [c for c in verify.checks if c.source == "batfish"]),
    ):
        status = str(VerifyReport(checks=checks).status)
        open_checks = [c for c in checks if str(c.status) != "PASS"]
        reason = None
        if open_checks:
            names = ", ".join(f"{c.name} {c.status}" for c in open_checks[:4])
            more = f" and {len(open_checks) - 4} more" if len(open_checks) > 4 else ""
            why = next((c.reason for c in open_checks if c.reason), "")
            reason = f"{names}{more}" + (f" ({why})" if why else "") + f"; see {out_dir / 'verify.md'}"
        stages.append(Stage(name=name, status=status, reason=reason))
    return stages


def _batfish_for_demo() -> tuple[str | None, bool]:
    """(host, started here): a service found or started the three ways, or (None, False)."""
    from boothnet.verify.batfish import local

    try:
        host, started = local.up()
    except local.BatfishStartError as exc:
        progress(f"Batfish: none ({exc}); its checks will be SKIPPED")
        return None, False
    progress(f"Batfish at {host}: {'started for this demo' if started else 'already running'}")
    return host, started is not None


def _verify_failed(verify, stages: list, network: str, build_dir: Path) -> int:  # noqa: ANN001
    """Every verify finding on the terminal, the report with deploy and validate not run, and
    the lab taken down: nothing was deployed, so there is nothing in it to look at."""
    from boothnet.lab.runner import lab_down
    from boothnet.validate.results import Stage, ValidationResults

    print("verify FAILED: nothing deployed. Findings:", file=sys.stderr)
    for check in verify.checks:
        if str(check.status) == "FAIL":
            for finding in check.findings:
                print(f"  FAIL {check.title}: {finding.one_line()}", file=sys.stderr)
    not_run = "not run: verify failed, nothing deployed"
    stages += [Stage(name=name, status="SKIPPED", reason=not_run) for name in ("deploy", "validate")]
    results = ValidationResults(network=network, stages=stages)
    lab_down(network, Layout(build_dir, network).lab, progress=progress)
    print(f"lab {network}: down (verify failed)", file=sys.stderr)
    _report(results, build_dir)
    return 1


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job on the embedded lab: lab up (day 0), build and verify, deploy, validate, report."""
    from boothnet.verify.batfish import local

    _need_root("demo")
    host, started = _batfish_for_demo()
    try:
        return _demo(args, host)
    finally:
        if started:
            progress(local.stop())


def _demo(args: argparse.Namespace, batfish_host: str | None) -> int:
    from boothnet.validate.drift import drift_stage
    from boothnet.validate.stage import run_validate
    from boothnet.verify.batfish.service import BatfishUnavailable
    from boothnet.verify.stage import run_verify_stage

    run, build_dir = run_of(args), Path(args.build_dir)
    network = run.net.name
    print(f"[1/5] lab up {network} (day 0: routers unconfigured)", flush=True)
    args.day0 = True
    if cmd_lab_up(args):
        return 1
    print(f"[2/5] build and verify (offline lint; Batfish {batfish_host or 'SKIPPED: no service'})",
          flush=True)
    try:
        verify = run_verify_stage(run, build_dir, host=batfish_host, progress=progress)
    except BatfishUnavailable as exc:  # it answered when the demo began, then stopped
        print(f"verify: FAIL: {exc}", file=sys.stderr)
        cmd_lab_down(args)
        return 1
    stages = _verify_stages(verify, run.layout.verify)
    if str(verify.status) == "FAIL":
        return _verify_failed(verify, stages, network, build_dir)
    print("[3/5] deploy (NAPALM frr_linux: backup, diff, commit-confirm, health check, confirm)", flush=True)
    stages.append(_deploy_stage(network, build_dir))
    stages.append(drift_stage(run.layout.lab, progress))
    print("[4/5] validate: isolation, MTU probes, VPN, throughput", flush=True)
    results = run_validate(
        run, build_dir, throughput=not args.no_throughput, progress=progress, extra_stages=stages,
        vpn_resilience=not args.no_vpn_resilience, batfish_host=batfish_host, wan_sweep=not args.no_wan_sweep,
    )
    print("[5/5] report")
    return _report(results, Path(args.build_dir))


def cmd_clab(args: argparse.Namespace) -> int:
    """labs/<network>.clab.yml from the netns lab's plan, validated against containerlab's schema."""
    from boothnet.lab.clab import HOST_IMAGE, ROUTER_IMAGE, ClabInvalid, ClabUnsupported, generate

    images: dict[str, str] = {}
    for item in args.image or []:
        platform, sep, image = item.partition("=")
        if not sep or not platform or not image:
            print(f"clab: --image wants PLATFORM=IMAGE, got {item!r}", file=sys.stderr)
            return 2
        images[platform] = image
    try:
        result = generate(
            inventory_path(args),
            Path(args.labs_dir),
            Path(args.build_dir),
            Path(args.schema) if args.schema else None,
            args.vlan_mode,
            args.router_image or ROUTER_IMAGE,
            args.host_image or HOST_IMAGE,
            progress=progress,
            kinds=args.kinds,
            images=images,
        )
    except (FileNotFoundError, ClabUnsupported) as exc:
        print(f"clab: {exc}", file=sys.stderr)
        return 1
    except ClabInvalid as exc:
        print(exc.summary(), file=sys.stderr)
        print("nothing was written", file=sys.stderr)
        return 1
    if result.findings:
        print("\n".join(f"  - {f}" for f in result.findings), file=sys.stderr)
        print("lab configs have findings: nothing was written", file=sys.stderr)
        return 1
    for note in result.notes:
        print(f"clab: limit: {note}", file=sys.stderr)
    progress(
        f"{result.nodes} nodes, {result.links} links, VLAN mode {result.vlan_mode}, kinds {result.kinds}; "
        f"configs {result.config_dir}"
    )
    print(result.path)
    return 0


def register(sub, add) -> None:  # noqa: ANN001 - argparse internals
    up = add("lab-up", cmd_lab_up, "build the network in Linux network namespaces (root)")
    up.add_argument("--vlan-mode", choices=["dot1q", "segment"], help="default: what the kernel supports")
    up.add_argument(
        "--day0",
        action="store_true",
        help="routers boot unconfigured (FRR with a hostname only, empty nftables, no addresses) for a deploy",
    )
    add("lab-down", cmd_lab_down, "remove every namespace, link and process of the lab (root)")
    verify = add("verify", cmd_verify, "offline lint plus Batfish checks (SKIPPED without a service)")
    verify.add_argument("--batfish-host", help="Batfish service (default: $BATFISH_HOST)")
    verify.add_argument("--require-batfish", action="store_true", help="fail when no Batfish service answers")
    check = add("validate-lab", cmd_validate_lab, "isolation, MTU and throughput tests in the running lab (root)")
    check.add_argument("--no-throughput", action="store_true", help="skip iperf3/nuttcp (reported SKIPPED)")
    check.add_argument("--no-vpn-resilience", action="store_true", help=RESILIENCE_HELP)
    check.add_argument("--no-wan-sweep", action="store_true", help=WAN_SWEEP_HELP)
    demo = add("demo", cmd_demo, "lab up, build, verify, validate and report on the embedded lab (root)")
    demo.add_argument("--no-throughput", action="store_true", help="skip iperf3/nuttcp (reported SKIPPED)")
    demo.add_argument("--no-vpn-resilience", action="store_true", help=RESILIENCE_HELP)
    demo.add_argument("--no-wan-sweep", action="store_true", help=WAN_SWEEP_HELP)
    demo.add_argument("--vlan-mode", choices=["dot1q", "segment"], help="default: what the kernel supports")
    clab = add("clab", cmd_clab, "write labs/<network>.clab.yml (containerlab), validated against its schema")
    clab.add_argument("--labs-dir", default="labs", help="where the topology goes (default labs/)")
    clab.add_argument("--schema", help="clab.schema.json (default: ../shared/containerlab/ beside the repo)")
    clab.add_argument("--vlan-mode", choices=["dot1q", "segment"], default="dot1q", help="default dot1q (Docker hosts)")
    clab.add_argument("--router-image", help="default: FRR's image (boothnet.lab.clab.ROUTER_IMAGE)")
    clab.add_argument("--host-image", help="default: one with iperf3 (boothnet.lab.clab.HOST_IMAGE)")
    clab.add_argument(
        "--kinds",
        choices=["vendor", "lab"],
        default="vendor",
        help="vendor (default): each platform's containerlab kind (capabilities.yml: cEOS, IOL, FRR on linux); "
        "lab: every device FRR on linux, as the netns lab (no vendor images needed)",
    )
    clab.add_argument(
        "--image",
        action="append",
        metavar="PLATFORM=IMAGE",
        help="image for a platform's kind, e.g. arista_eos=ceos:4.32.0F (repeatable)",
    )
