"""The configs as Batfish parsed them: parse status, unused structures, undefined references."""

from __future__ import annotations

import pandas as pd

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.intent import VerifyIntent
from boothnet.verify.batfish.report import Finding, Severity


def file_nodes(file_status: pd.DataFrame | None) -> dict[str, str]:
    """Config file name -> node, from fileParseStatus."""
    out: dict[str, str] = {}
    for r in fr.rows(file_status):
        nodes = fr.as_list(r.get("Nodes"))
        if nodes:
            out[str(r["File_Name"])] = str(nodes[0])
    return out


def check_parsing(
    file_status: pd.DataFrame,
    parse_warnings: pd.DataFrame | None = None,
    init_issues: pd.DataFrame | None = None,
) -> list[Finding]:
    """Every file PASSED, no parse warnings, no init issues (parse warnings reported once)."""
    found: list[Finding] = []
    nodes = file_nodes(file_status)
    for r in fr.rows(file_status):
        if r["Status"] != "PASSED":
            found.append(Finding(
                "parsing", fr.file_node(r["File_Name"], nodes),
                f"config file {r['File_Name']} parsed as {r['Status']}: Batfish did not "
                "understand every line, so its model of this device may be incomplete",
                location=str(r["File_Name"]), row=r))
    seen: set[tuple[str, int, str]] = set()
    for r in fr.rows(parse_warnings):
        seen.add((str(r["Filename"]), int(r["Line"]), str(r["Text"])))
        found.append(Finding(
            "parsing", fr.file_node(r["Filename"], nodes),
            f"line {r['Line']} '{r['Text']}': {r['Comment']}",
            location=f"{r['Filename']}:{r['Line']}", row=r))
    for r in fr.rows(init_issues):
        places = [(str(fl.filename), int(ln)) for fl in fr.as_list(r.get("Source_Lines"))
                  for ln in fr.as_list(getattr(fl, "lines", []))]
        text = str(r.get("Line_Text") or "")
        if places and all((f, ln, text) in seen for f, ln in places):
            continue  # the same parse warning, already reported from parseWarning
        devices = [str(n) for n in fr.as_list(r.get("Nodes"))] or sorted(
            {fr.file_node(f, nodes) for f, _ in places})
        found.append(Finding(
            "parsing", ", ".join(devices) or None,
            f"{r['Type']}: {r['Details']}" + (f" ('{text}')" if text else ""),
            location=", ".join(f"{f}:{ln}" for f, ln in places) or None, row=r))
    return found


def check_unused_structures(frame: pd.DataFrame, intent: VerifyIntent) -> list[Finding]:
    """Structures defined and never used: an error, unless the intent asked for it (then a
    warning with the reason, so the exception stays visible in the report)."""
    accepted = {(a.node, a.structure_type, a.name): a.reason for a in intent.accepted_unused}
    found: list[Finding] = []
    for r in fr.rows(frame):
        places = fr.as_list(r.get("Source_Lines"))
        filename = str(getattr(places[0], "filename", "")) if places else ""
        node = fr.file_node(filename) if filename else None
        kind, name = str(r["Structure_Type"]), str(r["Structure_Name"])
        reason = accepted.get((node or "", kind, name))
        if reason:
            found.append(Finding("unused", node, f"{kind} {name} is unused in the Batfish view: "
                                 f"accepted, {reason}", location=filename or None,
                                 severity=Severity.WARNING, row=r))
        else:
            found.append(Finding("unused", node, f"{kind} {name} is defined but never used "
                                 "(dead config: remove it from the template or apply it)",
                                 location=filename or None, row=r))
    return found


def check_undefined_references(
    frame: pd.DataFrame,
    configs: dict[str, str] | None = None,
    file_status: pd.DataFrame | None = None,
) -> list[Finding]:
    """Each undefined reference, with the interface/stanza that holds it when configs are given."""
    nodes = file_nodes(file_status)
    found: list[Finding] = []
    for r in fr.rows(frame):
        node = fr.file_node(r["File_Name"], nodes)
        lines = [int(x) for x in fr.as_list(getattr(r.get("Lines"), "lines", []))]
        where = None
        if configs and node in configs and lines:
            where = fr.enclosing_stanza(configs[node], lines[0])
        loc = f"{where} (line {', '.join(map(str, lines))})" if where else (
            f"{r['File_Name']}:{','.join(map(str, lines))}" if lines else r["File_Name"])
        found.append(Finding(
            "references", node,
            f"{r['Struct_Type']} '{r['Ref_Name']}' is used ({r['Context']}) but never defined",
            location=loc, row=r))
    return found

