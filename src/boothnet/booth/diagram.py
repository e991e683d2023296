"""The wiring diagram: the intent's devices grouped by role, every cable labelled with its label,
both ports, speed and MTU, coloured by the zone it carries; endpoints hang off their switch
port per VLAN. Cables a validation found at fault are drawn red, and the legend says why.

Graphviz (``dot``) lays it out; SVG for the report and the screen, PNG for print.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import graphviz

from boothnet.booth.cables import Cable, cable_plan
from boothnet.intent.model import Network

ROLE_ORDER = ("show_network", "router", "vpn_gateway", "firewall", "core_switch", "access_switch",
              "research_switch")
ZONE_COLOURS = {"production": "#1565c0", "research": "#2e7d32", "secure": "#6a1b9a", "outside": "#616161"}
FAULT = "#d50000"
TRUNK, ROUTED = "#37474f", "#455a64"
# above this many endpoints, each (switch, VLAN) group of hosts becomes one node with a count
HOSTS_SHOWN_ONE_BY_ONE = 40
LEGEND_FAULTS = 12


@dataclass(frozen=True)
class Diagram:
    dot: Path
    svg: Path
    png: Path
    nodes: int
    edges: int
    collapsed: bool


def _speed(mbps: int) -> str:
    return f"{mbps / 1000:g}G" if mbps >= 1000 else f"{mbps}M"


def _span(names: list[str]) -> str:
    """``Et1, Et2, Et3`` -> ``Et1-3`` (``C07 .. C10`` -> ``C07-10``) when they run in sequence, else the
    first and a count: ``Et1 +2``."""
    head, tail = names[0].rstrip("0123456789"), names[-1].rstrip("0123456789")
    first, last = names[0][len(head):], names[-1][len(tail):]
    if head == tail and first.isdigit() and last.isdigit() and int(last) - int(first) == len(names) - 1:
        return f"{names[0]}-{last}"
    return f"{names[0]} +{len(names) - 1}"


def _zone_of(net: Network, cable: Cable) -> str | None:
    zones = {net.vlan(vid).zone for vid, _ in cable.vlans}
    return zones.pop() if len(zones) == 1 else None


def _colour(net: Network, cable: Cable) -> str:
    zone = _zone_of(net, cable)
    if cable.mode == "trunk" and zone is None:
        return TRUNK
    return ZONE_COLOURS.get(zone or "", ROUTED)


def _legend(zones: list[str], faults: Mapping[str, list[str]]) -> str:
    e = html.escape
    rows = [f'<tr><td><font color="{ZONE_COLOURS[z]}"><b>━━</b></font></td><td align="left">{e(z)}</td></tr>'
            for z in zones]
    rows += [f'<tr><td><font color="{TRUNK}"><b>━━</b></font></td><td align="left">trunk (several zones)</td></tr>',
             f'<tr><td><font color="{ROUTED}">┄┄</font></td><td align="left">routed; dashed: WAN hop</td></tr>']
    if faults:
        rows.append(f'<tr><td><font color="{FAULT}"><b>━━</b></font></td>'
                    f'<td align="left"><font color="{FAULT}"><b>failed a check:</b></font></td></tr>')
        shown = list(faults.items())[:LEGEND_FAULTS]
        rows += [f'<tr><td align="right"><font color="{FAULT}">{e(label)}</font></td>'
                 f'<td align="left">{e("; ".join(reasons)[:110])}</td></tr>' for label, reasons in shown]
        if len(faults) > LEGEND_FAULTS:
            rows.append(f'<tr><td></td><td align="left">and {len(faults) - LEGEND_FAULTS} more cables '
                        "(see the report)</td></tr>")
    return f'<<table border="0" cellborder="0" cellspacing="2"><tr><td colspan="2"><b>legend</b></td></tr>' \
           f'{"".join(rows)}</table>>'


def diagram_source(net: Network, faults: Mapping[str, list[str]] | None = None,
                   collapse: bool | None = None) -> tuple[graphviz.Graph, int, int, bool]:
    """The diagram as graphviz source, its node and edge counts (hosts and devices, cables) and
    whether hosts were collapsed. ``faults``: cable label -> why it is drawn red.
    ``collapse``: hosts as per-VLAN counts (default: when there are more than 40)."""
    faults = faults or {}
    cables = cable_plan(net)
    if collapse is None:
        collapse = len(net.endpoints) > HOSTS_SHOWN_ONE_BY_ONE
    g = graphviz.Graph(net.name, engine="dot")
    g.attr(rankdir="LR", fontname="Helvetica", fontsize="12", nodesep="0.15", ranksep="1.1",
           label=f"{net.name}: {len(net.devices)} devices, {len(net.endpoints)} endpoints, {len(cables)} cables",
           labelloc="t")
    g.attr("node", fontname="Helvetica", fontsize="10", style="filled", fillcolor="white")
    g.attr("edge", fontname="Helvetica", fontsize="8", labelfontsize="8")
    roles = sorted({d.role for d in net.devices.values()}, key=lambda r: (ROLE_ORDER.index(r), r))
    for role in roles:
        with g.subgraph(name=f"cluster_{role}") as c:
            c.attr(label=role.replace("_", " "), style="rounded,dashed", color="#9e9e9e", fontcolor="#616161")
            for name, device in sorted(net.devices.items()):
                if device.role == role:
                    c.node(name, f"{name}\n{device.platform}", shape="box", style="rounded,filled,bold",
                           fillcolor="#eceff1")
    edges = 0
    for cable in (c for c in cables if c.kind == "link"):
        bad = cable.label in faults
        g.edge(cable.a.device, cable.b.device,
               label=f"{'✗ ' if bad else ''}{cable.label}\n{_speed(cable.speed)} · MTU {cable.mtu}",
               taillabel=cable.a.short, headlabel=cable.b.short,
               color=FAULT if bad else _colour(net, cable), penwidth="3" if bad else "1.6",
               fontcolor=FAULT if bad else "black", style="dashed" if cable.wan else "solid")
        edges += 1
    groups: dict[tuple[str, int], list[Cable]] = defaultdict(list)
    for cable in (c for c in cables if c.kind == "endpoint"):
        groups[(cable.a.device, cable.vlans[0][0]) if collapse else (cable.b.device, 0)].append(cable)
    for (_, vid), members in groups.items():
        vlan = net.vlan(members[0].vlans[0][0])
        zone_colour = ZONE_COLOURS[vlan.zone]
        bad_members = [c for c in members if c.label in faults]
        node = f"hosts_{members[0].a.device}_{vid}" if collapse else members[0].b.device
        names = ", ".join(c.b.device for c in members[:4]) + (" ..." if len(members) > 4 else "")
        text = (f"{vlan.name} (VLAN {vlan.id})\n{len(members)} host{'s' * (len(members) > 1)}: {names}"
                if collapse else f"{members[0].b.device}\n{members[0].addresses[0]}")
        g.node(node, text, shape="ellipse", fontsize="9", color=FAULT if bad_members else zone_colour,
               fillcolor="#ffebee" if bad_members else "white", penwidth="2.5" if bad_members else "1")
        ports = members[0].a.short if len(members) == 1 else _span([c.a.short for c in members])
        labels = members[0].label if len(members) == 1 else _span([c.label for c in members])
        g.edge(members[0].a.device, node,
               label=f"{'✗ ' if bad_members else ''}{labels} {ports}\n{_speed(members[0].speed)} · "
                     f"MTU {members[0].mtu}",
               color=FAULT if bad_members else zone_colour, penwidth="3" if bad_members else "1",
               fontcolor=FAULT if bad_members else "black")
        edges += 1
    zones = [z for z in ZONE_COLOURS if any(v.zone == z for v in net.vlans)]
    g.node("legend", _legend(zones, faults), shape="plaintext", fillcolor="white")
    return g, len(net.devices) + len(groups), edges, collapse


def draw(net: Network, out_dir: Path, faults: Mapping[str, list[str]] | None = None,
         collapse: bool | None = None) -> Diagram:
    """Write ``<network>.dot``, ``.svg`` and ``.png`` into ``out_dir``."""
    g, nodes, edges, collapsed = diagram_source(net, faults, collapse)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / net.name
    dot, svg, png = base.with_suffix(".dot"), base.with_suffix(".svg"), base.with_suffix(".png")
    dot.write_text(g.source)
    svg.write_bytes(g.pipe(format="svg"))
    png.write_bytes(g.pipe(format="png"))
    return Diagram(dot, svg, png, nodes, edges, collapsed)
