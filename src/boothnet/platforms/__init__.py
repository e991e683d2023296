"""Platform capabilities as data, plus one quirks module per platform."""

from __future__ import annotations

import re
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
    slash31: bool = False  # RFC 3021 /31 point-to-point addresses
    names: dict[str, NameRule] = field(default_factory=dict)  # "vlan", "acl" -> what the platform accepts
    deploy: DeployRules = field(default_factory=lambda: DeployRules())
    short_port_names: bool = False  # labels and LLDP print "Gi1/0/49" for "GigabitEthernet1/0/49"
    lldp_reader: bool = False  # its NAPALM driver's get_lldp_neighbors reads the booth device's cabling
    napalm_transport: str = "ssh"  # how its NAPALM driver reaches it by default (eos: eAPI over https)
    hier_config: str = ""  # hier_config's Platform name, for a remediation preview without the device
    # interfaces a config creates by naming them (SVIs, loopbacks); every other interface a candidate
    # names must be a port the device has, checked against its interface list before a commit
    logical_interfaces: tuple[str, ...] = ()
    # Batfish (0.36) parses its port security and IP source guard lines; where it does not, the
    # Batfish view leaves them out (Batfish models no layer-2 port security either way)
    batfish_port_security: bool = True
    # it can terminate IPsec, so be a VPN end (vpn.booth_gateway, vpn.home_gateway)
    ipsec: bool = False
    # its ACLs track connections (a reply passes as part of the flow it answers); False: each
    # packet, replies included, must be permitted by the ACL it meets (IOS, EOS)
    stateful_acls: bool = True
    # top-level sections the switch keeps of its own (its hardware, licence, certificates, system
    # policies), which no intent manages: a full replace carries them over from the running config
    # rather than remove them (boothnet.deploy.owned); each a regular expression on the section's line
    switch_owned: tuple[str, ...] = ()

    def reserved_text(self) -> str:
        return ", ".join(_compact(sorted(self.reserved_vlans))) or "none"

    def revert_in_problem(self, seconds: int) -> str | None:
        """Why the driver cannot take a revert timer of *seconds*, or None."""
        low, high, step = self.deploy.revert_in
        if not low <= seconds <= high or seconds % step:
            every = f" in steps of {step} s" if step > 1 else ""
            return (f"{self.name} takes a revert timer of {low}-{high} s{every} "
                    f"(NAPALM {self.napalm_driver}), not {seconds}")
        return None


@dataclass(frozen=True)
class DeployRules:
    """What the platform's NAPALM driver takes when committing."""

    revert_in: tuple[int, int, int] = (1, 86400, 1)  # min, max, step in seconds
    commit_message: bool = False
    enable_secret_arg: str = ""  # the optional_args key for the enable secret


@dataclass(frozen=True)
class NameRule:
    max_length: int
    pattern: str

    def problem(self, name: str) -> str | None:
        """What is wrong with `name` for this platform, or None."""
        if len(name) > self.max_length:
            return f"at most {self.max_length} characters"
        if not re.match(self.pattern, name):
            return f"letters, digits, '.', '_' and '-' only (pattern {self.pattern})"
        return None


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
            slash31=bool(spec.get("slash31", False)),
            names={kind: NameRule(**rule) for kind, rule in spec.get("names", {}).items()},
            deploy=_deploy_rules(spec.get("deploy", {})),
            short_port_names=bool(spec.get("short_port_names", False)),
            lldp_reader=bool(spec.get("lldp_reader", False)),
            hier_config=str(spec.get("hier_config", "")),
            napalm_transport=str(spec.get("napalm_transport", "ssh")),
            logical_interfaces=tuple(spec.get("logical_interfaces", ())),
            batfish_port_security=bool(spec.get("batfish_port_security", True)),
            ipsec=bool(spec.get("ipsec", False)),
            stateful_acls=bool(spec.get("stateful_acls", True)),
            switch_owned=tuple(spec.get("switch_owned", ())),
        )
        for name, spec in data.items()
    }


def _deploy_rules(spec: dict[str, Any]) -> DeployRules:
    rev = spec.get("revert_in", {})
    return DeployRules((rev.get("min", 1), rev.get("max", 86400), rev.get("step", 1)),
                       bool(spec.get("commit_message", False)), spec.get("enable_secret_arg", ""))


def supported() -> list[str]:
    return sorted(platforms())
