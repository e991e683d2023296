"""The policy: research and production isolated, the secured network only from listed clients,
no unreachable ACL line."""

from __future__ import annotations

from typing import Any

import pandas as pd

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.checks.common import _action_col, _line_col, _traces_col
from boothnet.verify.batfish.intent import PolicyQuery, VerifyIntent, ip_in
from boothnet.verify.batfish.report import Finding
from boothnet.verify.policy import VERB


def permitted_flows(frame: pd.DataFrame) -> list[tuple[Any, dict[str, Any], str, str | None]]:
    """(flow, row, device, location) of every flow an answer says gets through.

    Works for searchFilters/testFilters (Action PERMIT), reachability/traceroute (a success
    trace) and their differential forms (the `Snapshot_` columns, i.e. the new snapshot).
    """
    out: list[tuple[Any, dict[str, Any], str, str | None]] = []
    act, trc, line = _action_col(frame), _traces_col(frame), _line_col(frame)
    for r in fr.rows(frame):
        flow = r.get("Flow")
        if flow is None:
            continue
        if act is not None:
            if str(r[act]).upper() != "PERMIT":
                continue
            loc = f"ACL {r.get('Filter_Name')}"
            if line and r.get(line):
                loc += f": {r[line]}"
            out.append((flow, r, str(r.get("Node")), loc))
        elif trc is not None:
            traces = fr.as_list(r[trc])
            if not fr.trace_ok(traces):
                continue
            ok = next(t for t in traces if fr.trace_disposition(t) in fr.SUCCESS)
            acls = [f"{n} {f}" for n, f, a in fr.trace_filters(ok) if a == "PERMITTED"]
            loc = ("permitted by " + ", ".join(acls)) if acls else "no ACL on the path"
            device = str(fr.flow_fields(flow)["ingressNode"] or fr.trace_last_node(ok))
            out.append((flow, r, device, f"{loc}; ends {fr.trace_disposition(ok)}"))
    return out


def check_isolation(answers: list[pd.DataFrame], intent: VerifyIntent) -> list[Finding]:
    """Any permitted flow between isolated zones that no listed service allows."""
    found: list[Finding] = []
    for frame in answers:
        for flow, r, device, loc in permitted_flows(frame):
            f = fr.flow_fields(flow)
            src, dst = intent.zone_of(f["srcIp"]), intent.zone_of(f["dstIp"])
            if not src or not dst or src.name == dst.name or not intent.is_isolated(src, dst):
                continue
            if not fr.flow_opens(flow):
                continue  # return traffic of a permitted flow (`established`, echo reply)
            if intent.service_allowed(f["srcIp"], f["dstIp"], fr.flow_proto(flow),
                                      fr.flow_port(flow)):
                continue
            if fr.flow_proto(flow) == "udp" and f["srcPort"] is not None and \
                    intent.service_allowed(f["dstIp"], f["srcIp"], "udp", int(f["srcPort"])):
                continue  # a listed UDP service's reply: a stateless ACL's return line, as `established` is for TCP
            found.append(Finding(
                "isolation", device,
                f"{src.name} can reach {dst.name}, which the intent forbids "
                "(not a listed service)",
                location=loc, flow=fr.flow_text(flow), row=r))
    return found


def check_secure_network(answers: list[pd.DataFrame], intent: VerifyIntent) -> list[Finding]:
    """Any permitted flow into the secured network from a non-listed source or service."""
    sec = intent.secure
    if sec is None:
        return []
    found: list[Finding] = []
    for frame in answers:
        for flow, r, device, loc in permitted_flows(frame):
            f = fr.flow_fields(flow)
            if not ip_in(f["dstIp"], sec.prefixes) or not fr.flow_opens(flow):
                continue
            if sec.allows(f["srcIp"], fr.flow_proto(flow), fr.flow_port(flow)):
                continue
            why = ("is not a listed client" if not ip_in(f["srcIp"], sec.clients)
                   else "is a listed client but this service is not allowed")
            found.append(Finding(
                "secure_network", device,
                f"the secured network {', '.join(sec.prefixes)} is reachable from "
                f"{f['srcIp']}, which {why}",
                location=loc, flow=fr.flow_text(flow), row=r))
    return found


def check_acl_lines(frame: pd.DataFrame) -> list[Finding]:
    """Every ACL line that can never match, with the earlier line(s) that shadow it."""
    found: list[Finding] = []
    for r in fr.rows(frame):
        blocking = [str(b) for b in fr.as_list(r.get("Blocking_Lines"))]
        reason = str(r.get("Reason") or "")
        if blocking:
            why = "earlier line(s) " + "; ".join(f"'{b}'" for b in blocking) + " match first"
            if r.get("Different_Action"):
                why += f" with the opposite action, so this {r['Unreachable_Line_Action']} " \
                       "never takes effect"
        else:
            why = {"INDEPENDENTLY_UNMATCHABLE": "the line itself can match no packet",
                   "UNDEFINED_REFERENCE": "it refers to an undefined object"}.get(reason, reason)
        if r.get("Additional_Info"):
            why += f" ({r['Additional_Info']})"
        for src in fr.as_list(r.get("Sources")):
            node, _, acl = str(src).partition(": ")
            found.append(Finding(
                "acl_lines", node, f"ACL line '{r['Unreachable_Line']}' can never match: {why}",
                location=f"ACL {acl}: {r['Unreachable_Line']}", row=r))
    return found


def check_policy_decisions(answers: list[tuple[PolicyQuery, pd.DataFrame]]) -> list[Finding]:
    """Every representative flow an ACL decides otherwise than the intent: searchFilters asked,
    per ACL, source and service, for the opposite of the intent's decision."""
    found: list[Finding] = []
    for query, frame in answers:
        for r in fr.rows(frame):
            f = fr.flow_fields(r.get("Flow"))
            line = r.get("Line_Content") or "(no line matches: the implicit deny)"
            if query.reply:
                found.append(_reply_finding(query, r, f, str(line)))
                continue
            port = None if query.proto.startswith("icmp") else int(f["dstPort"])
            service = query.proto + (f"/{port}" if port is not None else "")  # icmp: `icmp <type>` (not a ping)
            found.append(Finding(
                "policy", query.node,
                f"{f['srcIp']} -> {f['dstIp']} {service}: the intent {VERB[query.action]} it "
                f"(rule {query.rule_for(str(f['srcIp']), str(f['dstIp']), port)}), but {query.node} ACL {query.acl} "
                f"{VERB[str(r.get('Action')).lower()]} it at '{line}'",
                location=f"ACL {query.acl}: {line}", flow=fr.flow_text(r.get("Flow")), row=r))
    return found


def _reply_finding(query: PolicyQuery, r: dict[str, Any], f: dict[str, Any], line: str) -> Finding:
    """A permitted flow whose reply an ACL on its way back denies: the service does not work on
    a stateless device (the request passes, every reply dies there)."""
    port = None if query.proto == "icmp" else int(f["srcPort"])
    service = query.proto + (f"/{port}" if port is not None else "")
    requester, responder = str(f["dstIp"]), str(f["srcIp"])
    return Finding(
        "policy", query.node,
        f"{requester} -> {responder} {service}: the intent permits it "
        f"(rule {query.rule_for(responder, requester, port)}), but its reply is denied by {query.node} ACL "
        f"{query.acl} at '{line}' (a stateless ACL: the reply needs a line of its own)",
        location=f"ACL {query.acl}: {line}", flow=fr.flow_text(r.get("Flow")), row=r)
