"""MTUs: both ends of every link alike, and the path MTU of the intent's declared flows."""

from __future__ import annotations

from typing import Any

import pandas as pd

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.intent import IfaceRef, VerifyIntent
from boothnet.verify.batfish.report import Finding, Severity


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

