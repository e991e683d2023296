"""Booth-day commands: the wiring diagram and the cabling sheet, from the intent alone."""

from __future__ import annotations

import argparse

from boothnet.cli.common import progress, run_of


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


def register(add) -> None:  # noqa: ANN001 - argparse internals
    graph = add("graph", cmd_graph, "draw the wiring diagram (SVG, PNG, DOT) into build/<network>/graph")
    graph.add_argument("--hosts", choices=["auto", "each", "vlan"], default="auto",
                       help="each: one node per host; vlan: one node per switch and VLAN with a count; "
                       "auto (default): vlan above 40 hosts")
    add("cabling", cmd_cabling, "write the cabling sheet (a printable page per device, cabling.csv) into "
        "build/<network>/cabling")
