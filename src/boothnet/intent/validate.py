"""Stage 2: turn raw intent into a validated Network, reporting every error at once.

Each error names the file, the field path (`vlans[3].id`), the value and what is allowed.
Checks are linear or n log n in the size of the intent (sorting, dictionaries), never
all-pairs, so a show floor of hundreds of devices validates in well under a second.
"""

from __future__ import annotations

from difflib import get_close_matches
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from boothnet.errors import IntentError, IntentInvalid
from boothnet.intent.checks import check_network
from boothnet.intent.checks.policy import _rule_covers, first_covers  # noqa: F401 - re-exported
from boothnet.intent.loader import RawInventory, load_inventory
from boothnet.intent.model import (
    Device,
    Endpoint,
    Link,
    MtuPolicy,
    Network,
    NetworkSettings,
    Policy,
    Throughput,
    Uplink,
    Vlan,
    Vpn,
)

NOT_INTENT = ("ansible_", "boothnet_", "vault_")  # variables for Ansible, boothnet's runs or vault


def _path(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if part == "":
            part = "''"  # an empty key, shown as one
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys the model takes at `loc` (list indexes skipped), by their names in the intent."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part) if isinstance(current, type) and issubclass(current, BaseModel) else None
        if field is None:
            return []
        current = next((t for t in _types_in(field.annotation) if isinstance(t, type) and issubclass(t, BaseModel)),
                       None)
    if not (isinstance(current, type) and issubclass(current, BaseModel)):
        return []
    return [f.alias or name for name, f in current.model_fields.items()]


def _types_in(annotation: Any) -> list[Any]:
    args = get_args(annotation)
    return [annotation] if not args else [t for arg in args for t in _types_in(arg)]


def _unknown_key(model: type[BaseModel] | None, loc: tuple[Any, ...]) -> str:
    known = _fields_at(model, loc[:-1]) if model else []
    close = get_close_matches(str(loc[-1]), known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    known_text = f" (the keys here: {', '.join(sorted(known))})" if known else ""
    return f"not a key boothnet knows{hint}{known_text}"


def _pydantic_errors(
    exc: ValidationError, file: str, prefix: str, data: Any, port_entries: list[int] | None = None,
    model: type[BaseModel] | None = None,
) -> list[IntentError]:
    errors = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden":
            err = {**err, "msg": _unknown_key(model, loc)}
        if port_entries and len(loc) > 1 and loc[0] == "ports" and isinstance(loc[1], int):
            loc = ("ports", port_entries[loc[1]], *loc[2:])  # the file's entry, not the expanded port
        value = err.get("input")
        if err["type"] == "missing":
            value = "missing"
        errors.append(
            IntentError(
                file,
                _path((prefix, *loc)) if prefix else _path(loc),
                value if not isinstance(value, dict | list) else type(value).__name__,
                err["msg"],
            )
        )
    return errors


class _Collector:
    def __init__(self, raw: RawInventory):
        self.raw = raw
        self.errors: list[IntentError] = []

    def var_file(self, key: str) -> str:
        return self.raw.var_files.get(key, f"{self.raw.root}/group_vars/all/{key}.yml")

    def add(self, file: str, path: str, value: object, allowed: str) -> None:
        self.errors.append(IntentError(file, path, value, allowed))

    def section(self, key: str, model: type[BaseModel], required: bool = False) -> Any:
        data = self.raw.vars.get(key)
        if data is None:
            if required:
                self.add(self.var_file(key), key, "missing", f"a `{key}:` section in group_vars/all")
            return None
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            self.errors.extend(_pydantic_errors(exc, self.var_file(key), key, data, model=model))
            return None

    def items(self, key: str, model: type[BaseModel]) -> list[Any]:
        data = self.raw.vars.get(key) or []
        if not isinstance(data, list):
            self.add(self.var_file(key), key, type(data).__name__, "a list")
            return []
        parsed: list[BaseModel | None] = []  # None where an item is invalid: indices stay aligned
        for index, item in enumerate(data):
            try:
                parsed.append(model.model_validate(item))
            except ValidationError as exc:
                self.errors.extend(_pydantic_errors(exc, self.var_file(key), f"{key}[{index}]", item, model=model))
                parsed.append(None)
        return parsed

    def hosts(self, hosts: dict[str, dict[str, Any]], model: type[BaseModel], group: str) -> dict:
        parsed = {}
        for name, every_var in hosts.items():
            file = self.raw.host_files[name]
            prefix = f"{group}.{name}" if file == self.raw.hosts_file else ""
            # how Ansible reaches the host (ansible_host, ansible_user, a vaulted password): not intent
            host_vars = {k: v for k, v in every_var.items() if not str(k).startswith(NOT_INTENT)}
            try:
                parsed[name] = model.model_validate({"name": name, **host_vars})
            except ValidationError as exc:
                inline = self.raw.inline_keys.get(name, set())
                found = _pydantic_errors(exc, file, prefix, host_vars, self.raw.port_entries.get(name), model)
                for error, detail in zip(found, exc.errors(), strict=True):
                    loc = tuple(detail["loc"])
                    if file != self.raw.hosts_file and loc and loc[0] in inline:  # set in hosts.yml, not host_vars
                        error = IntentError(self.raw.hosts_file, _path((f"{group}.{name}", *loc)), error.value,
                                            error.allowed)
                    self.errors.append(error)
        return parsed


def build_network(raw: RawInventory) -> Network:
    c = _Collector(raw)
    settings = c.section("network", NetworkSettings, required=True)
    mtu_policy = c.section("mtu_policy", MtuPolicy) or MtuPolicy()
    vlans = c.items("vlans", Vlan)
    links = c.items("links", Link)
    policy = c.section("policy", Policy) or Policy()
    uplink = c.section("uplink", Uplink)
    vpn = c.section("vpn", Vpn)
    throughput = c.section("throughput", Throughput) or Throughput()
    devices = c.hosts(raw.devices, Device, "devices")
    endpoints = c.hosts(raw.endpoints, Endpoint, "endpoints")
    host_groups = raw.vars.get("host_groups") or {}
    if not isinstance(host_groups, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(m, str) for m in v)
        for k, v in host_groups.items()
    ):
        c.add(
            c.var_file("host_groups"), "host_groups", "malformed", "a mapping of group name to a list of endpoint names"
        )
        host_groups = {}
    known_keys = {"network", "mtu_policy", "vlans", "links", "policy", "uplink", "vpn", "throughput", "host_groups"}
    for key in sorted(set(raw.vars) - known_keys):
        if not key.startswith(NOT_INTENT):
            c.add(
                raw.var_files[key],
                key,
                "unknown key",
                "one of " + ", ".join(sorted(known_keys)) + " (or an ansible_/boothnet_/vault_ variable)",
            )
    if c.errors or settings is None:
        raise IntentInvalid(c.errors)
    sources = {key: c.var_file(key) for key in known_keys}
    sources.update({f"host:{name}": file for name, file in raw.host_files.items()})
    network = Network(
        settings=settings,
        mtu_policy=mtu_policy,
        devices=devices,
        endpoints=endpoints,
        vlans=[v for v in vlans if v],
        links=[lk for lk in links if lk],
        host_groups=host_groups,
        policy=policy,
        uplink=uplink,
        vpn=vpn,
        throughput=throughput,
        sources=sources,
        port_entries=raw.port_entries,
    )
    errors = check_network(network)
    if errors:
        raise IntentInvalid(errors)
    return network


def load_network(root: Path | str) -> Network:
    """Read and validate an inventory; raises IntentInvalid with every error found."""
    return build_network(load_inventory(Path(root)))


