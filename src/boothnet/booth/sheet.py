"""The cabling sheet: one printable page per device (every port: its cable label, the far end,
mode, VLANs, MTU, speed) and ``cabling.csv`` with one row per cable, for a crew on the floor."""

from __future__ import annotations

import csv
import html
import io
from dataclasses import dataclass
from pathlib import Path

from boothnet.booth.cables import Cable, cable_plan, cables_by_ref
from boothnet.files import staged_dir
from boothnet.intent.model import Network

CSV_FIELDS = ["label", "a_device", "a_port", "b_device", "b_port", "kind", "mode", "vlans", "mtu", "speed_mbps",
              "a_address", "b_address", "wan", "text"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.2em;color:#212121}
h1{margin:0 0 .2em;font-size:1.6em}p.sub{margin:0 0 1em;color:#555}
table{border-collapse:collapse;width:100%;font-size:.95em}
th,td{border:1px solid #bbb;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#eceff1}td{white-space:nowrap}td.vlans{white-space:normal}
td.label{font-weight:700;font-family:monospace,monospace;font-size:1.1em}
td.port{font-family:monospace,monospace}p.spare{color:#757575}
tr.host td.peer{font-style:italic}nav{margin-bottom:1em}nav a{margin-right:.8em}
@media print{
  @page{size:A4 landscape;margin:10mm}
  body{margin:0;font-size:10pt}nav{display:none}
  tr{break-inside:avoid}thead{display:table-header-group}
  th{background:#eceff1 !important;-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
"""


@dataclass(frozen=True)
class PortRow:
    device: str
    port: str
    cable: Cable | None  # None: a declared port with no cable (listed apart as spare)

    def cells(self) -> list[str]:
        c = self.cable
        assert c is not None
        here, there = c.end_at(self.device, self.port) or (c.a, c.b)
        peer = f"{there.device} {there.port}".rstrip() if c.kind == "link" else f"host {there.device}"
        address = c.addresses[0] if here is c.a else c.addresses[1]
        return [self.port, c.label, peer, c.mode, c.vlan_text, str(c.mtu), speed_text(c.speed),
                address + (f" ({c.wan})" if c.wan else "")]


def speed_text(mbps: int) -> str:
    return f"{mbps / 1000:g} Gb/s" if mbps >= 1000 else f"{mbps} Mb/s"


def port_rows(net: Network, device: str, cables: list[Cable]) -> list[PortRow]:
    by_ref = cables_by_ref(cables)
    return [PortRow(device, p.name, by_ref.get(f"{device}:{p.name}"))
            for p in net.devices[device].ports]


def cables_csv(cables: list[Cable]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for c in cables:
        writer.writerow([c.label, c.a.device, c.a.port, c.b.device, c.b.port, c.kind, c.mode,
                         " ".join(f"{vid}:{name}" for vid, name in c.vlans), c.mtu, c.speed, *c.addresses, c.wan,
                         c.text])
    return out.getvalue()


def _page(title: str, body: list[str]) -> str:
    return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                      f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>", *body,
                      "</body></html>"])


def device_page(net: Network, device: str, cables: list[Cable]) -> str:
    e = html.escape
    d = net.devices[device]
    rows = port_rows(net, device, cables)
    spare = [r.port for r in rows if r.cable is None]
    rows = [r for r in rows if r.cable is not None]
    body = ['<nav><a href="index.html">all devices</a></nav>',
            f"<h1>{e(device)}: cabling</h1>",
            f'<p class="sub">{e(net.name)} · {e(d.role.replace("_", " "))} · {e(d.platform)} · mgmt '
            f"{e(str(d.mgmt_address))} · {len(rows)} of {len(rows) + len(spare)} ports cabled</p>",
            "<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in (
                "port", "cable", "far end", "mode", "VLANs", "MTU", "speed", "address")) + "</tr></thead><tbody>"]
    for row in rows:
        cells = row.cells()
        body.append(f'<tr class="{"host" if row.cable and row.cable.kind == "endpoint" else "link"}">'
                    f'<td class="port">{e(cells[0])}</td><td class="label">{e(cells[1])}</td>'
                    f'<td class="peer">{e(cells[2])}</td><td>{e(cells[3])}</td><td class="vlans">{e(cells[4])}</td>'
                    + "".join(f"<td>{e(c)}</td>" for c in cells[5:]) + "</tr>")
    body.append("</tbody></table>")
    if spare:
        body.append(f'<p class="spare">not cabled ({len(spare)}): {e(", ".join(spare))}</p>')
    return _page(f"{device} cabling ({net.name})", body)


def index_page(net: Network, cables: list[Cable]) -> str:
    e = html.escape
    body = [f"<h1>{e(net.name)}: cabling</h1>",
            f'<p class="sub">{len(cables)} cables; one page per device; <a href="cabling.csv">cabling.csv</a></p>',
            "<nav>" + "".join(f'<a href="{e(name)}.html">{e(name)}</a>' for name in sorted(net.devices)) + "</nav>",
            "<table><thead><tr><th>cable</th><th>end A</th><th>end B</th><th>mode</th><th>VLANs</th><th>MTU</th>"
            "<th>speed</th></tr></thead><tbody>"]
    body += [f'<tr><td class="label">{e(c.label)}</td><td class="port">{e(c.a.device)} {e(c.a.port)}</td>'
             f'<td class="port">{e(c.b.device)} {e(c.b.port)}</td><td>{e(c.mode)}</td><td>{e(c.vlan_text)}</td>'
             f"<td>{c.mtu}</td><td>{speed_text(c.speed)}</td></tr>" for c in cables]
    body.append("</tbody></table>")
    return _page(f"{net.name} cabling", body)


def write_cabling(net: Network, out_dir: Path) -> list[Path]:
    """``index.html``, ``<device>.html`` per device and ``cabling.csv`` in ``out_dir`` (replaced whole)."""
    cables = cable_plan(net)
    with staged_dir(out_dir) as staging:
        (staging / "cabling.csv").write_text(cables_csv(cables))
        (staging / "index.html").write_text(index_page(net, cables))
        for device in sorted(net.devices):
            (staging / f"{device}.html").write_text(device_page(net, device, cables))
    return [out_dir / "index.html", out_dir / "cabling.csv", *(out_dir / f"{d}.html" for d in sorted(net.devices))]
