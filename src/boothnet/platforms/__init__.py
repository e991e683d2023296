"""Platform capabilities as data, plus one quirks module per platform."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class Platform:
    name: str
    description: str
    napalm_driver: str
    netmiko_device_type: str
    reserved_vlans: frozenset[int]
    max_mtu: int
    features: tuple[str, ...]
    files: dict[str, tuple[str, ...]]
    tunnel_inner_mtu: dict[str, int]  # IPsec backend -> largest inner packet; empty: no limit
    containerlab: dict[str, Any] = field(default_factory=dict)  # kind, image, port naming (boothnet.lab.clab)

    def reserved_text(self) -> str:
        return ", ".join(_compact(sorted(self.reserved_vlans))) or "none"


def _compact(ids: list[int]) -> list[str]:
    runs: list[str] = []
    for vid in ids:
        if runs and runs[-1].split("-")[-1] == str(vid - 1):
            runs[-1] = f"{runs[-1].split('-')[0]}-{vid}"
        else:
            runs.append(str(vid))
    return runs


def parse_vlan_ranges(items: list[int | str]) -> list[int]:
    """`[10, "110-125"]` -> [10, 110, ..., 125]; non-numeric names are left to the caller."""
    ids: list[int] = []
    for item in items:
        text = str(item)
        if "-" in text and all(part.strip().isdigit() for part in text.split("-", 1)):
            first, last = (int(part) for part in text.split("-", 1))
            ids.extend(range(first, last + 1))
        elif text.isdigit():
            ids.append(int(text))
    return ids


@cache
def platforms() -> dict[str, Platform]:
    data = yaml.safe_load((Path(__file__).parent / "capabilities.yml").read_text())
    return {
        name: Platform(
            name=name,
            description=spec["description"],
            napalm_driver=spec["napalm_driver"],
            netmiko_device_type=spec["netmiko_device_type"],
            reserved_vlans=frozenset(parse_vlan_ranges(spec["reserved_vlans"])),
            max_mtu=spec["max_mtu"],
            features=tuple(spec["features"]),
            files={path: tuple(features) for path, features in spec["files"].items()},
            tunnel_inner_mtu=dict(spec.get("tunnel_inner_mtu", {})),
            containerlab=dict(spec.get("containerlab", {})),
        )
        for name, spec in data.items()
    }


def supported() -> list[str]:
    return sorted(platforms())
