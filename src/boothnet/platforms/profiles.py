"""The switch a booth rents: a platform profile per model family (data in profiles/<family>.yml).

A profile says what a model is and does (its ports, how it sets MTU, its trunk, source-guard,
VTP, management-port and spanning-tree forms, whether it terminates IPsec), each entry with its
source. An entry may hold from a release on (`since`): the device's release picks the entry.
A booth team adds a model as a data file; nothing here names a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PROFILE_DIR = Path(__file__).parent / "profiles"
# a device that names no model gets its platform's default (docs/intent.md, "Switch models")
DEFAULT_MODEL = {"cisco_ios": "C9300-48T", "arista_eos": "DCS-7010T-48"}
_RANGE = re.compile(r"^(?P<stem>.*)\{(?P<first>\d+)-(?P<last>\d+)\}$")


@dataclass(frozen=True)
class ProfilePort:
    name: str
    speeds: tuple[int, ...]
    jumbo: bool


@dataclass(frozen=True)
class Profile:
    """One model at one release: every entry resolved."""

    family: str
    platform: str
    model: str
    release: str
    ports: dict[str, ProfilePort]
    mtu: str  # "per_port", "system" or "layer3" (EOS: `mtu` bounds routed packets only)
    system_mtu_max: int
    trunk_encapsulation: bool
    source_guard: str | None
    vtp: str | None
    mgmt_interface: str
    mgmt_vrf: str | None
    stp_mode: str
    edge_command: str
    ipsec: bool
    port_acl_over_svi: str  # "replaces", "both" or "unsettled" (the configs are right under either)
    port_security_violation: str  # what a frame from another MAC does to a secured port as printed
    port_text: str  # its ports as a person writes them: GigabitEthernet1/0/1-48, ...

    @property
    def label(self) -> str:
        return f"{self.model} ({self.family}, release {self.release})"


def release_key(release: str) -> tuple[int, ...]:
    """17.9.4a -> (17, 9, 4); 4.28.0F -> (4, 28, 0): the numbers a release compares by."""
    return tuple(int(part) for part in re.findall(r"\d+", release)[:3])


def _expand(name: str) -> list[str]:
    match = _RANGE.match(name)
    if not match:
        return [name]
    return [f"{match['stem']}{n}" for n in range(int(match["first"]), int(match["last"]) + 1)]


def _resolve(entry: Any, release: str) -> Any:
    """An entry's value at *release*: the newest `since` the release reaches, else the undated one."""
    if isinstance(entry, dict):
        return entry["value"]
    dated = sorted((e for e in entry if "since" in e), key=lambda e: release_key(e["since"]), reverse=True)
    for candidate in dated:
        if release_key(release) >= release_key(candidate["since"]):
            return candidate["value"]
    return next(e["value"] for e in entry if "since" not in e)


@cache
def families() -> dict[str, dict[str, Any]]:
    """Family name -> its data file's contents."""
    return {path.stem: yaml.safe_load(path.read_text()) for path in sorted(PROFILE_DIR.glob("*.yml"))}


def models(platform: str) -> dict[str, str]:
    """Model -> family, for one platform."""
    return {model: family for family, data in families().items() if data["platform"] == platform
            for model in data["models"]}


def profile(platform: str, model: str | None, release: str | None) -> Profile | None:
    """The profile of *model* at *release* (defaults where absent); None for an unknown model or
    a platform without profiles (frr_linux: a Linux box is what its intent says)."""
    model = model or DEFAULT_MODEL.get(platform)
    family = models(platform).get(model or "")
    if model is None or family is None:
        return None
    data = families()[family]
    release = release or data["default_release"]
    ports = {name: ProfilePort(name, tuple(spec["speeds"]), bool(spec["jumbo"]))
             for spec in data["models"][model]["ports"] for name in _expand(spec["name"])}
    mgmt = _resolve(data["mgmt"], release)
    stp = _resolve(data["spanning_tree"], release)
    return Profile(
        family=family, platform=platform, model=model, release=release, ports=ports,
        mtu=_resolve(data["mtu"], release), system_mtu_max=_resolve(data["system_mtu_max"], release),
        trunk_encapsulation=bool(_resolve(data["trunk_encapsulation"], release)),
        source_guard=_resolve(data["source_guard"], release), vtp=_resolve(data["vtp"], release),
        mgmt_interface=mgmt["interface"], mgmt_vrf=mgmt["vrf"], stp_mode=stp["mode"], edge_command=stp["edge"],
        ipsec=bool(_resolve(data["ipsec"], release)),
        port_acl_over_svi=_resolve(data["port_acl_over_svi"], release),
        port_security_violation=_resolve(data["port_security_violation"], release),
        port_text=", ".join(spec["name"].replace("{", "").replace("}", "") for spec in data["models"][model]["ports"]),
    )
