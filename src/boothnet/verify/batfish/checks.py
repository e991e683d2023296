"""Turn Batfish answer frames plus the intent into located findings.

Every function takes DataFrames exactly as `bf.q.<question>().answer().frame()`
returns them (or `TableAnswer(json).frame()` for recorded answers) and returns a
list of Finding; an empty list means the check passed.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.intent import IfaceRef, VerifyIntent, ip_in
from boothnet.verify.batfish.report import Finding, Severity

# Check name -> title, in report order.
CHECKS: dict[str, str] = {
    "parsing": "Configs parse cleanly",
    "unused": "No unused structures",
    "references": "No undefined references",
    "vlans": "VLANs on every switch that carries them",
    "mtu": "Same MTU on both ends of every link",
    "isolation": "Research and production isolated",
    "secure_network": "Secured network only from listed clients",
    "acl_lines": "No unreachable ACL lines",
    "ipsec": "IPsec sessions established",
    "ospf": "OSPF neighbours compatible",
    "path_mtu": "Path MTU of declared flows",
}


def _action_col(frame: pd.DataFrame) -> str | None:
    for c in ("Action", "Snapshot_Action"):
        if c in frame.columns:
            return c
    return None


def _traces_col(frame: pd.DataFrame) -> str | None:
    for c in ("Traces", "Snapshot_Traces"):
        if c in frame.columns:
            return c
    return None


def _line_col(frame: pd.DataFrame) -> str | None:
    for c in ("Line_Content", "Snapshot_Line_Content"):
        if c in frame.columns:
            return c
    return None


# --- parsing ----------------------------------------------------------------------------------


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


# --- references -------------------------------------------------------------------------------


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


# --- VLANs ------------------------------------------------------------------------------------


def parse_vlan_list(text: Any) -> set[int]:
    """'10,20,110-111' -> {10, 20, 110, 111}; empty or None -> empty set."""
    out: set[int] = set()
    for part in str(text or "").replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.update(range(int(lo), int(hi) + 1))
        else:
            out.add(int(part))
    return out


def declared_vlans(config_text: str) -> set[int]:
    """VLANs declared with top-level `vlan <ids>` lines (IOS and EOS)."""
    out: set[int] = set()
    for line in config_text.splitlines():
        m = re.fullmatch(r"vlan\s+([\d,\-\s]+)", line.strip()) if not line[:1].isspace() else None
        if m:
            out |= parse_vlan_list(m.group(1))
    return out


def trunks(iface_props: pd.DataFrame) -> dict[IfaceRef, set[int]]:
    """Trunk interface -> VLANs it carries."""
    out: dict[IfaceRef, set[int]] = {}
    for r in fr.rows(iface_props):
        if str(r.get("Switchport_Mode")) == "TRUNK":
            ref = fr.iface(r["Interface"])
            if ref:
                out[ref] = parse_vlan_list(r.get("Allowed_VLANs"))
    return out


def check_vlans(
    vlan_props: pd.DataFrame,
    iface_props: pd.DataFrame,
    intent: VerifyIntent,
    configs: dict[str, str] | None = None,
) -> list[Finding]:
    """Each switch has its intended VLANs; every VLAN a trunk carries exists on both ends."""
    present = {(str(r["Node"]), int(r["VLAN_ID"])) for r in fr.rows(vlan_props)}
    wanted = {v for s in intent.switches for v in s.vlans}
    found: list[Finding] = []
    for sw in intent.switches:
        for v in sorted(set(sw.vlans)):
            if (sw.node, v) not in present:
                found.append(Finding(
                    "vlans", sw.node, f"VLAN {v} is missing: the intent puts it on this switch",
                    location=f"VLAN {v}"))
    trunk_vlans = trunks(iface_props)
    for ref, carried in sorted(trunk_vlans.items(), key=lambda x: x[0].spec()):
        # A default "all VLANs" trunk would flood the list: judge only VLANs the intent knows.
        for v in sorted(carried & wanted):
            if configs and ref.node in configs and v not in declared_vlans(configs[ref.node]):
                found.append(Finding(
                    "vlans", ref.node,
                    f"trunk {ref.interface} carries VLAN {v} but the switch does not define it",
                    location=ref.interface))
            elif (ref.node, v) not in present:
                found.append(Finding(
                    "vlans", ref.node,
                    f"trunk {ref.interface} carries VLAN {v} but the VLAN is not on the switch",
                    location=ref.interface))
    for link in intent.links:
        a, b = trunk_vlans.get(link.a), trunk_vlans.get(link.b)
        if a is None or b is None:
            continue
        for v in sorted((a ^ b) & wanted):
            has, lacks = (link.a, link.b) if v in a else (link.b, link.a)
            found.append(Finding(
                "vlans", lacks.node,
                f"VLAN {v} is allowed on {has} but not on the other end {lacks}: "
                "traffic in that VLAN stops at this cable",
                location=lacks.interface))
    return found


# --- MTU --------------------------------------------------------------------------------------


def mtus(iface_props: pd.DataFrame) -> dict[IfaceRef, int]:
    out: dict[IfaceRef, int] = {}
    for r in fr.rows(iface_props):
        ref = fr.iface(r["Interface"])
        if ref and r.get("MTU") is not None:
            out[ref] = int(r["MTU"])
    return out


def check_mtu(
    iface_props: pd.DataFrame, l3_edges: pd.DataFrame | None, intent: VerifyIntent
) -> list[Finding]:
    """Equal MTU at both ends of every intent cable and every layer-3 edge; intent MTU met."""
    mtu = mtus(iface_props)
    found: list[Finding] = []
    done: set[frozenset[IfaceRef]] = set()
    for link in intent.links:
        done.add(frozenset((link.a, link.b)))
        ma, mb = mtu.get(link.a), mtu.get(link.b)
        missing = [e for e, m in ((link.a, ma), (link.b, mb)) if m is None]
        for e in missing:
            found.append(Finding("mtu", e.node, f"interface {e.interface} of the intent's link "
                                 f"{link.a} <-> {link.b} is not in the Batfish model",
                                 location=e.interface))
        if missing:
            continue
        want = f" (intent: {link.mtu})" if link.mtu else ""
        if ma != mb:
            found.append(Finding(
                "mtu", link.a.node,
                f"MTU differs on the two ends of a link: {link.a} has {ma}, {link.b} has {mb}"
                f"{want}; frames larger than the smaller MTU are dropped",
                location=f"{link.a.interface} <-> {link.b}"))
        elif link.mtu and ma != link.mtu:
            found.append(Finding(
                "mtu", link.a.node,
                f"link {link.a} <-> {link.b} has MTU {ma} on both ends, intent says {link.mtu}",
                location=f"{link.a.interface} <-> {link.b}"))
    for r in fr.rows(l3_edges):
        a, b = fr.iface(r["Interface"]), fr.iface(r["Remote_Interface"])
        if not a or not b or frozenset((a, b)) in done:
            continue
        done.add(frozenset((a, b)))
        ma, mb = mtu.get(a), mtu.get(b)
        if ma is not None and mb is not None and ma != mb:
            found.append(Finding(
                "mtu", a.node,
                f"MTU differs on the two ends of a layer-3 link: {a} has {ma}, {b} has {mb}",
                location=f"{a.interface} <-> {b}", row=r))
    return found


# --- isolation and the secured network --------------------------------------------------------


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


# --- ACL lines --------------------------------------------------------------------------------


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


# --- IPsec ------------------------------------------------------------------------------------

ESTABLISHED = "IPSEC_SESSION_ESTABLISHED"


def check_ipsec(frame: pd.DataFrame, intent: VerifyIntent) -> list[Finding]:
    """Each intent gateway pair has an IPsec session, established, in both directions."""
    status: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for r in fr.rows(frame):
        status[(str(r["Node"]), str(r["Remote_Node"]))] = (str(r["Status"]), r)
    found: list[Finding] = []
    for a, b in intent.vpn_gateways:
        for x, y in ((a, b), (b, a)):
            got = status.get((x, y))
            if got is None:
                found.append(Finding(
                    "ipsec", x, f"no IPsec session from {x} to {y} in the model: the VPN "
                    "peers do not match (peer address, keys or crypto map)", location=f"to {y}"))
            elif got[0] != ESTABLISHED:
                r = got[1]
                where = fr.iface(r.get("Node_Interface"))
                found.append(Finding(
                    "ipsec", x, f"IPsec session {x} -> {y} is {got[0]}, not established",
                    location=where.interface if where else None, row=r))
    return found


# --- OSPF -------------------------------------------------------------------------------------


OSPF_ESTABLISHED = "ESTABLISHED"


def check_ospf(frame: pd.DataFrame) -> list[Finding]:
    """Every OSPF session Batfish finds between neighbours is ESTABLISHED; one finding per pair
    (timers, area, network type or MTU that differ, as Batfish's Session_Status names it)."""
    found: list[Finding] = []
    seen: set[frozenset[str]] = set()
    for r in fr.rows(frame):
        state = str(r.get("Session_Status"))
        local, remote = fr.iface(r.get("Interface")), fr.iface(r.get("Remote_Interface"))
        if state == OSPF_ESTABLISHED or local is None or remote is None:
            continue
        pair = frozenset((local.spec(), remote.spec()))
        if pair in seen:
            continue
        seen.add(pair)
        found.append(Finding(
            "ospf", local.node, f"OSPF between {local} and {remote} cannot form: {state} "
            "(hello/dead timers, area, network type and MTU must match on both ends)",
            location=local.interface, row=r))
    return found


# --- path MTU ---------------------------------------------------------------------------------


def effective_mtus(
    iface_props: pd.DataFrame, configs: dict[str, str] | None
) -> dict[IfaceRef, int]:
    """Batfish's MTU, lowered by `ip mtu` from the config text (which Batfish does not report)."""
    out = mtus(iface_props)
    for node, text in (configs or {}).items():
        for name, body in fr.interface_stanzas(text).items():
            ipm = fr.ip_mtu(body)
            ref = IfaceRef(node, name)
            if ipm is not None:
                out[ref] = min(ipm, out.get(ref, ipm))
    return out


def _clamped(configs: dict[str, str] | None, ref: IfaceRef) -> bool | None:
    """True/False when the interface has/lacks MSS clamping; None without its config text."""
    if not configs or ref.node not in configs:
        return None
    text = configs[ref.node]
    body = fr.interface_stanzas(text).get(ref.interface)
    if body is None:
        # frr_linux: nftables clamps per chain, not per interface stanza.
        return fr.config_has_mss_clamp(text)
    return fr.has_mss_clamp(body)


def check_path_mtu(
    traces: dict[str, pd.DataFrame],
    iface_props: pd.DataFrame,
    intent: VerifyIntent,
    configs: dict[str, str] | None = None,
) -> list[Finding]:
    """Per declared flow: min MTU over its traced hops >= intent, and MSS clamping where it drops.

    `traces` maps each PathFlow name to its traceroute answer.
    """
    mtu = effective_mtus(iface_props, configs)
    found: list[Finding] = []
    for pf in intent.flows:
        frame = traces.get(pf.name)
        if frame is None or frame.empty:
            found.append(Finding("path_mtu", pf.src_node,
                                 f"flow '{pf.name}' was not traced", location=pf.name))
            continue
        for r in fr.rows(frame):
            for trace in fr.as_list(r.get("Traces")):
                found += _path_findings(pf, r, trace, mtu, configs)
        for ref in pf.mss_clamp_at:
            if _clamped(configs, ref) is False:
                found.append(Finding(
                    "path_mtu", ref.node,
                    f"flow '{pf.name}': the intent wants TCP MSS clamping here "
                    "(e.g. `ip tcp adjust-mss`) and none is configured",
                    location=ref.interface))
    unique: dict[tuple[Any, ...], Finding] = {}
    for f in found:
        unique.setdefault((f.device, f.location, f.message, f.severity), f)
    return list(unique.values())


def _path_findings(pf: Any, row: dict[str, Any], trace: Any, mtu: dict[IfaceRef, int],
                   configs: dict[str, str] | None) -> list[Finding]:
    path = [IfaceRef(n, i) for n, i, _ in fr.trace_interfaces(trace)]
    if pf.src_interface:
        start = IfaceRef(pf.src_node, pf.src_interface)
        if start not in path[:1]:
            path.insert(0, start)
    known = [(ref, mtu[ref]) for ref in path if ref in mtu]
    flow = fr.flow_text(row.get("Flow"))
    found: list[Finding] = []
    disp = fr.trace_disposition(trace)
    if disp not in fr.SUCCESS:
        found.append(Finding(
            "path_mtu", fr.trace_last_node(trace),
            f"flow '{pf.name}': the trace ends {disp} at {fr.trace_last_node(trace)}, so the "
            f"MTU is judged on the {len(known)} interface(s) Batfish could follow "
            "(it does not route through IPsec tunnels)",
            location=pf.name, flow=flow, severity=Severity.WARNING, row=row))
    if not known:
        return found
    low_ref, low = min(known, key=lambda x: x[1])
    if low < pf.min_mtu:
        found.append(Finding(
            "path_mtu", low_ref.node,
            f"flow '{pf.name}': path MTU is {low} at {low_ref}, below the intent's {pf.min_mtu}",
            location=low_ref.interface, flow=flow, row=row))
    # The effective path MTU falls wherever a hop goes below every MTU before it; that device
    # must clamp the TCP MSS (a later drop to an MTU already seen is covered by that clamp).
    lowest = known[0][1]
    for ref, m in known[1:]:
        if m < lowest:
            here = [r for r, _ in known if r.node == ref.node]
            if not any(_clamped(configs, r) for r in here) and any(
                _clamped(configs, r) is False for r in here
            ):
                found.append(Finding(
                    "path_mtu", ref.node,
                    f"flow '{pf.name}': MTU drops from {lowest} to {m} at {ref} and this "
                    "device has no TCP MSS clamping, so large TCP segments black-hole",
                    location=ref.interface, flow=flow, row=row))
            lowest = m
    return found
