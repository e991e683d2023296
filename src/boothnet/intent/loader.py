"""Read an Ansible inventory (hosts.yml, group_vars/, host_vars/) into raw intent.

Only the YAML is read: no Ansible machinery, so a 500-device inventory loads in well
under a second. Each top-level key and each host remembers the file it came from, so
validation errors can name it. Vault-encrypted files hold secrets, never intent, and
are skipped; `!vault` values load as an opaque marker.
"""

from __future__ import annotations

import hashlib
import os
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
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]  # libyaml's loader where built
    pass


_Loader.add_constructor("!vault", lambda loader, node: VaultValue("<vault>"))


def _mapping_without_duplicates(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    """YAML lets a later key silently replace an earlier one; in an intent that is a mistake. A
    merge key (`<<: *research`) is the exception YAML defines: the mapping's own keys override
    what it merges, and the first of several merged mappings wins."""
    own = {id(k) for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"}
    loader.flatten_mapping(node)
    if len(own) != len(node.value):
        own_keys = {loader.construct_object(k, deep=True) for k, _ in node.value if id(k) in own}
        merged_seen: set[Any] = set()
        kept = []
        for key_node, value_node in node.value:
            if id(key_node) not in own:
                key = loader.construct_object(key_node, deep=True)
                if key in own_keys or key in merged_seen:
                    continue
                merged_seen.add(key)
            kept.append((key_node, value_node))
        node.value = kept
    first_line: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            seen = key in first_line
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, f"a key that is a {type(key).__name__} (keys must be names or numbers)",
                key_node.start_mark) from None
        if seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {first_line[key]})", key_node.start_mark)
        first_line[key] = key_node.start_mark.line + 1
    return dict(loader.construct_pairs(node, deep=True))


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)

_RANGE = re.compile(r"^(?P<prefix>.*)\{(?P<first>\d+)-(?P<last>\d+)\}(?P<suffix>.*)$")


@dataclass
class RawInventory:
    root: Path
    vars: dict[str, Any] = field(default_factory=dict)
    var_files: dict[str, str] = field(default_factory=dict)  # top-level key -> file
    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    endpoints: dict[str, dict[str, Any]] = field(default_factory=dict)
    host_files: dict[str, str] = field(default_factory=dict)  # host -> file of its vars
    inline_keys: dict[str, set[str]] = field(default_factory=dict)  # host -> its vars set in hosts.yml only
    # host -> per port, the index of its entry in the file (a range entry gives many ports)
    port_entries: dict[str, list[int]] = field(default_factory=dict)
    hosts_file: str = ""


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# Files a check parsed (Ansible's inventory and vars plugins), by path and content, for the load
# that follows it; each is taken once, so no two loads share (and mutate) one parse. A build
# run by Ansible loads in a worker forked after the checks: hosts.yml and group_vars/all are
# parsed once, not twice.
_CHECKED: dict[tuple[str, bytes], Any] = {}
_CHECKED_MAX = 64


def _read_yaml(path: Path, errors: list[IntentError], keep: bool = False) -> Any:
    """The file's YAML, or None with an error naming the file and the line. ``keep``: also
    keep the parse for the next load of this very content."""
    data = path.read_bytes()
    if data.startswith(b"$ANSIBLE_VAULT"):
        return None
    key = (os.path.abspath(path), hashlib.blake2b(data, digest_size=16).digest())
    if key in _CHECKED:
        return _CHECKED.pop(key)
    parsed = _parse_yaml(path, data, errors)
    if keep and parsed is not None and len(_CHECKED) < _CHECKED_MAX:
        _CHECKED[key] = parsed  # the check only looks at its type
    return parsed


def _parse_yaml(path: Path, data: bytes, errors: list[IntentError]) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        errors.append(IntentError(_rel(path), f"line {line}", f"byte 0x{data[exc.start]:02x}",
                                  "UTF-8 text (save the file as UTF-8)"))
        return None
    try:
        return yaml.load(text, Loader=_Loader)  # SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        problem = " ".join(str(x) for x in (exc.context, exc.problem) if x)
        duplicate = re.match(r"(duplicate key .*) \((first at line \d+)\)$", problem)
        if duplicate:
            errors.append(IntentError(_rel(path), where, duplicate[1], f"each key once in a mapping ({duplicate[2]})"))
        else:
            errors.append(IntentError(_rel(path), where, "unparseable YAML", f"valid YAML ({problem})"))
    except yaml.YAMLError as exc:
        errors.append(IntentError(_rel(path), "(file)", "unparseable YAML", f"valid YAML ({exc})"))
    return None


def yaml_file_errors(path: Path) -> list[IntentError]:
    """What is wrong with one YAML file as a file (encoding, syntax, duplicate keys)."""
    errors: list[IntentError] = []
    data = _read_yaml(path, errors, keep=True)
    if data is not None and not isinstance(data, dict):
        errors.append(_not_a_mapping(path, data))
    return errors


def _not_a_mapping(path: Path, data: Any) -> IntentError:
    return IntentError(_rel(path), "(file)", type(data).__name__, "a mapping of variables (name: value)")


def _walk_hosts(group: Any, in_group: str | None, path: str, found: dict[str, tuple], problems: list[tuple]) -> None:
    """Collect (group, vars, path) per host from an inventory group tree; `problems` gets
    (path, value, allowed) for every part of the tree that is not what Ansible expects."""
    if group is None:
        return
    if not isinstance(group, dict):
        problems.append((path, type(group).__name__, "a group: a mapping with `hosts:` and/or `children:`"))
        return
    hosts = group.get("hosts") or {}
    if not isinstance(hosts, dict):
        problems.append((f"{path}.hosts", type(hosts).__name__, "a mapping of host name to its variables"))
        hosts = {}
    for name, host_vars in hosts.items():
        where = f"{path}.hosts.{name}"
        if name in found:
            problems.append((where, name, f"each host listed once (also at {found[name][2]})"))
            continue
        if host_vars is not None and not isinstance(host_vars, dict):
            problems.append((where, type(host_vars).__name__, "a mapping of host variables (or nothing)"))
            host_vars = None
        found[name] = (in_group, dict(host_vars or {}), where)
    children = group.get("children") or {}
    if not isinstance(children, dict):
        problems.append((f"{path}.children", type(children).__name__, "a mapping of group name to group"))
        children = {}
    for child_name, child in children.items():
        member_of = child_name if child_name in (DEVICE_GROUP, ENDPOINT_GROUP) else in_group
        _walk_hosts(child, member_of, f"{path}.children.{child_name}", found, problems)


def _read_hosts(path: Path, hosts_file: str) -> dict[str, tuple]:
    """Every host of hosts.yml with its group; any problem with the file is the only error
    reported (the other files' errors would all follow from it)."""
    errors: list[IntentError] = []
    data = _read_yaml(path, errors)
    if errors:
        raise IntentInvalid(errors)
    expected = f"a group `all` with children {DEVICE_GROUP} and {ENDPOINT_GROUP}"
    if not isinstance(data, dict) or not isinstance(data.get("all"), dict):
        top = data.get("all", "missing") if isinstance(data, dict) else data
        value = "empty file" if data is None else top if top == "missing" else type(top).__name__
        raise IntentInvalid([IntentError(hosts_file, "all", value, expected)])
    found: dict[str, tuple] = {}
    problems: list[tuple] = []
    _walk_hosts(data["all"], None, "all", found, problems)
    if not problems and not found:
        problems.append(("all", "no hosts", expected))
    if problems:
        raise IntentInvalid([IntentError(hosts_file, *problem) for problem in problems])
    return found


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
    _read_group_vars(root, raw, errors)
    found = _read_hosts(hosts_path, raw.hosts_file)
    for name, (group, inline, _) in sorted(found.items()):
        host_vars, source = _host_vars(root, name, dict(inline), raw, errors)
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


def _read_group_vars(root: Path, raw: RawInventory, errors: list[IntentError]) -> None:
    """group_vars/all/*.yml (and group_vars/all.yml) into raw.vars, each key from one file."""
    var_paths = sorted((root / "group_vars" / "all").glob("*.y*ml"))
    var_paths += [p for p in (root / "group_vars" / "all.yml",) if p.exists()]
    for path in var_paths:
        data = _read_yaml(path, errors)
        if data is None:
            continue
        if not isinstance(data, dict):
            errors.append(_not_a_mapping(path, data))
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


def _host_vars(root: Path, name: str, host_vars: dict[str, Any], raw: RawInventory, errors: list[IntentError]
               ) -> tuple[dict[str, Any], str]:
    """The host's inline vars with its host_vars file over them, and the file they came from."""
    source = raw.hosts_file
    raw.inline_keys[name] = set(host_vars)
    for candidate in (root / "host_vars" / f"{name}.yml", root / "host_vars" / name / "main.yml"):
        if candidate.exists():
            data = _read_yaml(candidate, errors)
            if isinstance(data, dict):
                host_vars.update(data)
                source = _rel(candidate)
                raw.inline_keys[name] -= set(data)
            elif data is not None:
                errors.append(_not_a_mapping(candidate, data))
    return host_vars, source
