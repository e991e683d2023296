"""Read an Ansible inventory (hosts.yml, group_vars/, host_vars/) into raw intent.

Only the YAML is read: no Ansible machinery, so a 500-device inventory loads in well
under a second. Each top-level key and each host remembers the file it came from, so
validation errors can name it. Vault-encrypted files hold secrets, never intent, and
are skipped; `!vault` values load as an opaque marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from boothnet.errors import IntentError, IntentInvalid

DEVICE_GROUP = "network_devices"
ENDPOINT_GROUP = "endpoints"


class VaultValue(str):
    """A `!vault` value: present, never read by the intent."""


# libyaml's loader when PyYAML has it: ten times faster than the pure-Python one, which
# dominated validation of a 500-device floor (3 s of 3.4 s).
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    pass


_Loader.add_constructor("!vault", lambda loader, node: VaultValue("<vault>"))

_RANGE = re.compile(r"^(?P<prefix>.*)\{(?P<first>\d+)-(?P<last>\d+)\}(?P<suffix>.*)$")


@dataclass
class RawInventory:
    root: Path
    vars: dict[str, Any] = field(default_factory=dict)
    var_files: dict[str, str] = field(default_factory=dict)  # top-level key -> file
    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    endpoints: dict[str, dict[str, Any]] = field(default_factory=dict)
    host_files: dict[str, str] = field(default_factory=dict)  # host -> file of its vars
    # host -> per port, the index of its entry in the file (a range entry gives many ports)
    port_entries: dict[str, list[int]] = field(default_factory=dict)
    hosts_file: str = ""


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _read_yaml(path: Path, errors: list[IntentError]) -> Any:
    text = path.read_text()
    if text.startswith("$ANSIBLE_VAULT"):
        return None
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - SafeLoader subclass
    except yaml.YAMLError as exc:
        errors.append(IntentError(_rel(path), "(file)", "unparseable YAML", str(exc)))
        return None


def _walk_hosts(group: dict[str, Any] | None, in_group: str | None, found: dict[str, tuple]) -> None:
    """Collect (group, vars) per host from an inventory group tree."""
    if not isinstance(group, dict):
        return
    for name, host_vars in (group.get("hosts") or {}).items():
        found[name] = (in_group, dict(host_vars or {}))
    for child_name, child in (group.get("children") or {}).items():
        member_of = child_name if child_name in (DEVICE_GROUP, ENDPOINT_GROUP) else in_group
        _walk_hosts(child, member_of, found)


def expand_port_ranges(ports: list[Any]) -> tuple[list[Any], list[int]]:
    """`Ethernet{1-48}` stands for Ethernet1 .. Ethernet48 with the same settings. Also gives,
    per expanded port, the index of the entry it came from: errors name the file's entries."""
    expanded: list[Any] = []
    entries: list[int] = []
    for entry, port in enumerate(ports):
        match = _RANGE.match(str(port.get("name", ""))) if isinstance(port, dict) else None
        if not match:
            expanded.append(port)
            entries.append(entry)
            continue
        for number in range(int(match["first"]), int(match["last"]) + 1):
            expanded.append({**port, "name": f"{match['prefix']}{number}{match['suffix']}"})
            entries.append(entry)
    return expanded, entries


def load_inventory(root: Path) -> RawInventory:
    root = Path(root)
    errors: list[IntentError] = []
    hosts_path = next((root / n for n in ("hosts.yml", "hosts.yaml") if (root / n).exists()), None)
    if hosts_path is None:
        raise IntentInvalid([IntentError(_rel(root), "hosts.yml", "missing", "an inventory folder with hosts.yml")])
    raw = RawInventory(root=root, hosts_file=_rel(hosts_path))

    var_paths = sorted((root / "group_vars" / "all").glob("*.y*ml"))
    var_paths += [p for p in (root / "group_vars" / "all.yml",) if p.exists()]
    for path in var_paths:
        data = _read_yaml(path, errors)
        if data is None:
            continue
        if not isinstance(data, dict):
            errors.append(IntentError(_rel(path), "(file)", type(data).__name__, "a mapping of intent keys"))
            continue
        for key, value in data.items():
            if key in raw.var_files:
                errors.append(
                    IntentError(
                        _rel(path), key, "defined twice", f"each intent key in one file (also in {raw.var_files[key]})"
                    )
                )
                continue
            raw.vars[key] = value
            raw.var_files[key] = _rel(path)

    found: dict[str, tuple] = {}
    _walk_hosts((_read_yaml(hosts_path, errors) or {}).get("all"), None, found)
    for name, (group, inline) in sorted(found.items()):
        host_vars = dict(inline)
        source = raw.hosts_file
        for candidate in (root / "host_vars" / f"{name}.yml", root / "host_vars" / name / "main.yml"):
            if candidate.exists():
                data = _read_yaml(candidate, errors)
                if isinstance(data, dict):
                    host_vars.update(data)
                    source = _rel(candidate)
        if isinstance(host_vars.get("ports"), list):
            host_vars["ports"], raw.port_entries[name] = expand_port_ranges(host_vars["ports"])
        raw.host_files[name] = source
        if group == ENDPOINT_GROUP:
            raw.endpoints[name] = host_vars
        elif group == DEVICE_GROUP:
            raw.devices[name] = host_vars
        else:
            errors.append(
                IntentError(
                    raw.hosts_file, f"all.hosts.{name}", name, f"every host in group {DEVICE_GROUP} or {ENDPOINT_GROUP}"
                )
            )
    if errors:
        raise IntentInvalid(errors)
    return raw
