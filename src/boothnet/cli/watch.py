"""``boothnet watch``: the show week's light rounds on the running lab (--lab), with history,
alarms, a page and Prometheus metrics; ``--report`` draws the kept history again."""

from __future__ import annotations

import argparse
import json
import os
import sys

from boothnet.cli.common import progress, run_of


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"wants a number of seconds above 0, got {text}")
    return value


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"wants a whole number of rounds, 1 or more, got {text}")
    return int(text)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"wants a TCP port 1-65535, or 0 for none, got {text}")
    return int(text)


def cmd_watch(args: argparse.Namespace) -> int:
    from boothnet.watch.loop import WatchOptions, watch
    from boothnet.watch.page import write_page
    from boothnet.watch.store import Store

    run = run_of(args)
    folder = run.layout.watch
    if args.report:
        db = folder / "watch.sqlite"
        if not db.is_file():
            print(f"boothnet watch --report: no history at {db}: run `boothnet watch -n {run.net.name} --lab` first",
                  file=sys.stderr)
            return 2
        store = Store(db)
        try:
            print(write_page(store, run.net.name, folder / "index.html", int(args.every)).resolve())
        finally:
            store.close()
        return 0
    options = {"every": args.every, "rounds": args.rounds, "on_alarm": args.on_alarm,
               "port": None if args.port == 0 else args.port, "spot_check_s": args.spot_check}
    if args.floor or not args.lab:  # as validate-hw reaches the floor: Ansible's connections and NAPALM
        from boothnet.cli.stages import floor_playbook

        return floor_playbook(args, ["-e", json.dumps({"validate_watch": options})])
    if os.geteuid() != 0:
        sys.exit("boothnet watch --lab: needs root (network namespaces); run it with sudo or as root")
    from boothnet.lab.state import read_state
    from boothnet.validate.access import lab_access

    lab_dir = run.layout.lab.resolve()
    state = read_state(lab_dir)
    if state is None or not state.up:
        print(f"boothnet watch: {run.net.name}'s lab is not up: `boothnet lab-up -n {run.net.name}` (or make demo) "
              "first", file=sys.stderr)
        return 2
    quiet = (lambda _: None) if not args.verbose else progress
    try:
        return watch(run, lab_access(run.net, lab_dir), WatchOptions(**options), lambda text: print(text, flush=True),
                     quiet)
    except OSError as exc:
        if exc.errno == 98:  # EADDRINUSE
            print(f"boothnet watch: 127.0.0.1:{args.port} is taken (another watch?): --port another, or 0 for "
                  "none", file=sys.stderr)
            return 2
        raise


def register(add) -> None:  # argparse internals
    from boothnet.watch.model import DEFAULT_EVERY_S, DEFAULT_PORT

    watch = add("watch", cmd_watch, "show week: a light validation round every --every seconds (convergence, "
                "cabling, endpoints, an isolation sample, MTU, WAN RTT and loss, drift, every cable's counters), "
                "history in build/<network>/watch/, alarms when a check changes state, a page and Prometheus "
                "metrics on 127.0.0.1")
    watch.add_argument("--lab", action="store_true", help="watch the running lab through its namespaces (root); "
                       "without it: the booth's own network as validate-hw reaches it (playbooks/validate_hw.yml)")
    watch.add_argument("--floor", action="store_true", help="with --lab: reach the lab as the floor path does, "
                       "from a controller on its management network only (a rehearsal of the floor's watch)")
    watch.add_argument("--every", type=_positive, default=DEFAULT_EVERY_S,
                       help=f"seconds from one round's start to the next's (default {DEFAULT_EVERY_S})")
    watch.add_argument("--rounds", type=_count, help="stop after this many rounds (default: until Ctrl-C or SIGTERM)")
    watch.add_argument("--on-alarm", metavar="CMD", help="shell command run for each alarm and clear, the event as "
                       "JSON on its stdin (to page the crew)")
    watch.add_argument("--port", type=_port, default=DEFAULT_PORT,
                       help=f"serve the page and /metrics on 127.0.0.1:PORT (default {DEFAULT_PORT}; 0: none)")
    watch.add_argument("--spot-check", type=lambda text: int(_positive(text)), metavar="SECONDS",
                       help="each round, one throughput measurement "
                       "of SECONDS on the next declared path, tool and direction (off by default: it loads the "
                       "path it measures, up to its speed)")
    watch.add_argument("--report", action="store_true", help="draw the kept history's page again and print its path")
    watch.add_argument("-v", "--verbose", action="store_true", help="each round's progress lines too (--lab)")
    watch.add_argument("ansible_args", nargs=argparse.REMAINDER, metavar="-- ANSIBLE-ARGS",
                       help="on the floor: passed to ansible-playbook, e.g. -- --ask-vault-pass")
