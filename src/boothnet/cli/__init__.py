"""`boothnet` command line: each pipeline stage as a subcommand, the same code the playbooks run."""

from __future__ import annotations

import argparse
import errno
import os
import sys
from pathlib import Path

from boothnet.cli import booth, review, showfloor, stages, watch
from boothnet.cli.common import inventory_path, run_of
from boothnet.cli.common import progress as _progress
from boothnet.errors import IntentInvalid, RenderError
from boothnet.locks import Busy, run_locks


def cmd_validate(args: argparse.Namespace) -> int:
    net = run_of(args).net
    for warning in net.warnings:
        print(f"[WARNING]: intent: {warning}", file=sys.stderr)
    print(
        f"{net.name}: intent valid ({len(net.devices)} devices, {len(net.vlans)} VLANs, {len(net.endpoints)} endpoints)"
    )
    return 0


def cmd_intent_reference(_args: argparse.Namespace) -> int:
    from boothnet.intent.reference import intent_reference

    print(intent_reference())
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from boothnet.render.build import build

    result = build(run_of(args), Path(args.build_dir), run_tools=not args.no_tools, progress=_progress)
    for warning in result.warnings:
        print(f"[WARNING]: intent: {warning}", file=sys.stderr)
    print(result.summary_table())
    print(f"configs in {result.out_dir}")
    return 0 if result.ok else 1


def cmd_batfish(args: argparse.Namespace) -> int:
    from boothnet.verify.batfish import local

    if args.action == "up":
        _progress("Batfish: finding or starting a service")
        try:
            host, started = local.up(timeout=args.timeout)
        except local.BatfishStartError as exc:
            print(f"boothnet batfish up: {exc}", file=sys.stderr)
            return 4
        how = f"started ({started.kind}, log {started.log})" if started else "already running"
        print(f"Batfish at {host}: {how}{local.listening_note()}; `boothnet batfish down` stops what "
              "boothnet started")
        return 0
    if args.action == "down":
        print(local.stop())
        return 0
    answering, line = local.status()
    print(line)
    return 0 if answering else 1


def cmd_doctor_floor(args: argparse.Namespace) -> int:
    """Each endpoint of the intent's inventory reached as Ansible reaches it, and asked for the tools
    validate-hw runs there; what is missing is named with its Debian package."""
    from boothnet.validate.access import TOOLS, Access, missing_line
    from boothnet.validate.floor.ansible_runner import AnsibleRunner, inventory_connections
    from boothnet.validate.floor.reach import ask_tools

    sources = [str(inventory_path(args))]
    if args.lab:
        sources.append(str(Path(args.build_dir) / run_of(args).net.name / "lab" / "inventory.yml"))
    hosts = inventory_connections(sources, "endpoints")
    if not hosts:
        print(f"doctor: no host in group endpoints of {', '.join(sources)}", file=sys.stderr)
        return 2
    runner = AnsibleRunner(hosts)
    access = Access("floor", runner, str)
    _progress(f"asking {len(hosts)} endpoints over their connections for {', '.join(TOOLS)}")
    bad, packages = 0, set()
    for host in sorted(hosts):
        unreachable, missing = ask_tools(access, host)
        if unreachable:
            print(f"FAIL  {host}: {unreachable}")
        elif missing:
            print(f"FAIL  {missing_line(host, missing)}")
            packages |= {TOOLS[t] for t in missing}
        else:
            print(f"ok    {host}: every tool validate-hw runs")
        bad += bool(unreachable or missing)
    if not bad:
        print(f"doctor: all {len(hosts)} endpoints reached, nothing missing")
        return 0
    fix = f"; on those hosts `apt-get install {' '.join(sorted(packages))}`" if packages else ""
    print(f"doctor: {bad} of {len(hosts)} endpoints not ready{fix}", file=sys.stderr)
    return 1


def cmd_doctor(args: argparse.Namespace) -> int:
    from boothnet.lab.doctor import missing_packages, run_doctor

    if args.floor:
        return cmd_doctor_floor(args)

    checks = run_doctor(progress=_progress)
    for check in checks:
        print(check.line())
    failed = [c for c in checks if not c.ok and c.required]
    if not failed:
        print(f"doctor: all {len(checks)} checks passed")
        return 0
    packages = missing_packages(checks)
    fix = f"; `apt-get install {' '.join(packages)}` (or `make setup`)" if packages else ""
    print(f"doctor: {len(failed)} of {len(checks)} checks failed{fix}", file=sys.stderr)
    return 1


WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}
# Commands that write build/<network>/ take its lock; those that touch the lab also take the lab's.
LOCKED = {"build": False, "verify": False, "acl-review": False, "clab": False,
          "lab-up": True, "lab-down": True, "validate-lab": True, "demo": True}


def _network_to_lock(args: argparse.Namespace) -> str:
    if args.command == "lab-down" and not args.inventory:
        return str(args.network)  # a lab comes down whatever became of its inventory
    try:
        return run_of(args).net.name
    except IntentInvalid:
        if args.command == "acl-review":
            return str(args.network)  # it reviews the intent at git refs: the review names what is invalid
        raise


def _locked(args: argparse.Namespace) -> int:
    if args.command not in LOCKED:
        return int(args.func(args))
    network = _network_to_lock(args)
    with run_locks(Path(args.build_dir), network, lab=LOCKED[args.command], progress=_progress):
        return int(args.func(args))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="boothnet", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, func, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("-n", "--network", default="sc-booth", help="inventory name under inventories/")
        p.add_argument("-i", "--inventory", help="inventory folder (default inventories/<network>)")
        p.add_argument("--build-dir", default="build", help="where artifacts go (default build/)")
        p.set_defaults(func=func)
        return p

    add("validate", cmd_validate, "validate the intent and report every error")
    build = add("build", cmd_build, "validate, derive, render and lint configs into build/<network>/configs")
    build.add_argument("--no-tools", action="store_true", help="skip the vtysh/nft dry runs")
    sub.add_parser("intent-reference", help="print every key of the intent, by file (docs/intent-reference.md)",
                   description="every key of the intent with its type, allowed values, default and limits, "
                   "generated from the model, as docs/intent-reference.md prints it").set_defaults(
                       func=cmd_intent_reference)
    doctor = sub.add_parser("doctor", help="check every program, kernel feature and daemon the lab needs",
                            description="check, for real and in a few seconds, what the lab, the tests and "
                            "the demo need (FRR, nft, iperf3, nuttcp, tcpdump, sshd, charon with the lab's "
                            "plugins in a scratch namespace, veth/bridge/TUN/802.1Q, Java for BATFISH_JAR); "
                            "names the Debian package for each missing part (root for the namespace checks)")
    doctor.add_argument("--floor", action="store_true", help="instead: reach every endpoint of the intent's "
                        "inventory as Ansible does (-n/-i) and name the tools validate-hw needs that it lacks")
    doctor.add_argument("--lab", action="store_true", help="with --floor: the running lab's hosts, at their "
                        "management addresses")
    doctor.add_argument("-n", "--network", default="sc-booth", help="with --floor: inventory name under inventories/")
    doctor.add_argument("-i", "--inventory", help="with --floor: inventory folder (default inventories/<network>)")
    doctor.add_argument("--build-dir", default="build", help="with --floor --lab: where the lab's state is")
    doctor.set_defaults(func=cmd_doctor)
    bf = sub.add_parser("batfish", help="start, stop or show the Batfish service",
                        description="start (up), stop (down) or show (status) a Batfish service: "
                        "BATFISH_HOST when it answers, else BATFISH_JAR run with java, else Docker's "
                        "batfish/allinone; state under build/batfish/")
    bf.add_argument("action", choices=["up", "down", "status"])
    bf.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for it to answer")
    bf.set_defaults(func=cmd_batfish)
    stages.register(sub, add)
    showfloor.register(sub)
    review.register(sub, add)
    booth.register(add)
    watch.register(add)

    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _locked(args)
    except IntentInvalid as exc:
        print(exc.summary(), file=sys.stderr)
        print("nothing was written", file=sys.stderr)
        return 2
    except RenderError as exc:
        print(f"render error: {exc}", file=sys.stderr)
        print("nothing was written", file=sys.stderr)
        return 3
    except Busy as exc:
        print(f"boothnet {args.command}: {exc}", file=sys.stderr)
        return 75
    except KeyboardInterrupt:
        print("boothnet: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback for the user; BOOTHNET_DEBUG=1 shows it
        if isinstance(exc, OSError) and exc.errno in WRITE_ERRORS:  # a full disk is no bug
            print(f"boothnet {args.command}: cannot write {exc.filename or 'a file'}: {exc.strerror}; what was "
                  "there before is left as it was", file=sys.stderr)
            return 74
        if os.environ.get("BOOTHNET_DEBUG"):
            raise
        print(f"boothnet {args.command}: internal error: {type(exc).__name__}: {exc}\n"
              "This is a bug in boothnet: rerun with BOOTHNET_DEBUG=1 for the traceback and report it.",
              file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
