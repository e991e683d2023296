"""The review's result, the CI gate and its first screen: acl_review.json and acl_review.md."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from boothnet.derive.policy import ESSENTIAL_ICMPV6
from boothnet.intent.model import Network
from boothnet.status import Status
from boothnet.verify.acl_review.endtoend import DepthChange, FateChange, RuleState, grouped
from boothnet.verify.acl_review.model import DENIED, PERMITTED, AclFinding, ZoneMap, gate_reason
from boothnet.verify.batfish.review import FlowChange

GATE_EXIT = 3  # a flow newly permitted end to end into `secure`, or research <-> production
OFFLINE, BATFISH = "offline evaluation", "Batfish"


@dataclass(frozen=True)
class AddressRule:
    """A rule admitting listed hosts into the secured network by their addresses, and each
    host's port: bound to its MAC and address, or open to any host that takes the address."""

    rule: str
    ports: dict[str, str]  # host -> "core1:Fa1/0/2 bound to 02:00:..." or "core1:Fa1/0/2 UNBOUND"

    @property
    def unbound(self) -> list[str]:
        return [host for host, port in self.ports.items() if port.endswith(" UNBOUND")]

    @classmethod
    def of(cls, net: Network) -> list[AddressRule]:
        return [cls(rule.name, {h.name: f"{h.attach} bound to {h.mac_address}" if net.port_bound(h)
                                else f"{h.attach} UNBOUND" for h in hosts})
                for _index, rule, hosts in net.address_rules()]


@dataclass
class AclReview:
    network: str
    base: str  # the ref, as given
    head: str  # a ref, or "working tree"
    method: str  # OFFLINE or BATFISH
    batfish: str  # "SKIPPED: <why>" or "ran at <host>"
    findings: list[AclFinding] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    configs: dict[str, str] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    # With Batfish: changes only one method found (the offline evaluator runs beside it).
    disagreements: list[str] = field(default_factory=list)
    # Batfish-only changes its view explains (not disagreements): spoofed booth sources at a WAN port
    view_notes: list[str] = field(default_factory=list)
    # Each side's compiled ACLs against its own policy (verify.policy): "base"/"head" -> mismatches
    against_intent: dict[str, list[str]] = field(default_factory=dict)
    # head's rules that admit listed hosts into the secured network by address: what each rests on
    address_rules: list[AddressRule] = field(default_factory=list)
    # end to end (the gate): flows whose fate changed, and still-denied flows that lost or gained a layer
    flow_changes: list[FateChange] = field(default_factory=list)
    depth: list[DepthChange] = field(default_factory=list)
    # head's permit rules: what their replies rest on (conntrack, or a stateless ACL's own line)
    states: list[RuleState] = field(default_factory=list)
    # head's IPv6 ACLs: "device ACL" -> the ICMPv6 types IPv6 needs that it does not permit first
    icmpv6: dict[str, list[str]] = field(default_factory=dict)

    @property
    def permitted(self) -> list[AclFinding]:
        return [f for f in self.findings if f.kind == PERMITTED]

    @property
    def denied(self) -> list[AclFinding]:
        return [f for f in self.findings if f.kind == DENIED]

    @property
    def gated(self) -> list[FateChange]:
        """The flows the gate stops on: newly permitted end to end where security must sign off."""
        return [c for c in self.flow_changes if c.gate]

    @property
    def flows_permitted(self) -> list[FateChange]:
        return [c for c in self.flow_changes if c.kind == PERMITTED]

    @property
    def flows_denied(self) -> list[FateChange]:
        return [c for c in self.flow_changes if c.kind == DENIED]

    @property
    def disagree(self) -> list[FateChange]:
        return [c for c in self.flow_changes if c.batfish.startswith("DISAGREES")]

    @property
    def head_contradicts_intent(self) -> list[str]:
        return self.against_intent.get("head", [])

    @property
    def replies_die(self) -> list[str]:
        """Head's flows permitted end to end whose replies a stateless ACL drops on the way back."""
        return [line for state in self.states for line in state.dead]

    @property
    def exit_code(self) -> int:
        return GATE_EXIT if self.gated or self.head_contradicts_intent or self.replies_die else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "network": self.network,
            "base": self.base,
            "head": self.head,
            "method": self.method,
            "batfish": self.batfish,
            "gate": {
                "status": str(Status.of(not self.exit_code)),
                "exit_code": self.exit_code,
                "needs_sign_off": len(self.gated),
            },
            "counts": {"flows_newly_permitted": len(self.flows_permitted),
                       "flows_newly_denied": len(self.flows_denied),
                       "defence_in_depth": sum(len(d.flows) for d in self.depth),
                       "newly_permitted": len(self.permitted), "newly_denied": len(self.denied), **self.stats},
            "end_to_end": {"newly_permitted": [c.to_dict() for c in self.flows_permitted],
                           "newly_denied": [c.to_dict() for c in self.flows_denied],
                           "defence_in_depth": [d.to_dict() for d in self.depth]},
            "state_model": [state.to_dict() for state in self.states],
            "icmpv6_essential_missing": {acl: missing for acl, missing in self.icmpv6.items() if missing},
            "newly_permitted": [f.to_dict() for f in self.permitted],
            "newly_denied": [f.to_dict() for f in self.denied],
            "disagreements": self.disagreements,
            "batfish_view_notes": self.view_notes,
            "compiled_against_intent": self.against_intent,
            "configs": self.configs,
            "address_rules": [asdict(a) for a in self.address_rules],
        }


def apply_gate(findings: list[AclFinding]) -> list[AclFinding]:
    for f in findings:
        f.gate = gate_reason(f)
    return findings


def from_batfish(changes: list[FlowChange], zones: ZoneMap) -> list[AclFinding]:
    """Batfish's differential changes as review findings (zones from the intents)."""
    return apply_gate(
        [
            AclFinding(
                kind=c.kind,
                device=c.device,
                acl=c.acl,
                src_ip=c.src_ip,
                dst_ip=c.dst_ip,
                proto=(c.proto or "").lower() or None,
                port=c.port,
                line=c.line,
                previous_line=c.previous_line,
                src_zone=zones.zone(c.src_ip),
                dst_zone=zones.zone(c.dst_ip),
                flow=c.flow,
                source=f"Batfish {c.source}",
            )
            for c in changes
        ]
    )


def reconcile(batfish: list[AclFinding], offline: list[AclFinding]) -> tuple[list[AclFinding], list[str]]:
    """Batfish's rows, each given the policy rule behind it from the offline evaluator's row for
    the same change (so both group into the same rows), and every change that only one method
    found, in words. A change is (newly permitted or denied, device, ACL)."""
    by_key: dict[tuple[str, str, str | None], AclFinding] = {}
    for f in offline:
        by_key.setdefault((f.kind, f.device, f.acl), f)
    seen: set[tuple[str, str, str | None]] = set()
    disagreements = []
    for f in batfish:
        key = (f.kind, f.device, f.acl)
        seen.add(key)
        match = by_key.get(key)
        if match is None:
            disagreements.append(f"Batfish only: {f.kind} at {f.device} {f.acl} ({f.flow_text()}); "
                                 "the offline evaluator sees no change there")
            continue
        f.rule, f.previous_rule = match.rule, match.previous_rule
        f.interface, f.direction = match.interface, match.direction
    for key, f in by_key.items():
        if key not in seen:
            disagreements.append(f"offline only: {f.kind} at {f.device} {f.acl} ({f.flow_text()}); "
                                 "Batfish sees no change there")
    return batfish, disagreements


# --- first screen ---------------------------------------------------------------------------


def _groups(findings: list[AclFinding]) -> list[list[AclFinding]]:
    """The same change seen at several ACLs (one per research VLAN, say) is one row."""
    groups: dict[tuple[Any, ...], list[AclFinding]] = {}
    for f in findings:
        key: tuple[Any, ...] = (f.gate is None, f.device, f.rule, f.previous_rule, f.proto, f.dst_ip, f.src_zone,
                                f.dst_zone)
        if f.rule is None and f.previous_rule is None:
            key += (f.acl, f.line, f.src_ip)  # Batfish rows carry no policy rule: keep them apart
        groups.setdefault(key, []).append(f)
    return sorted(groups.values(), key=lambda g: (g[0].gate is None, g[0].device, g[0].acl or ""))


def _cell(text: str | None) -> str:
    return f"`{text}`".replace("|", "\\|") if text else "-"


def _table(findings: list[AclFinding], kind: str) -> list[str]:
    if not findings:
        return ["None."]
    out = [
        "| Sign-off | Device | ACL | Example flow (src -> dst, proto/port) | Line now | Line before | Also at |",
        "|---|---|---|---|---|---|---|",
    ]
    for group in _groups(findings):
        f = group[0]
        acls = sorted({g.acl or "-" for g in group[1:]} - {f.acl or "-"})
        also = f"{len(group) - 1} more: " + ", ".join(acls[:4]) + (" ..." if len(acls) > 4 else "") if acls else "-"
        if len(group) > 1 and not acls:
            also = f"{len(group) - 1} more flow(s) in {f.acl}"
        sign = f"**YES** ({f.gate})" if f.gate else "no"
        rule = f" (rule {f.rule})" if f.rule else ""
        ports = sorted({g.port for g in group if g.port is not None})
        flow = f.flow_text() + (f" (same for ports {', '.join(map(str, ports))})" if len(ports) > 1 else "")
        cells = [sign, f.device, f.acl or "-", flow, _cell(f.line) + rule, _cell(f.previous_line), also]
        out.append("| " + " | ".join(c.replace("\n", " ") for c in cells) + " |")
    return out


def _names(values: list[str], most: int = 4) -> str:
    unique = list(dict.fromkeys(values))
    return ", ".join(unique[:most]) + (f" and {len(unique) - most} more" if len(unique) > most else "")


def _flow_table(changes: list[FateChange]) -> list[str]:
    if not changes:
        return ["None."]
    out = ["| Sign-off | From | To | Proto/port | Family | Flows | Example flow | Before -> now (offline) | "
           "Batfish | What decides it now |", "|---|---|---|---|---|---|---|---|---|---|"]
    for group in grouped(changes):
        c = group[0]
        ports = sorted({g.port for g in group if g.port is not None})
        service = c.proto + (f" {', '.join(map(str, ports))}" if ports else "")
        sign = f"**YES** ({c.gate})" if c.gate else "no"
        routing = " (by routing)" if c.by_routing else ""
        verdicts = sorted({g.batfish.split(":")[0] for g in group})
        batfish = "; ".join(f"{v}: {sum(1 for g in group if g.batfish.split(':')[0] == v)}" for v in verdicts)
        disagree = next((g.batfish for g in group if g.batfish.startswith("DISAGREES")), None)
        src = c.source if not c.src_vlan else f"{c.src_zone} ({_names([g.src_vlan or '' for g in group])})"
        dst = f"{c.dst_zone} ({_names([g.dst_vlan or 'outside' for g in group])})"
        rules = f" (rule {', '.join(c.rules)})" if c.rules else ""
        cells = [sign, src, dst, service, f"IPv{c.family}", str(len(group)), c.flow, f"{c.base} -> {c.head}{routing}",
                 batfish + (f" ({disagree})" if disagree else ""), "; ".join(c.decided_by) + rules]
        out.append("| " + " | ".join(x.replace("|", "\\|").replace("\n", " ") for x in cells) + " |")
    return out


def _depth_table(depth: list[DepthChange]) -> list[str]:
    if not depth:
        return ["None."]
    out = ["| Layer lost | Layer added | From | To | Family | Flows now resting on one ACL fewer | "
           "Still stopped at | Example flow | Batfish (example flow) |", "|---|---|---|---|---|---|---|---|---|"]
    for d in sorted(depth, key=lambda d: (not d.lost, d.src_zone or "", d.dst_zone or "")):
        cells = [", ".join(d.lost) or "-", ", ".join(d.added) or "-", d.src_zone or "any", d.dst_zone or "any",
                 f"IPv{d.family}", str(len(d.flows) if d.lost else 0), ", ".join(d.still_stopped_at), d.flows[0],
                 d.batfish]
        out.append("| " + " | ".join(cells) + " |")
    return out


def _icmpv6_lines(icmpv6: dict[str, list[str]]) -> list[str]:
    """What every IPv6 ACL of head keeps for IPv6 itself, ahead of any rule (none: an IPv4-only intent)."""
    if not icmpv6:
        return []
    missing = {acl: types for acl, types in icmpv6.items() if types}
    return ["## ICMPV6 THAT IPV6 NEEDS", "",
            f"Every IPv6 ACL permits, ahead of any rule, what IPv6 cannot work without: "
            f"{', '.join(ESSENTIAL_ICMPV6)} (neighbour and router discovery on the link, Packet Too Big along "
            "every path: IPv6 routers do not fragment). No policy rule can deny them.", "",
            *([f"- **WARNING**: {acl} does not permit {', '.join(types)}" for acl, types in sorted(missing.items())]
              or [f"- all {len(icmpv6)} IPv6 ACLs of head keep them"]), ""]


def _state_table(states: list[RuleState]) -> list[str]:
    if not states:
        return ["None: head permits no flow through an ACL."]
    out = ["| Rule | Family | Flows | Stateful on the way back | Stateless ACLs carrying the replies "
           "(example line) | Replies die |", "|---|---|---|---|---|---|"]
    for st in states:
        carried = "; ".join(f"{name} ({len(lines)} line(s), e.g. `{sorted(lines)[0]}`)"
                            for name, lines in sorted(st.carried.items())[:3])
        if len(st.carried) > 3:
            carried += f"; and {len(st.carried) - 3} more ACLs"
        dead = f"**{len(st.dead)}**" if st.dead else "0"
        out.append(f"| {st.rule} | IPv{st.family} | {st.flows} | {', '.join(sorted(st.stateful)) or '-'} | "
                   f"{carried or '-'} | {dead} |")
    return out


HOW_TO_READ = (
    "The gate is end to end: each representative flow (one address per VLAN, every host an ACL "
    "names, one outside address, every protocol/port a rule names plus an unlisted port and ping) "
    "is walked from its source to its destination, hop by hop (routing, every ACL on the way, the "
    "VPN), in base and in head. NEWLY PERMITTED END TO END lists the flows that now get through "
    "and did not: from where to where, the example flow, what stopped it before and what lets it "
    "through now. Sign-off YES (into the secured network, or between research and production) makes "
    "the command exit with status 3 so CI stops the deploy until security staff have looked. "
    "DEFENCE IN DEPTH lists flows whose fate did not change but that are now stopped by one ACL "
    "fewer (or more): not a breach, a layer gone. ACL BY ACL is the detail per device and ACL."
)


def review_markdown(r: AclReview) -> str:
    gated = r.gated
    into_secure = sum(1 for f in gated if f.dst_zone == "secure")
    from_outside = sum(1 for f in gated if f.dst_zone != "secure" and f.src_zone == "outside")
    if gated:
        verdict = (
            f"**GATE: FAIL (exit {GATE_EXIT})**: {len(gated)} flow(s) newly permitted end to end need security "
            f"sign-off ({into_secure} into the secured network, {len(gated) - into_secure - from_outside} between "
            f"research and production, {from_outside} into the booth from outside)."
        )
    elif r.head_contradicts_intent:
        verdict = (f"**GATE: FAIL (exit {GATE_EXIT})**: head's compiled ACLs decide "
                   f"{len(r.head_contradicts_intent)} flow(s) otherwise than its own policy.")
    elif r.replies_die:
        verdict = (f"**GATE: FAIL (exit {GATE_EXIT})**: head permits {len(r.replies_die)} flow(s) whose replies a "
                   "stateless ACL drops on the way back (see STATE MODEL).")
    else:
        verdict = (
            "**GATE: PASS (exit 0)**: no flow newly permitted end to end into the secured network, between "
            "research and production, or into the booth from outside."
        )
    offline = (f"offline evaluation, end to end: {r.stats.get('e2e_flows', 0)} representative flows walked hop by hop "
               "(IPv6: along the intended path's ACLs)")
    if r.method == OFFLINE:
        method = (
            f"{offline}; per ACL: {r.stats.get('flows', 0)} flows against {r.stats.get('acls', 0)} ACLs. "
            "Batfish: **SKIPPED** (did not run, not a pass): "
            f"{(r.batfish.partition(': ')[2] or r.batfish).rstrip('.')}"
        )
    else:
        method = (f"{offline}, beside Batfish's differentialReachability on both snapshots (and compareFilters, "
                  f"searchFilters per ACL), {r.batfish}")
    depth_flows = sum(len(d.flows) for d in r.depth if d.lost)
    out = [
        f"# ACL review: {r.network}",
        "",
        verdict,
        "",
        f"Base `{r.base}` -> head {r.head if r.head == 'working tree' else f'`{r.head}`'}. Method: {method}.",
        "",
        "| Flows newly permitted | Need sign-off | Flows newly denied | Resting on one ACL fewer | "
        "Batfish disagrees |",
        "|---|---|---|---|---|",
        f"| {len(r.flows_permitted)} | {len(gated)} | {len(r.flows_denied)} | {depth_flows} | {len(r.disagree)} |",
        "",
        "## NEWLY PERMITTED END TO END (what newly gets through, from where to where)",
        "",
        *_flow_table(r.flows_permitted),
        "",
        "## NEWLY DENIED END TO END",
        "",
        *_flow_table(r.flows_denied),
        "",
        "## DEFENCE IN DEPTH (what lost a layer; no flow's fate changed)",
        "",
        *_depth_table(r.depth),
        "",
        "## STATE MODEL: WHAT EACH PERMIT'S REPLIES REST ON",
        "",
        "A device that tracks connections (frr_linux: nftables conntrack) admits a permitted flow's replies "
        "by itself; a stateless one (IOS, EOS: `stateful_acls: false`) admits them only by a line of their own "
        "in the ACL the replies meet (an `established` TCP segment, the service's UDP source port, an echo "
        "reply). For each of head's permit rules, over the representative flows it lets through end to end:",
        "",
        *_state_table(r.states),
        *[f"- **REPLIES DIE**: {line}" for line in r.replies_die[:20]],
        *([f"- ... and {len(r.replies_die) - 20} more in acl_review.json"] if len(r.replies_die) > 20 else []),
        "",
        *_icmpv6_lines(r.icmpv6),
        "## COMPILED AGAINST INTENT",
        "",
        "Each side's compiled ACLs against its own policy, for every representative flow at every ACL on "
        "its path (the verify stage's policy check, offline):",
        "",
        *[f"- {side}: " + (f"{len(found)} flow(s) decided otherwise than the policy" if found else "equal")
          for side, found in sorted(r.against_intent.items())],
        *[f"  - {line}" for line in r.head_contradicts_intent[:20]],
        "",
        "## ADDRESS RULES: WHAT THEY REST ON",
        "",
        "Head's rules that admit listed hosts into the secured network match their source addresses only; "
        "a host on the same VLAN that takes a listed host's address passes them unless the listed host's "
        "port is bound to its MAC and address (`bind_hosts`):",
        "",
        *([f"- `{a.rule}`: " + "; ".join(f"{host} on {port}" for host, port in a.ports.items())
           for a in r.address_rules] or ["- none"]),
        *[f"- **WARNING**: `{a.rule}` rests on unbound ports: {', '.join(a.unbound)}"
          for a in r.address_rules if a.unbound],
        "",
        "## ACL BY ACL (detail: each ACL that treats some flow differently)",
        "",
        "### Newly permitted at an ACL",
        "",
        *_table(r.permitted, PERMITTED),
        "",
        "### Newly denied at an ACL",
        "",
        *_table(r.denied, DENIED),
        "",
        *(["## DISAGREEMENT between Batfish and the offline evaluator", "",
            *[f"- {d}" for d in r.disagreements], ""] if r.disagreements else []),
        *(["## Batfish-only changes its view explains", "",
           "A packet with a booth VLAN's source address arriving at a gateway other than from that VLAN (a "
           "spoofed source, not through the VPN's tunnel): the frr_linux gateways admit the VPN's flows only "
           "when they came through the tunnel (`meta ipsec exists`), which the Batfish view (IOS) cannot say:",
           "",
           *[f"- {n}" for n in r.view_notes], ""] if r.view_notes else []),
        "## How to read this",
        "",
        HOW_TO_READ,
    ]
    if r.configs:
        out += ["", "Rendered configs: " + ", ".join(f"{k} `{v}`" for k, v in sorted(r.configs.items())) + "."]
    return "\n".join(out) + "\n"


def write_review(r: AclReview, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"json": out_dir / "acl_review.json", "md": out_dir / "acl_review.md"}
    files["json"].write_text(json.dumps(r.to_dict(), indent=2, default=str) + "\n")
    files["md"].write_text(review_markdown(r))
    r.files = files
    return files


def review_facts(r: AclReview) -> dict[str, object]:
    """What the boothnet_acl_review task returns."""
    return {
        "gate": str(Status.of(not r.exit_code)),
        "method": r.method,
        "batfish": r.batfish,
        "flows_newly_permitted": len(r.flows_permitted),
        "flows_newly_denied": len(r.flows_denied),
        "newly_permitted": len(r.permitted),
        "newly_denied": len(r.denied),
        "needs_sign_off": len(r.gated),
        "report": str(r.files["md"]),
        "markdown": review_markdown(r),
    }
