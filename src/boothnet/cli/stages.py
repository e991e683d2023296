"""Subcommands for the lab and later stages, kept apart from the build stage's CLI."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from boothnet.cli.common import inventory_path, progress, run_of
from boothnet.layout import Layout


def _need_root(what: str) -> None:
    if os.geteuid() != 0:
        sys.exit(f"boothnet {what}: needs root (network namespaces); run it with sudo or as root")


def _network_name(args: argparse.Namespace) -> str:
    """The network's name from the loaded intent (network.yml), not --network: that only names
    the default inventory folder and stays sc-booth when -i PATH picks another intent."""
    return run_of(args).net.name


def cmd_lab_up(args: argparse.Namespace) -> int:
    from boothnet.pipeline import Stopped, bring_up_lab

    _need_root("lab-up")
    run = run_of(args)
    if args.configs:
        if not Path(args.configs).is_dir():
            print(f"boothnet lab-up: --configs {args.configs}: not a folder (it holds <device>.cfg files)",
                  file=sys.stderr)
            return 2
        run.vendor_configs = Path(args.configs)
    try:
        bring_up_lab(run, args.vlan_mode, "day0" if args.day0 else "full", progress, print)
    except Stopped as stop:
        print("\n".join(stop.lines), file=sys.stderr)
        return 1
    return 0


def cmd_lab_down(args: argparse.Namespace) -> int:
    from boothnet.lab.runner import lab_down

    _need_root("lab-down")
    # without -i no intent is needed (a lab can come down whatever became of its inventory)
    network = _network_name(args) if args.inventory else args.network
    state_dir = Layout(Path(args.build_dir), network).lab
    down = lab_down(network, state_dir, progress=progress)
    print(f"lab {network}: down")
    print(json.dumps({"removed": down.removed}, default=str))
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
    from boothnet.validate.profile import FULL
    from boothnet.validate.stage import run_validate

    _need_root("validate-lab")
    profile = FULL.edit(throughput=not args.no_throughput, vpn_resilience=not args.no_vpn_resilience,
                        wan_sweep=not args.no_wan_sweep)
    results = run_validate(run_of(args), profile, progress=progress)
    return _report(run_of(args), results)


def floor_playbook(args: argparse.Namespace, extra_vars: list[str]) -> int:
    """playbooks/validate_hw.yml on the booth's own network (the intent's inventory), or with
    args.lab on the running lab, from a controller namespace attached only to its management
    bridge; its exit status."""
    import subprocess
    import tempfile
    from contextlib import ExitStack, nullcontext

    from boothnet.lab.controller import LabNotUp, localhost_relay, management_controller
    from boothnet.layout import REPO
    from boothnet.verify.batfish.service import BATFISH_PORT

    run = run_of(args)
    layout = run.layout
    inventories = [run.inventory.resolve()]
    if args.lab:
        _need_root(f"{args.command} --lab")
        if not layout.lab_inventory.is_file():
            print(f"boothnet {args.command}: no lab inventory at {layout.lab_inventory}: `boothnet lab-up -n "
                  f"{run.net.name}` first", file=sys.stderr)
            return 2
        inventories.append(layout.lab_inventory.resolve())  # the lab's management addresses and keys
    argv = [str(Path(sys.executable).parent / "ansible-playbook"), *(a for i in inventories for a in ("-i", str(i))),
            str(REPO / "playbooks" / "validate_hw.yml"), "-e", f"boothnet_build_dir={layout.build_root.resolve()}",
            *extra_vars, *args.ansible_args[args.ansible_args[:1] == ["--"]:]]
    try:
        with management_controller(run.net.name, layout.lab.resolve()) if args.lab else nullcontext() as ctl, \
                tempfile.TemporaryDirectory(prefix="boothnet-cp-") as control_dir, ExitStack() as stack:
            env = dict(os.environ)
            if ctl is not None:
                ns, address = ctl
                progress(f"controller {ns} at {address}: it reaches the lab through its management network only; "
                         f"this machine's Batfish service on its localhost, as on a laptop")
                stack.enter_context(localhost_relay(ns, [BATFISH_PORT, BATFISH_PORT + 1]))
                argv = ["ip", "netns", "exec", ns, *argv]
                env["ANSIBLE_SSH_CONTROL_PATH_DIR"] = control_dir  # no ssh master of another namespace is reused
            progress(f"{run.net.name}'s deployed network: {' '.join(argv)}")
            return subprocess.run(argv, cwd=REPO, env=env, check=False).returncode
    except LabNotUp as exc:
        print(f"boothnet {args.command}: {exc}", file=sys.stderr)
        return 2


def cmd_validate_hw(args: argparse.Namespace) -> int:
    """playbooks/validate_hw.yml (floor_playbook), then its report's first screen."""
    import time

    from boothnet.report.publish import rerender

    layout = run_of(args).layout
    started = time.time()
    returncode = floor_playbook(args, [*(["-e", "validate_throughput=false"] if args.no_throughput else []),
                                       *(["-e", "validate_wan_sweep=false"] if args.no_wan_sweep else [])])
    kept = sorted(layout.runs.glob("*")) if layout.runs.is_dir() else []
    if not kept or kept[-1].stat().st_mtime < started:
        print(f"boothnet validate-hw: no report written (ansible-playbook exit {returncode}); see above",
              file=sys.stderr)
        return returncode or 1
    return print_published(rerender(run_of(args), None, None))


def _report(run, results) -> int:  # report types import lazily
    """Write the report under build/<network>/report, compared with the last kept run, keep this
    run under runs/, and print its first screen; exit status 0 only for a full PASS (the
    comparison informs, it does not gate)."""
    from boothnet.report.publish import publish

    return print_published(publish(run, results))


def cmd_report(args: argparse.Namespace) -> int:
    """The report of a kept run again, compared with another kept run."""
    from boothnet.report.publish import rerender

    try:
        published = rerender(run_of(args), args.kept_run, args.compare)
    except FileNotFoundError as exc:
        print(f"boothnet report: {exc}", file=sys.stderr)
        return 2
    return print_published(published)


def print_published(published) -> int:  # a report.publish.Published
    summary = published.summary
    print(summary.headline)
    for failure in summary.failures:
        print(f"  FAIL {failure.section}: {failure.subject}: {failure.message}")
        if failure.action:
            print(f"       do: {failure.action}")
    if published.comparison is not None:
        for line in published.comparison.lines():
            print(f"  {line}")
    print(f"report: {published.paths.html.resolve()}")
    if published.kept:
        print(f"run kept: {published.kept}")
    return 0 if summary.overall == "PASS" else 1


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
    from boothnet.pipeline import DemoOptions, Stopped, run_demo

    options = DemoOptions(vlan_mode=args.vlan_mode, batfish_host=batfish_host, throughput=not args.no_throughput,
                          vpn_resilience=not args.no_vpn_resilience, wan_sweep=not args.no_wan_sweep)
    try:
        results = run_demo(run_of(args), options, progress, announce=lambda line: print(line, flush=True))
    except Stopped as stop:
        print("\n".join(stop.lines), file=sys.stderr)
        if stop.results is not None:
            _report(run_of(args), stop.results)
        return 1
    print("[5/5] report")
    return _report(run_of(args), results)


def cmd_clab(args: argparse.Namespace) -> int:
    """labs/<network>.clab.yml from the netns lab's plan, validated against containerlab's schema."""
    from boothnet.lab.clab import HOST_IMAGE, ROUTER_IMAGE, ClabInvalid, ClabUnsupported, Images, generate

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
            Images(args.router_image or ROUTER_IMAGE, args.host_image or HOST_IMAGE, images),
            progress=progress,
            kinds=args.kinds,
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


def register(sub, add) -> None:  # argparse internals
    up = add("lab-up", cmd_lab_up, "build the network in Linux network namespaces (root)")
    up.add_argument("--vlan-mode", choices=["dot1q", "segment"], help="default: what the kernel supports")
    up.add_argument(
        "--day0",
        action="store_true",
        help="routers boot unconfigured (FRR with a hostname only, empty nftables, no addresses) for a deploy",
    )
    up.add_argument("--configs", metavar="DIR",
                    help="IOS/EOS configs edited by hand (DIR/<device>.cfg): each device's stand-in runs its "
                         "file as the device reads it (default: the configs rendered from the intent)")
    add("lab-down", cmd_lab_down, "remove every namespace, link and process of the lab (root)")
    verify = add("verify", cmd_verify, "offline lint plus Batfish checks (SKIPPED without a service)")
    verify.add_argument("--batfish-host", help="Batfish service (default: $BATFISH_HOST)")
    verify.add_argument("--require-batfish", action="store_true", help="fail when no Batfish service answers")
    check = add("validate-lab", cmd_validate_lab, "isolation, MTU and throughput tests in the running lab (root)")
    check.add_argument("--no-throughput", action="store_true", help="skip iperf3/nuttcp (reported SKIPPED)")
    check.add_argument("--no-vpn-resilience", action="store_true", help=RESILIENCE_HELP)
    check.add_argument("--no-wan-sweep", action="store_true", help=WAN_SWEEP_HELP)
    hw = add("validate-hw", cmd_validate_hw, "validate the booth's own network after deploy-hw (playbooks/"
             "validate_hw.yml: endpoints over SSH as Ansible reaches them, devices over NAPALM; no root)")
    hw.add_argument("--lab", action="store_true", help="the running lab instead, reached only through its "
                    "management network from a controller namespace on it (root)")
    hw.add_argument("--no-throughput", action="store_true", help="skip iperf3/nuttcp (reported SKIPPED)")
    hw.add_argument("--no-wan-sweep", action="store_true", help=WAN_SWEEP_HELP)
    hw.add_argument("ansible_args", nargs=argparse.REMAINDER, metavar="-- ANSIBLE-ARGS",
                    help="passed to ansible-playbook, e.g. -- --ask-vault-pass -f 50")
    report = add("report", cmd_report, "write the report of a kept validate run again (build/<network>/runs/), "
                 "compared with an earlier one: checks newly failing or passing, throughput and RTT beyond "
                 "their noise, configs changed; the exit status is the run's own verdict")
    report.add_argument("--run", dest="kept_run",
                        help="the kept run to report (folder name under runs/; default the latest)")
    report.add_argument("--compare", metavar="PREVIOUS", help="the kept run to compare with (folder name or path; "
                        "default the one before --run)")
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
