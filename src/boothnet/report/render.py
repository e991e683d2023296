"""report.json, report.md, report.html (self-contained) and the PNG plots."""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass
from pathlib import Path

from boothnet.booth.diagram import draw
from boothnet.files import staged_dir
from boothnet.intent.model import Network
from boothnet.report.faults import cable_faults
from boothnet.report.history import Comparison
from boothnet.report.summary import summarize
from boothnet.validate.checks import catalog
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
    plots: dict[str, Path]  # check name -> its chart (PNG)
    diagram_svg: Path | None = None


def _tables(res: ValidationResults) -> list[tuple[str, list[str], list[list[str]], str]]:
    """(title, header, rows, check name) per section, shared by Markdown and HTML: the stages,
    then each check's table in the catalog's order."""
    out = [("Stages", ["status", "stage", "device", "seconds", "note"],
            [[s.status, s.name, s.device or "", "-" if s.duration_s is None else f"{s.duration_s:g}",
              s.reason or s.note or ""] for s in res.stages], "")]
    out += [(check.title, list(check.header), check.table(res), check.name) for check in catalog() if check.title]
    return out


def first_screen_lines(res: ValidationResults) -> list[str]:
    """What checks say on the first screen (the conditions of the measurements)."""
    return [line for check in catalog() if (line := check.first_screen(res))]


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
    if family_line := summary.family_line():
        lines += [f"By family: {family_line}", ""]
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
    for line in first_screen_lines(res):
        lines += [line, ""]
    lines += ["| section | PASS | FAIL | ERROR | SKIPPED |", "|---|---|---|---|---|"]
    lines += [f"| {k} | {v['PASS']} | {v['FAIL']} | {v['ERROR']} | {v['SKIPPED'] + v['NOT RUN']} |"
              for k, v in summary.counts.items()]
    lines.append("")
    return lines


def _md_sections(res: ValidationResults, pngs: dict[str, Path | None]) -> list[str]:
    """Each section's table, its chart above it."""
    lines: list[str] = []
    for title, header, rows, check in _tables(res):
        lines += [f"## {title}", ""]
        if (img := pngs.get(check)) is not None:
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
             f"<p>{e(res.network)}: {e(summary.headline)}</p>"
             + (f'<p class="families">By family: {e(line)}</p>' if (line := summary.family_line()) else "")
             + "</div>"]
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
    parts += [f"<p class=\"conditions\">{e(line)}</p>" for line in first_screen_lines(res)]
    for title, header, rows, check in _tables(res):
        parts.append(f"<h2>{e(title)}</h2>")
        parts.append(_img(pngs.get(check), title))
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
        pngs: dict[str, Path | None] = {check.name: check.plot(results, staging) for check in catalog()}
        if net is not None:
            drawn = draw(net, staging, cable_faults(net, results))
            drawn.dot.unlink()
            pngs["diagram"] = drawn.svg
        doc = {"summary": summary.model_dump(mode="json"),
               "results": results.for_report()}
        if comparison is not None:
            doc["comparison"] = comparison.model_dump(mode="json")
        (staging / "report.json").write_text(json.dumps(doc, indent=2) + "\n")
        (staging / "report.md").write_text(render_markdown(results, summary, pngs, comparison))
        (staging / "report.html").write_text(render_html(results, summary, pngs, comparison))
    plots = {k: out / v.name for k, v in pngs.items() if v is not None and k != "diagram"}
    diagram = pngs.get("diagram")
    return ReportPaths(out, out / "report.json", out / "report.md", out / "report.html", plots,
                       out / diagram.name if diagram else None)
