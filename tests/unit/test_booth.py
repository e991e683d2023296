"""Booth day from the intent alone: cable labels, the wiring diagram, the cabling sheet."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path

import yaml

from boothnet.booth.cables import cable_plan
from boothnet.booth.diagram import FAULT, diagram_source, draw
from boothnet.booth.lldp import CablingRow, merge_rows
from boothnet.booth.sheet import cables_csv, device_page, write_cabling
from boothnet.intent import load_network
from tests.helpers import INVENTORIES

SC_BOOTH = load_network(INVENTORIES / "sc-booth")


def test_labels_carry_both_ends_with_the_switches_short_port_names() -> None:
    texts = [c.text for c in cable_plan(SC_BOOTH)]
    assert "C05 core1 Te1/1/1 <-> rsw1 Et49" in texts
    assert "C06 hgw1 eth1 <-> show1 eth3" in texts  # Linux names stay as they are
    assert len(texts) == len(SC_BOOTH.links) + len(SC_BOOTH.endpoints) == 64


def test_labels_do_not_move_when_the_inventory_lists_links_in_another_order(tmp_path: Path) -> None:
    copy = tmp_path / "sc-booth"
    shutil.copytree(INVENTORIES / "sc-booth", copy)
    links_file = copy / "group_vars" / "all" / "links.yml"
    data = yaml.safe_load(links_file.read_text())
    data["links"].reverse()
    links_file.write_text(yaml.safe_dump(data))
    reordered = load_network(copy)
    assert [c.text for c in cable_plan(reordered)] == [c.text for c in cable_plan(SC_BOOTH)]


def test_the_sheet_lists_every_cable_once_and_each_port_in_use_on_its_device() -> None:
    cables = cable_plan(SC_BOOTH)
    rows = list(csv.DictReader(io.StringIO(cables_csv(cables))))
    assert len(rows) == 64 and len({r["label"] for r in rows}) == 64
    trunk = next(r for r in rows if r["label"] == "C05")
    assert trunk["mode"] == "trunk" and trunk["vlans"].startswith("110:research-01 111:research-02")
    assert (trunk["mtu"], trunk["speed_mbps"]) == ("9000", "10000")
    page = device_page(SC_BOOTH, "core1", cables)
    assert "TenGigabitEthernet1/1/1" in page and "rsw1 Ethernet49" in page and "host booth1" in page
    assert "11 of 50 ports cabled" in page and "not cabled (39)" in page


def test_the_diagram_collapses_hosts_per_vlan_and_draws_a_failed_cable_red() -> None:
    graph, nodes, edges, collapsed = diagram_source(SC_BOOTH, {"C05": ["mtu: the path shrinks to 1500"]})
    assert collapsed and nodes == 6 + 23 and edges == len(SC_BOOTH.links) + 23  # 23 (switch, VLAN) host groups
    trunk = next(line for line in graph.body if "core1 -- rsw1" in line)
    assert f'color="{FAULT}"' in trunk and "✗ C05" in trunk
    assert "mtu: the path shrinks to 1500" in next(line for line in graph.body if line.lstrip().startswith("legend"))
    _, nodes, _, collapsed = diagram_source(SC_BOOTH, collapse=False)
    assert not collapsed and nodes == 6 + 58


def test_draw_writes_an_svg_and_a_png(tmp_path: Path) -> None:
    diagram = draw(SC_BOOTH, tmp_path)
    assert diagram.svg.read_text().lstrip().startswith("<?xml") and "core1" in diagram.svg.read_text()
    assert diagram.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_device_page_prints_on_one_a4_page_in_chromium(tmp_path: Path) -> None:
    write_cabling(SC_BOOTH, tmp_path)
    pdf = tmp_path / "core1.pdf"
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                    f"--print-to-pdf={pdf}", (tmp_path / "core1.html").as_uri()], capture_output=True, timeout=120,
                   check=True)
    assert len(re.findall(rb"/Type\s*/Page(?!s)", pdf.read_bytes())) == 1


def test_a_cable_judged_at_both_ends_is_one_row_failing_when_either_end_does() -> None:
    rows = merge_rows([CablingRow(label="C01", cable="C01 a eth1 <-> b eth1", verdict="PASS"),
                       CablingRow(label="C01", cable="C01 a eth1 <-> b eth1", verdict="FAIL", cause="b eth1 sees c"),
                       CablingRow(label="C02", cable="C02 a eth2 <-> c eth1", verdict="PASS")])
    assert [(r.label, r.verdict, r.cause) for r in rows] == [("C01", "FAIL", "b eth1 sees c"), ("C02", "PASS", None)]


def test_the_readmes_diagram_is_what_the_intent_draws() -> None:
    committed = (Path(__file__).resolve().parents[2] / "docs" / "sc-booth-wiring.dot").read_text()
    assert committed == diagram_source(SC_BOOTH)[0].source, "redraw: boothnet graph, then copy to docs/"
