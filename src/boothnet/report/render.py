"""report.json, report.md, report.html (self-contained) and the PNG plots."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from boothnet.booth.diagram import draw
from boothnet.files import staged_dir
from boothnet.intent.model import Network
from boothnet.report.faults import cable_faults
from boothnet.report.history import Comparison
from boothnet.report.plots import reachability_heatmap, throughput_plot, window_sweep_plot
from boothnet.report.summary import both_ways, summarize, throughput_status
from boothnet.status import Status
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.results import Summary, ValidationResults

FIRST_SCREEN_FAILURES = 6
_BADGE = {"PASS": "PASS", "FAIL": "FAIL", "SKIPPED": "SKIPPED",
          "PASS_WITH_SKIPS": "PASS (incomplete)"}


@dataclass(frozen=True)
class ReportPaths:
    directory: Path
    json: Path
    markdown: Path
    html: Path
    throughput_png: Path | None
    reachability_png: Path | None
    sweep_png: Path | None = None
    diagram_svg: Path | None = None


def _zones(res: ValidationResults) -> list[str]:
    seen = list(res.zones)
    for row in res.isolation:
        for z in (row.src_zone, row.dst_zone):
            if z not in seen:
                seen.append(z)
    return seen


def _mbps(bps: float | None) -> str:
    return "-" if bps is None else f"{bps / 1e6:.1f}"


def _figure(probe: str, value: float | None) -> str:
    """A production probe's figure: a ping's mean RTT, a transfer's rate."""
    return "no reply" if value is None else f"{value:.3f} ms" if probe == "ping" else f"{value:.0f} Mb/s"


def _pair_row(forward: ThroughputResult | None, reverse: ThroughputResult | None) -> list[str]:
    """One LAN test's two directions on one row."""
    pair = [r for r in (forward, reverse) if r is not None]
    first = pair[0]

    def each(figure: Callable[[ThroughputResult], str]) -> str:
        return " / ".join("-" if r is None else figure(r) for r in (forward, reverse))

    def why(r: ThroughputResult) -> str:
        return (r.error or "") if not r.succeeded else r.explanation or r.advice or ""

    notes = [f"{'<-' if r.reverse else '->'} {text}" for r in pair
             if (r.verdict != "PASS" or r.link_loads) and (text := why(r))]
    return [Status.of_rows(throughput_status(r) for r in pair), first.path, first.tool, str(first.streams),
            _mbps(forward.throughput if forward and forward.succeeded else None),
            _mbps(reverse.throughput if reverse and reverse.succeeded else None), _mbps(first.expected),
            each(lambda r: f"{r.ratio:.3f}" if r.ratio and r.succeeded else "-"),
            each(lambda r: "-" if r.retransmits is None else str(r.retransmits)),
            "-" if first.rtt_ms is None else f"{first.rtt_ms:.3f}", "-" if first.mss is None else str(first.mss),
            each(lambda r: "/".join("-" if pct is None else f"{pct:.0f}"
                                    for pct in (r.sender_cpu_pct, r.receiver_cpu_pct))),
            "; ".join(notes) or why(first)]


def _tables(res: ValidationResults) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) per section, shared by Markdown and HTML."""
    out: list[tuple[str, list[str], list[list[str]]]] = []
    out.append(("Stages", ["status", "stage", "device", "note"],
                [[s.status, s.name, s.device or "", s.reason or s.note or ""] for s in res.stages]))
    out.append(("Cabling (LLDP)", ["verdict", "cable", "what the ends hear"],
                [[c.verdict, c.cable, c.cause or "both ends see each other"]
                 for c in sorted(res.cabling, key=lambda c: c.verdict == "PASS")]))
    out.append(("Endpoints", ["verdict", "host", "VLAN", "address", "port", "seen instead"],
                [[e.verdict, e.host, e.vlan, e.address, e.attach, e.cause or ""]
                 for e in sorted(res.endpoints, key=lambda e: e.verdict == "PASS")]))
    out.append(("Isolation matrix",
                ["verdict", "src (zone)", "dst (zone)", "flow", "expected", "observed", "Batfish", "rule"],
                [[r.verdict or "SKIPPED", f"{r.src} ({r.src_zone})", f"{r.dst} ({r.dst_zone})",
                  r.flow, r.expected, r.observed or "not measured",
                  f"{r.batfish} ({r.batfish_detail})" if r.batfish else "not asked",
                  f"{r.rule or ''}{' @ ' + r.device if r.device else ''}"]
                 for r in sorted(res.isolation, key=lambda r: r.verdict != "FAIL")]))
    out.append(("MTU probes", ["verdict", "link / path", "MTU", "from -> to", "probe", "cause"],
                [[m.verdict, m.path, str(m.mtu), f"{m.source} -> {m.destination}", m.kind,
                  m.cause or ""] for m in sorted(res.mtu, key=lambda m: m.verdict != "FAIL")]))
    out.append(("Throughput",
                ["verdict", "path", "tool", "streams", "-> Mb/s (as named)", "<- Mb/s (reverse)", "expected Mb/s",
                 "ratio -> / <-", "retransmits -> / <-", "RTT ms", "MSS", "CPU % sender/receiver -> / <-",
                 "window advice / error"],
                [_pair_row(forward, reverse) for forward, reverse in both_ways(res.throughput)]))
    out.append(("WAN paths: RTT",
                ["verdict", "path", "from -> to", "payload B (DF)", "declared ms", "min/avg/max ms", "note"],
                [[r.verdict, r.path, f"{r.source} -> {r.destination}", str(r.payload),
                  f"{r.declared_ms:g} +- {r.tolerance_ms:g}",
                  "-" if r.avg_ms is None else f"{r.min_ms:.1f} / {r.avg_ms:.1f} / {r.max_ms:.1f}", r.cause or ""]
                 for r in res.rtt]))
    out.append(("Production under research load (idle, then while the research aggregates run)",
                ["verdict", "probe", "from -> to", "idle", "under load", "lost under load", "why"],
                [[p.verdict, p.probe, f"{p.source} -> {p.destination}", _figure(p.probe, p.idle),
                  _figure(p.probe, p.loaded), "-" if p.sent is None else f"{p.lost} of {p.sent}", p.cause]
                 for p in sorted(res.production, key=lambda p: p.verdict == "PASS")]))
    out.append(("WAN paths: window, streams, UDP",
                ["verdict", "path", "test", "window", "streams", "measured Mb/s", "expected Mb/s", "limit",
                 "why"],
                [[throughput_status(r), r.path + (" (reverse)" if r.reverse else ""), r.kind,
                  "OS default" if not r.window else f"{r.window}",
                  str(r.streams) + (f" ({', '.join(_mbps(x) for x in r.stream_throughputs)})"
                                    if r.stream_throughputs else ""),
                  _mbps(r.throughput if r.succeeded else None), _mbps(r.expected), r.limit or "-",
                  r.explanation or r.error or ""]
                 for r in res.throughput if r.kind not in ("path", "loss")]))
    out.append(("Loss (UDP below the limit, each LAN path family, both ways)",
                ["verdict", "path", "from -> to", "rate Mb/s", "datagrams", "lost %", "jitter ms", "why"],
                [[throughput_status(r), r.path, f"{r.source} -> {r.destination}",
                  _mbps(r.throughput if r.succeeded else None), "-" if r.packets is None else str(r.packets),
                  "-" if r.lost_pct is None else f"{r.lost_pct:.3f}",
                  "-" if r.jitter_ms is None else f"{r.jitter_ms:.3f}", r.explanation or r.error or ""]
                 for r in sorted(res.throughput, key=lambda r: r.verdict == "PASS") if r.kind == "loss"]))
    out.append(("Drift: running against deployed", ["verdict", "device", "difference"],
                [[d.verdict, d.device, d.cause or ""] for d in sorted(res.drift, key=lambda d: d.verdict == "PASS")]))
    out.append(("VPN", ["verdict", "tunnel", "state", "expected", "recovery s", "max s", "note"],
                [[v.verdict or "SKIPPED", v.name, v.state, v.expected_state,
                  "-" if v.recovery_time_s is None else f"{v.recovery_time_s:g}",
                  "-" if v.max_recovery_s is None else f"{v.max_recovery_s:g}", v.detail or ""]
                 for v in res.vpn]))
    return out


def conditions_line(res: ValidationResults) -> str | None:
    """Where and on what the figures were measured, one line; None for a run from before."""
    c = res.conditions
    if c is None:
        return None
    tools = "; ".join(f"{version}" for version in c.tools.values())
    busy = (" BUSY: the machine was loaded beyond its cores while measuring: a slow throughput, WAN or sweep "
            "figure may be the machine's, not the network's." if c.busy else "")
    return (f"Measured on the {c.reached}: Linux {c.kernel}, {c.cpus} cores, load {c.load_before[0]:g} -> "
            f"{c.load_after[0]:g}; {tools}.{busy}")


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(res: ValidationResults, summary: Summary, pngs: dict[str, Path | None],
                    comparison: Comparison | None = None) -> str:
    return "\n".join([*_md_first_screen(res, summary, pngs, comparison), *_md_sections(res, pngs)])


def _md_first_screen(res: ValidationResults, summary: Summary, pngs: dict[str, Path | None],
                     comparison: Comparison | None) -> list[str]:
    """The verdict, the failures with what to do, what changed, the diagram and the counts."""
    lines = [f"# Validation report: {res.network}", ""]
    lines += [f"## {_BADGE[summary.overall]}", "", f"**{summary.headline}**", ""]
    if summary.failures:
        lines += ["### Failures, and what to do", ""]
        lines += [f"- **{f.section}{' ERROR' if f.kind == 'ERROR' else ''}** · {f.subject}: {f.message}"
                  + (f" **Do:** {f.action}" if f.action else "") for f in summary.failures]
        lines.append("")
    if comparison is not None:
        lines += ["### Since the last run", ""] + [f"- {line}" for line in comparison.lines()] + [""]
        for name, diff in comparison.configs.items():
            lines += [f"#### {name}", "", "```diff", diff.rstrip(), "```", ""]
    if (diagram := pngs.get("diagram")) is not None:
        lines += [f"![wiring diagram]({diagram.with_suffix('.png').name})", ""]
    if summary.skipped:
        lines += ["### SKIPPED (not checked, not passed)", ""]
        lines += [f"- {s}" for s in summary.skipped]
        lines.append("")
    if res.warnings:
        lines += ["### Warnings (worth a look, failing nothing)", ""] + [f"- {w}" for w in res.warnings] + [""]
    if res.generated:
        lines += [f"Run: {res.generated}", ""]
    if measured := conditions_line(res):
        lines += [measured, ""]
    lines += ["| section | PASS | FAIL | ERROR | SKIPPED |", "|---|---|---|---|---|"]
    lines += [f"| {k} | {v['PASS']} | {v['FAIL']} | {v['ERROR']} | {v['SKIPPED'] + v['NOT RUN']} |"
              for k, v in summary.counts.items()]
    lines.append("")
    return lines


def _md_sections(res: ValidationResults, pngs: dict[str, Path | None]) -> list[str]:
    """Each section's table, its chart above it."""
    lines: list[str] = []
    images = {"Isolation matrix": pngs.get("reachability"), "Throughput": pngs.get("throughput"),
              "WAN paths: window, streams, UDP": pngs.get("sweep")}
    for title, header, rows in _tables(res):
        lines += [f"## {title}", ""]
        if (img := images.get(title)) is not None:
            lines += [f"![{title}]({img.name})", ""]
        if not rows:
            lines += ["_nothing in this section_", ""]
            continue
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
        lines.append("")
    return lines


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1em 1.5em;color:#212121}
.banner{padding:.6em 1.2em;border-radius:6px;color:#fff;margin-bottom:.6em}
.banner h1{margin:0;font-size:2em}.banner p{margin:.2em 0 0;font-size:1.05em}
.first{display:flex;gap:1.2em;align-items:flex-start}.first .left{flex:3;min-width:0}
.first .right{flex:5;min-width:0}.first h2{font-size:1.15em;margin:.3em 0}
img.diagram{width:100%;max-height:calc(100vh - 9em);object-fit:contain;border:1px solid #ddd}
ol.failures{padding-left:1.4em;margin:.2em 0}ol.failures li{margin:.25em 0}.do{color:#0d47a1}
p.since{font-weight:600}ul.since{padding-left:1.2em;margin:.2em 0}
pre.diff{background:#fafafa;border:1px solid #eee;padding:.5em;font-size:.85em;overflow-x:auto}
.PASS{background:#2e7d32}.FAIL{background:#c62828}.SKIPPED{background:#757575}
.PASS_WITH_SKIPS{background:#f9a825;color:#212121}
.subject{font-weight:600}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}
th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.s-PASS{color:#2e7d32;font-weight:600}
td.s-FAIL{color:#fff;background:#c62828;font-weight:600}
td.s-SKIPPED,td.s-NOT{color:#fff;background:#757575;font-weight:600}
td.s-ERROR{color:#fff;background:#6a1b9a;font-weight:600}
img{max-width:100%;border:1px solid #eee}
"""


def _img(path: Path | None, alt: str) -> str:
    if path is None:
        return ""
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'


def _first_screen(summary: Summary, comparison: Comparison | None, diagram: Path | None) -> list[str]:
    """What the booth lead reads in a minute: failures with what to do, the change since the last
    run, and the wiring diagram with the failed cables red."""
    e = html.escape
    left = []
    if summary.failures:
        left.append(f"<h2>Failures ({len(summary.failures)}), and what to do</h2><ol class=\"failures\">")
        for f in summary.failures[:FIRST_SCREEN_FAILURES]:
            do = f'<br><span class="do">Do: {e(f.action)}</span>' if f.action else ""
            left.append(f'<li><b>{e(f.section)}{" ERROR" if f.kind == "ERROR" else ""}</b> · '
                        f'<span class="subject">{e(f.subject)}</span>: {e(f.message)}{do}</li>')
        left.append("</ol>")
        if len(summary.failures) > FIRST_SCREEN_FAILURES:
            left.append(f"<p>and {len(summary.failures) - FIRST_SCREEN_FAILURES} more in the tables below</p>")
    if comparison is not None:
        lines = comparison.lines()
        left.append(f"<h2>Since the last run</h2><p class=\"since\">{e(lines[0])}</p>")
        if len(lines) > 1:
            left.append("<ul class=\"since\">" + "".join(f"<li>{e(line)}</li>" for line in lines[1:12]) + "</ul>")
            if len(lines) > 12:
                left.append(f"<p>and {len(lines) - 12} more below</p>")
    right = []
    if diagram is not None:
        data = base64.b64encode(diagram.read_bytes()).decode()
        right.append(f'<a href="{e(diagram.name)}" title="the diagram at full size"><img class="diagram" '
                     f'alt="wiring diagram" src="data:image/svg+xml;base64,{data}"></a>')
    return ['<div class="first">', f'<div class="left">{"".join(left)}</div>',
            f'<div class="right">{"".join(right)}</div>', "</div>"]


def render_html(res: ValidationResults, summary: Summary, pngs: dict[str, Path | None],
                comparison: Comparison | None = None) -> str:
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{e(res.network)}: {e(_BADGE[summary.overall])}</title>",
             f"<style>{_CSS}</style></head><body>",
             f'<div class="banner {summary.overall}"><h1>{e(_BADGE[summary.overall])}</h1>',
             f"<p>{e(res.network)}: {e(summary.headline)}</p></div>"]
    parts += _first_screen(summary, comparison, pngs.get("diagram"))
    if comparison is not None and comparison.configs:
        parts.append("<h2>Configs changed since the last run</h2>")
        parts += [f"<h3>{e(name)}</h3><pre class=\"diff\">{e(diff)}</pre>" for name, diff in comparison.configs.items()]
    if summary.skipped:
        parts.append("<h2>SKIPPED (not checked, not passed)</h2><ul>")
        parts += [f"<li>{e(s)}</li>" for s in summary.skipped]
        parts.append("</ul>")
    if res.warnings:
        parts.append("<h2>Warnings (worth a look, failing nothing)</h2><ul>")
        parts += [f"<li>{e(w)}</li>" for w in res.warnings]
        parts.append("</ul>")
    if res.generated:
        parts.append(f"<p>Run: {e(res.generated)}</p>")
    if measured := conditions_line(res):
        parts.append(f"<p class=\"conditions\">{e(measured)}</p>")
    images = {"Isolation matrix": pngs.get("reachability"), "Throughput": pngs.get("throughput"),
              "WAN paths: window, streams, UDP": pngs.get("sweep")}
    for title, header, rows in _tables(res):
        parts.append(f"<h2>{e(title)}</h2>")
        parts.append(_img(images.get(title), title))
        if not rows:
            parts.append("<p><i>nothing in this section</i></p>")
            continue
        parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>")
        for row in rows:
            # the first column is always the verdict/status: colour it
            cells = [f'<td class="s-{e(row[0])}">{e(row[0])}</td>']
            cells += [f"<td>{e(c)}</td>" for c in row[1:]]
            parts.append("<tr>" + "".join(cells) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(results: ValidationResults | str | Path, out_dir: str | Path, net: Network | None = None,
                 comparison: Comparison | None = None) -> ReportPaths:
    """Write the report files into ``out_dir`` (created) and return their paths.

    ``results``: the model, or a path to a results JSON file. ``net``: the intent, for the wiring
    diagram with the failed cables red. ``comparison``: the change since an earlier run.
    """
    if not isinstance(results, ValidationResults):
        results = ValidationResults.model_validate_json(Path(results).read_text())
    out = Path(out_dir)
    summary = summarize(results)
    with staged_dir(out) as staging:  # a failure leaves the previous report whole
        pngs: dict[str, Path | None] = {
            "throughput": throughput_plot(both_ways(results.throughput), staging / "throughput.png"),
            "sweep": window_sweep_plot(results.throughput, {r.path: r.declared_ms for r in results.rtt},
                                       staging / "window_sweep.png"),
            "reachability": reachability_heatmap(results.isolation, _zones(results), staging / "reachability.png"),
        }
        if net is not None:
            drawn = draw(net, staging, cable_faults(net, results))
            drawn.dot.unlink()
            pngs["diagram"] = drawn.svg
        doc = {"summary": summary.model_dump(mode="json"),
               "results": results.model_dump(mode="json", exclude={"throughput": {"__all__": {"raw"}}})}
        if comparison is not None:
            doc["comparison"] = comparison.model_dump(mode="json")
        (staging / "report.json").write_text(json.dumps(doc, indent=2) + "\n")
        (staging / "report.md").write_text(render_markdown(results, summary, pngs, comparison))
        (staging / "report.html").write_text(render_html(results, summary, pngs, comparison))
    pngs = {k: (out / v.name if v else None) for k, v in pngs.items()}
    return ReportPaths(out, out / "report.json", out / "report.md", out / "report.html",
                       pngs["throughput"], pngs["reachability"], pngs["sweep"], pngs.get("diagram"))
