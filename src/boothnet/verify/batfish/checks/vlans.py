"""VLANs declared on every switch whose trunks carry them."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from boothnet.verify.batfish import frames as fr
from boothnet.verify.batfish.intent import IfaceRef, VerifyIntent
from boothnet.verify.batfish.report import Finding


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


def _undefined(node: str, vlan: int, present: set[tuple[str, int]], configs: dict[str, str] | None) -> str | None:
    """Why a VLAN a trunk of ``node`` carries is missing there (None: it is not)."""
    if configs and node in configs and vlan not in declared_vlans(configs[node]):
        return "the switch does not define it"
    if (node, vlan) not in present:
        return "the VLAN is not on the switch"
    return None


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
        found += [Finding("vlans", ref.node, f"trunk {ref.interface} carries VLAN {v} but {why}",
                          location=ref.interface)
                  for v in sorted(carried & wanted) if (why := _undefined(ref.node, v, present, configs))]
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

