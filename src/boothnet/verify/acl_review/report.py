"""The review's result, the CI gate and its first screen: acl_review.json and acl_review.md."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from boothnet.intent.model import Network
from boothnet.status import Status
from boothnet.verify.acl_review.model import DENIED, PERMITTED, AclFinding, ZoneMap, gate_reason
from boothnet.verify.batfish.review import FlowChange

GATE_EXIT = 3  # newly permitted into `secure`, or research <-> production
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
    # Each side's compiled ACLs against its own policy (verify.policy): "base"/"head" -> mismatches
    against_intent: dict[str, list[str]] = field(default_factory=dict)
    # head's rules that admit listed hosts into the secured network by address: what each rests on
    address_rules: list[AddressRule] = field(default_factory=list)

    @property
    def permitted(self) -> list[AclFinding]:
        return [f for f in self.findings if f.kind == PERMITTED]

    @property
    def denied(self) -> list[AclFinding]:
        return [f for f in self.findings if f.kind == DENIED]

    @property
    def gated(self) -> list[AclFinding]:
        return [f for f in self.findings if f.gate]

    @property
    def head_contradicts_intent(self) -> list[str]:
        return self.against_intent.get("head", [])

    @property
    def exit_code(self) -> int:
        return GATE_EXIT if self.gated or self.head_contradicts_intent else 0

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
            "counts": {"newly_permitted": len(self.permitted), "newly_denied": len(self.denied), **self.stats},
            "newly_permitted": [f.to_dict() for f in self.permitted],
            "newly_denied": [f.to_dict() for f in self.denied],
            "disagreements": self.disagreements,
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


HOW_TO_READ = (
    "Each row is traffic that one ACL treats differently after the change: 'example flow' is one "
    "concrete new connection of that kind, 'line now' is the ACL line that decides it in the "
    "proposed intent, 'line before' the one that decided it until now, 'also at' the other ACLs "
    "where the same change shows. Sign-off YES means the change newly permits traffic into the "
    "secured network or between research and production; the command then exits with status 3 so "
    "CI stops the deploy until security staff have looked. Newly denied rows can break a service: "
    "check that they are meant."
)


def review_markdown(r: AclReview) -> str:
    gated = r.gated
    into_secure = sum(1 for f in gated if f.dst_zone == "secure")
    if gated:
        verdict = (
            f"**GATE: FAIL (exit {GATE_EXIT})**: {len(gated)} newly permitted flow(s) need security "
            f"sign-off ({into_secure} into the secured network, {len(gated) - into_secure} between "
            "research and production)."
        )
    elif r.head_contradicts_intent:
        verdict = (f"**GATE: FAIL (exit {GATE_EXIT})**: head's compiled ACLs decide "
                   f"{len(r.head_contradicts_intent)} flow(s) otherwise than its own policy.")
    else:
        verdict = (
            "**GATE: PASS (exit 0)**: nothing newly permitted into the secured network or between research "
            "and production."
        )
    if r.method == OFFLINE:
        method = (
            f"offline evaluation with boothnet's own ACL evaluator: {r.stats.get('flows', 0)} representative "
            f"flows against {r.stats.get('acls', 0)} ACLs ({r.stats.get('decisions', 0)} decisions), first "
            "packet of each new flow, per ACL. Batfish: **SKIPPED** (did not run, not a pass): "
            f"{(r.batfish.partition(': ')[2] or r.batfish).rstrip('.')}"
        )
    else:
        method = (f"Batfish differential questions (compareFilters, searchFilters, differentialReachability), "
                  f"{r.batfish}")
    out = [
        f"# ACL review: {r.network}",
        "",
        verdict,
        "",
        f"Base `{r.base}` -> head {r.head if r.head == 'working tree' else f'`{r.head}`'}. Method: {method}.",
        "",
        "| Newly permitted | Need sign-off | Newly denied |",
        "|---|---|---|",
        f"| {len(r.permitted)} | {len(gated)} | {len(r.denied)} |",
        "",
        "## NEWLY PERMITTED",
        "",
        *_table(r.permitted, PERMITTED),
        "",
        "## NEWLY DENIED",
        "",
        *_table(r.denied, DENIED),
        "",
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
        *(["## DISAGREEMENT between Batfish and the offline evaluator", "",
            *[f"- {d}" for d in r.disagreements], ""] if r.disagreements else []),
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
        "newly_permitted": len(r.permitted),
        "newly_denied": len(r.denied),
        "needs_sign_off": len(r.gated),
        "report": str(r.files["md"]),
        "markdown": review_markdown(r),
    }
