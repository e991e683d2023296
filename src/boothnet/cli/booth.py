"""Booth-day commands: the wiring diagram and the cabling sheet, from the intent alone."""

from __future__ import annotations

import argparse
from pathlib import Path

from boothnet.cli.common import progress, run_of
from boothnet.layout import REPO


def cmd_graph(args: argparse.Namespace) -> int:
    from boothnet.booth.diagram import draw

    run = run_of(args)
    progress(f"drawing {run.net.name} with graphviz (dot)")
    collapse = {"auto": None, "each": False, "vlan": True}[args.hosts]
    diagram = draw(run.net, run.layout.graph, collapse=collapse)
    hosts = "hosts as per-VLAN counts" if diagram.collapsed else "every host"
    print(f"{run.net.name}: {diagram.nodes} nodes, {diagram.edges} edges ({hosts})")
    for path in (diagram.svg, diagram.png, diagram.dot):
        print(path)
    return 0


def cmd_cabling(args: argparse.Namespace) -> int:
    from boothnet.booth.cables import cable_plan
    from boothnet.booth.sheet import write_cabling

    run = run_of(args)
    paths = write_cabling(run.net, run.layout.cabling)
    print(f"{run.net.name}: {len(cable_plan(run.net))} cables, {len(run.net.devices)} device pages")
    for path in paths[:2]:
        print(path)
    return 0


def cmd_cabling_check(args: argparse.Namespace) -> int:
    """playbooks/cabling_check.yml on the booth's devices (or the lab's stand-ins), then the rows."""
    import json
    import subprocess
    import sys

    from boothnet.booth.lldp import CablingRow, merge_rows

    run = run_of(args)
    layout = run.layout
    inventory = layout.lab_inventory if args.lab else run.inventory
    if args.lab and not inventory.is_file():
        print(f"boothnet cabling-check: no lab inventory at {inventory}: `boothnet lab-up -n {run.net.name}` first",
              file=sys.stderr)
        return 2
    for old in layout.cabling_check.glob("*.json"):
        old.unlink()
    progress(f"reading LLDP neighbours of the devices in {inventory} (read-only)")
    playbook = Path(sys.executable).parent / "ansible-playbook"
    done = subprocess.run([str(playbook), "-i", str(inventory.resolve()), str(REPO / "playbooks" / "cabling_check.yml"),
                           "-e", f"boothnet_build_dir={layout.build_root.resolve()}"], cwd=REPO,
                          capture_output=True, text=True, check=False)
    rows = merge_rows([CablingRow.model_validate(row) for f in sorted(layout.cabling_check.glob("*.json"))
                       for row in json.loads(f.read_text())])
    for row in rows:
        print(f"{row.verdict:<5} {row.cable}" + (f": {row.cause}" if row.cause else ""))
    unread = [line.strip() for line in done.stdout.splitlines() if "cannot read LLDP" in line]
    for line in unread:
        print(line, file=sys.stderr)
    bad = sum(row.verdict != "PASS" for row in rows)
    print(f"cabling: {len(rows) - bad} of {len(rows)} cables where the intent says; rows in {layout.cabling_check}")
    if done.returncode != 0 and not bad and not unread:
        print(done.stdout[-3000:], file=sys.stderr)
    return 0 if done.returncode == 0 else 1


def cmd_remediation(args: argparse.Namespace) -> int:
    """hier_config's remediation and rollback of each switch, from a running config, offline."""
    import sys

    from boothnet.deploy.remediation import NoRemediation, preview
    from boothnet.platforms import platforms

    run = run_of(args)
    net, layout = run.net, run.layout
    if args.device and args.device not in net.devices:
        print(f"boothnet remediation: --device {args.device!r}: not a device of {net.name} (devices: "
              f"{', '.join(sorted(net.devices))})", file=sys.stderr)
        return 2
    if args.running and not args.device:
        print("boothnet remediation: --running needs --device (whose running config it is)", file=sys.stderr)
        return 2
    devices = [args.device] if args.device else [d for d, dev in sorted(net.devices.items())
                                                 if platforms()[dev.platform].hier_config]
    problems = []
    for device in devices:
        platform = platforms()[net.devices[device].platform]
        try:
            found = preview(layout, device, platform, Path(args.running) if args.running else None)
        except NoRemediation as exc:
            problems.append(str(exc))
            continue
        paths = found.write(layout.remediation)
        print(f"== {device} ({platform.name}): from {found.running} to {found.candidate}")
        print(f"-- remediation ({len(found.remediation.splitlines())} lines, {paths[0]}):")
        print(found.remediation or "(nothing to change)")
        print(f"-- rollback ({len(found.rollback.splitlines())} lines, {paths[1]}):")
        print(found.rollback or "(nothing to change)")
    for problem in problems:
        print(f"boothnet remediation: {problem}", file=sys.stderr)
    return 1 if problems else 0


def register(add) -> None:  # argparse internals
    graph = add("graph", cmd_graph, "draw the wiring diagram (SVG, PNG, DOT) into build/<network>/graph")
    graph.add_argument("--hosts", choices=["auto", "each", "vlan"], default="auto",
                       help="each: one node per host; vlan: one node per switch and VLAN with a count; "
                       "auto (default): vlan above 40 hosts")
    check = add("cabling-check", cmd_cabling_check, "read-only: each device's LLDP neighbours (NAPALM "
                "get_lldp_neighbors) against the intent's cables; rows in build/<network>/cabling-check")
    check.add_argument("--lab", action="store_true", help="the lab's stand-ins (build/<network>/lab/inventory.yml) "
                       "instead of the booth's devices (the intent's inventory)")
    rem = add("remediation", cmd_remediation, "offline: the commands that would change each IOS/EOS switch from a "
              "running config to the rendered one, and back (hier_config); into build/<network>/remediation")
    rem.add_argument("--device", help="one device (default: every device with a hier_config platform)")
    rem.add_argument("--running", help="its running config, e.g. a saved `show running-config` (default: the "
                     "device's newest backup under build/<network>/backups/)")
    add("cabling", cmd_cabling, "write the cabling sheet (a printable page per device, cabling.csv) into "
        "build/<network>/cabling")
