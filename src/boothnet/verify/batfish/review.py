"""ACL review: what a change newly permits or denies, and whether that breaks the intent.

`review_change` asks a live Batfish (base vs change snapshots); `review_from_answers`
builds the same report from answer frames, so the report is tested on recorded answers.
"""

from __future__ import annotations

import html
import ipaddress
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.intent import OPENING_PACKETS, VerifyIntent, ip_in
from boothnet.verify.batfish.questions import opening_headers, secure_headers, zone_pair_headers
from boothnet.verify.batfish.report import Status
from boothnet.verify.batfish.service import ANY_SERVICE, BatfishAsk, open_session
from boothnet.verify.batfish.snapshot import Edge, build_snapshot_dir, init_snapshot, snapshot_name
from boothnet.verify.batfish.traces import FlowAnswer, FlowQuery, ask_flows

PERMITTED, DENIED = "newly permitted", "newly denied"


@dataclass
class FlowChange:
    """One flow (or ACL line) whose fate differs between base and change."""

    kind: str  # PERMITTED or DENIED
    device: str
    acl: str | None
    line: str | None  # the ACL line that decides it in the change
    previous_line: str | None  # the line that decided it before
    flow: str | None  # example flow, in words
    source: str  # which Batfish question showed it
    src_ip: str | None = None
    dst_ip: str | None = None
    proto: str | None = None
    port: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass
class Violation:
    """A newly permitted flow that breaks an intent rule."""

    rule: str  # "isolation" or "secured network"
    change: FlowChange
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "message": self.message, "change": self.change.to_dict()}


@dataclass(frozen=True)
class ReachChange:
    """One example flow of differentialReachability: its end-to-end fate changed."""

    src_ip: str
    dst_ip: str
    proto: str | None
    port: int | None
    permitted_now: bool
    flow: str
    entry: str | None = None  # the node it starts at
    originated: bool = False  # the node itself sends it (no ingress interface): no host's conversation


@dataclass
class ReviewResult:
    status: Status
    changes: list[FlowChange] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    reason: str | None = None
    files: dict[str, Path] = field(default_factory=dict)
    # end to end: differentialReachability's example flows, and the answers to the flows asked
    # of both snapshots ("base", "change": one FlowAnswer per query, in order)
    reach: list[ReachChange] = field(default_factory=list)
    flow_answers: dict[str, list[FlowAnswer]] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """1 when the change violates policy; 0 otherwise (SKIPPED is visible in status)."""
        return 1 if self.violations else 0

    @property
    def permitted(self) -> list[FlowChange]:
        return [c for c in self.changes if c.kind == PERMITTED]

    @property
    def denied(self) -> list[FlowChange]:
        return [c for c in self.changes if c.kind == DENIED]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "reason": self.reason,
            "exit_code": self.exit_code,
            "changes": [c.to_dict() for c in self.changes],
            "violations": [v.to_dict() for v in self.violations],
        }


# --- building changes from answers ------------------------------------------------------------


def _kind(new: Any, old: Any) -> str | None:
    new, old = str(new or "").upper(), str(old or "").upper()
    if new == "PERMIT" and old != "PERMIT":
        return PERMITTED
    if old == "PERMIT" and new != "PERMIT":
        return DENIED
    return None


def _with_flow(change: FlowChange, flow: Any) -> FlowChange:
    f = fr.flow_fields(flow)
    change.flow = fr.flow_text(flow)
    change.src_ip, change.dst_ip = f["srcIp"], f["dstIp"]
    change.proto, change.port = fr.flow_proto(flow), fr.flow_port(flow)
    return change


# Stateless return lines: they pass answers to conversations the other side opened.
RETURN_LINE = re.compile(r"\b(established|echo-reply)\b", re.IGNORECASE)
_ADDR = r"(any|host\s+\S+|\S+\s+\d+\.\d+\.\d+\.\d+|\S+/\d+)"
_ACL_LINE = re.compile(
    rf"^(?:\d+\s+)?(permit|deny)\s+(\S+)\s+{_ADDR}(?:\s+(?:eq\s+\S+|range\s+\S+\s+\S+))?"
    rf"\s+{_ADDR}(?:\s+eq\s+(\S+))?", re.IGNORECASE)
_PORTS = {"ssh": 22, "telnet": 23, "www": 80, "http": 80, "https": 443, "domain": 53}


def _first_ip(spec: str) -> str | None:
    """The lowest address an IOS/EOS ACL address spec matches (None for `any`)."""
    parts = spec.split()
    if parts[0].lower() == "any":
        return None
    if parts[0].lower() == "host":
        return parts[1]
    return str(ipaddress.ip_network(parts[0], strict=False).network_address) if "/" in parts[
        0] else parts[0]


def flow_from_acl_line(line: str) -> dict[str, Any] | None:
    """A representative flow for an ACL line, when Batfish gave no example flow for it."""
    m = _ACL_LINE.match(line.strip())
    if not m:
        return None
    port = m.group(5)
    return {
        "srcIp": _first_ip(m.group(3)) or "0.0.0.0",
        "dstIp": _first_ip(m.group(4)) or "0.0.0.0",
        "ipProtocol": m.group(2).upper(),
        "dstPort": (int(port) if port.isdigit() else _PORTS.get(port.lower())) if port else None,
    }


def changes_from_answers(
    compare_filters: pd.DataFrame | None,
    search_filters: list[pd.DataFrame] | None = None,
    differential_reachability: pd.DataFrame | None = None,
) -> list[FlowChange]:
    """Every newly permitted/denied conversation, one per (kind, device, ACL), tied to its ACL
    line. Return traffic (a flow that opens nothing, or an `established`/echo-reply line) is not
    a change of its own: it follows the flow it answers."""
    lines: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in fr.rows(compare_filters):
        lines.setdefault((str(r["Node"]), str(r["Filter_Name"])), []).append(r)
    out = _from_search_filters(search_filters or []) + _from_reachability(differential_reachability, lines)
    out += _from_changed_lines(lines, {(c.device, c.acl or "", c.kind) for c in out})
    first: dict[tuple[str, str, str | None], FlowChange] = {}
    for change in out:
        first.setdefault((change.kind, change.device, change.acl), change)
    return list(first.values())


def _from_search_filters(frames: list[pd.DataFrame]) -> list[FlowChange]:
    out: list[FlowChange] = []
    for frame in frames:
        for r in fr.rows(frame):
            kind = _kind(r.get("Snapshot_Action"), r.get("Reference_Action"))
            if kind is None or not fr.flow_opens(r["Flow"]):
                continue
            out.append(_with_flow(FlowChange(
                kind, str(r["Node"]), str(r["Filter_Name"]), r.get("Snapshot_Line_Content"),
                r.get("Reference_Line_Content"), None, "differential searchFilters"), r["Flow"]))
    return out


def _from_reachability(frame: pd.DataFrame | None, lines: dict[tuple[str, str], list[dict[str, Any]]]
                       ) -> list[FlowChange]:
    out: list[FlowChange] = []
    for r in fr.rows(frame):
        new_ok = fr.trace_ok(r.get("Snapshot_Traces"))
        if new_ok == fr.trace_ok(r.get("Reference_Traces")) or not fr.flow_opens(r["Flow"]):
            continue
        kind = PERMITTED if new_ok else DENIED
        # The ACL that flips: the one the flow now passes (permitted) or now hits (denied).
        want = "PERMITTED" if new_ok else "DENIED"
        acls = [(n, f) for t in fr.as_list(r.get("Snapshot_Traces"))
                for n, f, a in fr.trace_filters(t) if a == want]
        changed = [x for x in acls if x in lines] or acls
        node, acl = changed[0] if changed else (str(fr.flow_fields(r["Flow"])["ingressNode"]), None)
        line, prev = _line_for(lines.get((node, acl), []), kind) if acl else (None, None)
        out.append(_with_flow(FlowChange(
            kind, node, acl, line, prev, None, "differentialReachability"), r["Flow"]))
    return out


def reach_changes(frame: pd.DataFrame | None) -> list[ReachChange]:
    """differentialReachability's rows as end-to-end changes of conversations (return traffic left out)."""
    out = []
    for r in fr.rows(frame):
        new_ok = fr.trace_ok(r.get("Snapshot_Traces"))
        if new_ok == fr.trace_ok(r.get("Reference_Traces")) or not fr.flow_opens(r["Flow"]):
            continue
        f = fr.flow_fields(r["Flow"])
        out.append(ReachChange(str(f["srcIp"]), str(f["dstIp"]), (fr.flow_proto(r["Flow"]) or "").lower() or None,
                               fr.flow_port(r["Flow"]), new_ok, fr.flow_text(r["Flow"]),
                               str(f["ingressNode"]) if f.get("ingressNode") else None,
                               not f.get("ingressInterface")))
    return out


def _line_for(rows: list[dict[str, Any]], kind: str) -> tuple[str | None, str | None]:
    want = "PERMIT" if kind == PERMITTED else "DENY"
    for r in rows:
        if str(r.get("Line_Action")).upper() == want:
            return r.get("Line_Content"), r.get("Reference_Line_Content")
    return None, None


def _from_changed_lines(lines: dict[tuple[str, str], list[dict[str, Any]]], covered: set[tuple[str, str, str]]
                        ) -> list[FlowChange]:
    """ACL lines that changed but for which no example flow came back: a flow derived from the line."""
    out: list[FlowChange] = []
    for (node, acl), rs in lines.items():
        for r in rs:
            kind = PERMITTED if str(r.get("Line_Action")).upper() == "PERMIT" else DENIED
            if (node, acl, kind) in covered or any(
                    RETURN_LINE.search(str(r.get(c) or "")) for c in ("Line_Content", "Reference_Line_Content")):
                continue
            change = FlowChange(kind, node, acl, r.get("Line_Content"),
                                r.get("Reference_Line_Content"), None, "compareFilters")
            derived = flow_from_acl_line(str(r.get("Line_Content") or ""))
            if derived:
                _with_flow(change, derived)
                change.flow = f"{change.flow} (derived from the ACL line)"
            out.append(change)
    return out


def violations_of(changes: list[FlowChange], intent: VerifyIntent) -> list[Violation]:
    """Newly permitted flows that break isolation or the secured-network rule."""
    out: list[Violation] = []
    for c in changes:
        if c.kind != PERMITTED or not c.src_ip or not c.dst_ip:
            continue
        src, dst = intent.zone_of(c.src_ip), intent.zone_of(c.dst_ip)
        if (src and dst and src.name != dst.name and intent.is_isolated(src, dst)
                and not intent.service_allowed(c.src_ip, c.dst_ip, c.proto, c.port)):
            out.append(Violation("isolation", c, (
                f"{src.name} ({c.src_ip}) may now reach {dst.name} ({c.dst_ip}); the intent "
                f"keeps {src.name} away from {dst.name} except for listed services")))
        sec = intent.secure
        if sec and ip_in(c.dst_ip, sec.prefixes) and not sec.allows(c.src_ip, c.proto, c.port):
            out.append(Violation("secured network", c, (
                f"{c.src_ip} may now reach the secured network ({c.dst_ip}); only the listed "
                f"clients {', '.join(sec.clients)} may")))
    return out


def review_from_answers(
    intent: VerifyIntent,
    compare_filters: pd.DataFrame | None,
    search_filters: list[pd.DataFrame] | None = None,
    differential_reachability: pd.DataFrame | None = None,
    out_dir: Path | None = None,
) -> ReviewResult:
    """The review from differential answer frames (change vs base); writes reports if out_dir."""
    changes = changes_from_answers(compare_filters, search_filters, differential_reachability)
    violations = violations_of(changes, intent)
    result = ReviewResult(Status.FAIL if violations else Status.PASS, changes, violations)
    if out_dir is not None:
        write_review(result, out_dir)
    return result


# --- live ---------------------------------------------------------------------------------------


def review_change(
    base_configs: Path,
    change_configs: Path,
    intent: VerifyIntent,
    out_dir: Path,
    ask: BatfishAsk = ANY_SERVICE,
    layer1_edges: list[Edge] | None = None,
    flows: Sequence[FlowQuery] = (),
    progress: Callable[[str], None] = lambda _: None,
) -> ReviewResult:
    """Ask Batfish what `change_configs` newly permits/denies versus `base_configs`; `flows`
    are traced in both snapshots (`flow_answers`)."""
    status = ask.status()
    if not status.reachable:
        result = ReviewResult(Status.SKIPPED, reason=status.skip_reason)
        write_review(result, out_dir)
        return result
    edges = layer1_edges or []
    bf = open_session(status, ask.network)
    names = {side: snapshot_name(side, out_dir) for side in ("base", "change")}
    for side, cfg in (("base", base_configs), ("change", change_configs)):
        init_snapshot(bf, build_snapshot_dir(cfg, edges, out_dir / "snapshots" / side), names[side])
    diff = {"snapshot": names["change"], "reference_snapshot": names["base"]}
    q = bf.q
    compare = q.compareFilters().answer(**diff).frame()
    targets: dict[str, set[str]] = {}
    for node, acl in {(str(r["Node"]), str(r["Filter_Name"])) for r in fr.rows(compare)} | {
            (b.iface.node, b.acl) for b in intent.acl_interfaces}:
        targets.setdefault(node, set()).add(acl)
    searches: list[pd.DataFrame] = []
    reach: list[pd.DataFrame] = []
    # Only packets that open a conversation (the isolation definition); one question per node
    # and action, since searchFilters answers one row per filter.
    for packet in OPENING_PACKETS:
        everything = opening_headers(packet, "0.0.0.0/0", "0.0.0.0/0")
        for node, acls in sorted(targets.items()):
            for action in ("permit", "deny"):
                searches.append(q.searchFilters(headers=everything, nodes=node, action=action,
                                                filters=", ".join(sorted(acls))).answer(**diff).frame())
        if intent.secure is not None:
            hdr = secure_headers(packet, intent.secure)
            searches.append(q.searchFilters(headers=hdr, action="permit").answer(**diff).frame())
        for src, dst in intent.isolated_pairs():
            hdr = zone_pair_headers(packet, src, dst)
            searches.append(q.searchFilters(headers=hdr, action="permit").answer(**diff).frame())
        reach.append(q.differentialReachability(headers=everything).answer(**diff).frame())
    reach_frame = pd.concat(reach, ignore_index=True)
    result = review_from_answers(intent, compare, searches, reach_frame)
    result.reach = reach_changes(reach_frame)
    result.flow_answers = _traced(bf, names, flows, progress)
    write_review(result, out_dir)
    return result


def _traced(bf: Any, names: dict[str, str], flows: Sequence[FlowQuery], progress: Callable[[str], None]
            ) -> dict[str, list[FlowAnswer]]:
    """Each flow traced in both snapshots: its end-to-end fate before and after the change."""
    answers = {}
    for side in ("base", "change"):
        if flows:
            progress(f"Batfish: {len(flows)} flows traced in {side}")
        answers[side] = ask_flows(bf, names[side], list(flows))
    return answers


# --- reports --------------------------------------------------------------------------------

HOW_TO_READ = (
    "Batfish compared the ACLs and firewall rules of the current configs (base) with the "
    "proposed ones (change), without touching any device. Each entry below is a kind of "
    "traffic that is treated differently after the change: 'example flow' is one concrete "
    "packet of that kind, 'ACL line' is the rule that now decides it, 'before' is the rule "
    "that decided it until now. A policy violation is a newly allowed flow that the network "
    "intent forbids."
)


def _verdict(result: ReviewResult) -> str:
    if result.status == Status.SKIPPED:
        return f"SKIPPED — the review did not run: {result.reason}"
    if result.violations:
        return (f"FAIL — the change violates the network policy "
                f"({len(result.violations)} violation(s)). Do not deploy it as is.")
    return "PASS — the change breaks no policy rule."


def _dedupe_changes(changes: list[FlowChange]) -> list[FlowChange]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for c in changes:
        key = (c.kind, c.device, c.acl, c.line, c.flow)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def review_markdown(result: ReviewResult) -> str:
    out = ["# ACL review", "", f"**{_verdict(result)}**", "", HOW_TO_READ, ""]
    out += ["## Policy violations", ""]
    if not result.violations:
        out.append("None.")
    for v in result.violations:
        c = v.change
        out.append(f"- **{v.rule}**: {v.message}. Device {c.device}, ACL {c.acl}, line "
                   f"`{c.line}`; example flow: {c.flow}")
    for title, kind in (("Newly permitted flows", PERMITTED), ("Newly denied flows", DENIED)):
        items = _dedupe_changes([c for c in result.changes if c.kind == kind])
        out += ["", f"## {title}", ""]
        if not items:
            out.append("None.")
            continue
        out += ["| Device | ACL | ACL line (change) | Before | Example flow |",
                "|---|---|---|---|---|"]
        for c in items:
            cells = [c.device, c.acl or "-", f"`{c.line}`" if c.line else "-",
                     f"`{c.previous_line}`" if c.previous_line else "-", c.flow or "-"]
            out.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    return "\n".join(out) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.35em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{background:#f6f6f6;padding:0 .2em}
.verdict{padding:.8em 1em;border-radius:.4em;font-weight:bold}
.FAIL{background:#fde2e2}.PASS{background:#e2f5e2}.SKIPPED{background:#fff4d6}
.violation{color:#a00000;font-weight:bold}"""


def review_html(result: ReviewResult) -> str:
    """A self-contained page (inline CSS, no scripts or external links)."""
    e = html.escape
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>ACL review</title>",
             f"<style>{_CSS}</style></head><body><h1>ACL review</h1>",
             f"<p class='verdict {e(str(result.status))}'>{e(_verdict(result))}</p>",
             f"<p>{e(HOW_TO_READ)}</p><h2>Policy violations</h2>"]
    if result.violations:
        parts.append("<table><tr><th>Rule</th><th>What is wrong</th><th>Device</th><th>ACL</th>"
                     "<th>ACL line</th><th>Example flow</th></tr>")
        for v in result.violations:
            c = v.change
            parts.append(f"<tr><td class='violation'>{e(v.rule)}</td><td>{e(v.message)}</td>"
                         f"<td>{e(c.device)}</td><td>{e(c.acl or '-')}</td>"
                         f"<td><code>{e(c.line or '-')}</code></td><td>{e(c.flow or '-')}</td>"
                         "</tr>")
        parts.append("</table>")
    else:
        parts.append("<p>None.</p>")
    for title, kind in (("Newly permitted flows", PERMITTED), ("Newly denied flows", DENIED)):
        items = _dedupe_changes([c for c in result.changes if c.kind == kind])
        parts.append(f"<h2>{e(title)}</h2>")
        if not items:
            parts.append("<p>None.</p>")
            continue
        parts.append("<table><tr><th>Device</th><th>ACL</th><th>ACL line (change)</th>"
                     "<th>Before</th><th>Example flow</th></tr>")
        for c in items:
            parts.append(f"<tr><td>{e(c.device)}</td><td>{e(c.acl or '-')}</td>"
                         f"<td><code>{e(c.line or '-')}</code></td>"
                         f"<td><code>{e(c.previous_line or '-')}</code></td>"
                         f"<td>{e(c.flow or '-')}</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "".join(parts)


def write_review(result: ReviewResult, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"md": out_dir / "review.md", "html": out_dir / "review.html",
             "json": out_dir / "review.json"}
    files["md"].write_text(review_markdown(result))
    files["html"].write_text(review_html(result))
    files["json"].write_text(json.dumps(result.to_dict(), indent=2, default=str) + "\n")
    result.files = files
    return files
