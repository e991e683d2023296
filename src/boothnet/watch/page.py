"""The page the crew keeps open: verdict and open alarms first, then each cable's utilisation
MRTG-style (max, average and current in percent of line rate, errors and discards), each WAN
path's RTT and loss over time, and the alarm timeline. Plain HTML and inline SVG, rewritten each
round (it reloads itself)."""

from __future__ import annotations

import os
import time
from html import escape
from pathlib import Path

from jinja2 import Environment

from boothnet.watch.alarms import line
from boothnet.watch.history import CableSeries, cable_series, rtt_series
from boothnet.watch.store import Store

ROUNDS_SHOWN = 288  # a day of 5-minute rounds
W, H = 560, 110


def _points(values: list[float | None], top: float) -> str:
    n = max(len(values) - 1, 1)
    return " ".join(f"{i * W / n:.1f},{H - min(v, top) / top * H:.1f}" for i, v in enumerate(values) if v is not None)


def cable_svg(s: CableSeries) -> str:
    """In and out in percent of line rate; the scale grows with the busiest round, up to 100 %."""
    pct = [[None if v is None else 100 * v / s.speed_bps for v in vs] for vs in (s.a_to_b, s.b_to_a)]
    top = min(100.0, max([1.0, *(v * 1.2 for vs in pct for v in vs if v is not None)]))
    a_to_b = _points(pct[0], top)
    fill = f'<polygon points="0,{H} {a_to_b} {W},{H}" fill="#00b000" opacity="0.55"/>' if a_to_b else ""
    return (f'<svg width="{W}" height="{H + 14}" role="img" aria-label="{escape(s.text)} utilisation">'
            f'<rect width="{W}" height="{H}" fill="#f7f7f7" stroke="#999"/>{fill}'
            f'<polyline points="{_points(pct[1], top)}" fill="none" stroke="#0000d0" stroke-width="2"/>'
            f'<text x="2" y="10" font-size="10">{top:.3g} %</text>'
            f'<text x="2" y="{H + 12}" font-size="10">{len(s.rounds)} rounds</text></svg>')


def rtt_svg(points: list, declared: float) -> str:
    values = [p.avg_ms for _, p in points]
    top = max([declared * 1.5, 1.0, *(v * 1.2 for v in values if v is not None)])
    y = H - declared / top * H
    return (f'<svg width="{W}" height="{H}" role="img"><rect width="{W}" height="{H}" fill="#f7f7f7" stroke="#999"/>'
            f'<line x1="0" x2="{W}" y1="{y:.1f}" y2="{y:.1f}" stroke="#999" stroke-dasharray="4"/>'
            f'<polyline points="{_points(values, top)}" fill="none" stroke="#a000a0" stroke-width="2"/>'
            f'<text x="2" y="10" font-size="10">{top:.3g} ms</text></svg>')


def _rate(bps: float | None, speed: float) -> str:
    if bps is None:
        return "-"
    value = f"{bps / 1e6:,.1f} Mb/s" if bps >= 1e6 else f"{bps / 1e3:,.1f} kb/s"
    return f"{value} ({100 * bps / speed:.{1 if bps >= speed / 1000 else 3}f}%)"


def _trouble_first(s: CableSeries) -> tuple:
    """Down, then with errors, then the busiest now: what the crew looks at first."""
    now = max(s.a_to_b[-1] or 0, s.b_to_a[-1] or 0) / s.speed_bps if s.rounds else 0
    return (s.up is not False, s.errors == 0, -now, s.cable)


PAGE = Environment(autoescape=True).from_string("""<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="{{ refresh }}">
<title>{{ network }}: watch {{ verdict }}</title>
<style>
body { font-family: sans-serif; margin: 1em; } .banner { padding: .6em 1em; color: #fff; font-size: 1.4em; }
.PASS { background: #2e7d32; } .FAIL { background: #d50000; } .NONE { background: #777; }
table { border-collapse: collapse; margin: .4em 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; font-size: .9em; }
.cables { display: flex; flex-wrap: wrap; gap: 1em; } .cable { border: 1px solid #ccc; padding: .5em; }
.down { border: 3px solid #d50000; } .ALARM { color: #d50000; } .CLEAR { color: #2e7d32; }
</style></head><body>
<div class="banner {{ verdict }}" id="banner">{{ network }}: {{ banner }}</div>
<h2>Open alarms ({{ open|length }})</h2>
{% if open %}<table id="alarms"><tr><th>since</th><th>check</th><th>what</th><th>Do</th></tr>
{% for c, since in open %}<tr><td>{{ since }}</td><td>{{ c.section }}: {{ c.subject }}</td><td>{{ c.message }}</td>
<td>{{ c.action }}</td></tr>{% endfor %}</table>{% else %}<p>none</p>{% endif %}
<h2>Cables</h2><p>Down first, then with errors, then the busiest. Green: the first end sending, blue: the second;
percent of the cable's speed, one point per round.</p>
<div class="cables">{% for s, svg, rows in cables %}
<div class="cable{% if s.up == false %} down{% endif %}" id="{{ s.cable }}">
<b>{{ s.text }}</b> {{ "%g"|format(s.speed_bps / 1e6) }} Mb/s
{% if s.up == false %}<b class="ALARM"> LINK DOWN</b>{% endif %}<br>{{ svg|safe }}
<table><tr><th></th><th>Max</th><th>Average</th><th>Current</th></tr>
{% for name, row in rows %}<tr><td>{{ name }}</td>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>{% endfor %}
</table>errors {{ s.errors }}, discards {{ s.discards }}</div>{% endfor %}</div>
<h2>WAN RTT and loss</h2>{% for path, svg, last in wan %}
<div><b>{{ path }}</b>: now {{ last }}<br>{{ svg|safe }}</div>{% else %}<p>no WAN link</p>{% endfor %}
<h2>Alarm timeline</h2><ul id="timeline">{% for e in events %}<li class="{{ e.state }}">{{ e }}</li>
{% else %}<li>no alarm yet</li>{% endfor %}</ul>
<p>round {{ number }}, {{ generated }}; history in {{ db }}</p></body></html>
""")


def render_page(store: Store, network: str, refresh: int) -> str:
    rounds = store.rounds(1)
    number = rounds[-1][0] if rounds else 0
    failing = store.failing(number)
    verdict = rounds[-1][4] if rounds else "NONE"
    banner = ("waiting for the first round" if not rounds else
              f"FAIL: {len(failing)} alarm(s) open (round {number})" if failing else
              f"PASS: all {rounds[-1][6]} checks passed (round {number})")
    open_ = [(c, time.strftime("%H:%M:%S", time.localtime(since)) if (since := store.since(c.key)) else "-")
             for c in failing]
    cables = []
    for s in sorted(cable_series(store, ROUNDS_SHOWN), key=_trouble_first):
        a, b = s.ends
        rows = [(f"{src} -> {dst}", [_rate(v, s.speed_bps) for v in s.stats(direction)])
                for direction, src, dst in (("a_to_b", a, b), ("b_to_a", b, a))]
        cables.append((s, cable_svg(s), rows))
    wan = []
    for path, points in rtt_series(store, ROUNDS_SHOWN).items():
        last = points[-1][1]
        now = f"{last.avg_ms:.1f} ms (declared {last.declared_ms:g}), {last.loss_pct:g} % lost" \
            if last.avg_ms is not None and last.loss_pct is not None else "no reply"
        wan.append((path, rtt_svg(points, last.declared_ms), now))
    return PAGE.render(network=network, refresh=refresh, verdict=verdict, banner=banner, open=open_, cables=cables,
                       wan=wan, events=[line(e) for e in reversed(store.events(100))], number=number,
                       generated=time.strftime("%Y-%m-%d %H:%M:%S"), db=store.path)


def write_page(store: Store, network: str, out: Path, refresh: int) -> Path:
    tmp = out.with_suffix(".tmp")
    tmp.write_text(render_page(store, network, refresh))
    os.replace(tmp, out)  # a reader never sees half a page
    return out
