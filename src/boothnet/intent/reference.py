"""The intent's keys, generated from the model: each file's keys with their type, allowed values
and default, as docs/intent-reference.md prints them (a test keeps that page equal to this)."""

from __future__ import annotations

import types
import typing
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, IPv6Address, IPv6Interface, IPv6Network
from typing import Any, Literal, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt, MinLen
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from boothnet.intent import model

# Where each part of the model is written, in the order a booth engineer writes them.
WHERE: list[tuple[str, type[BaseModel]]] = [
    ("`group_vars/all`: `network:`", model.NetworkSettings),
    ("`network: ospf:`", model.OspfSettings),
    ("`network: management:` (how deploy reaches IOS/EOS switches)", model.Management),
    ("`group_vars/all`: `mtu_policy:`", model.MtuPolicy),
    ("`group_vars/all`: `vlans:` (a list)", model.Vlan),
    ("`vlans: ipv6:` (a dual-stack VLAN)", model.VlanIpv6),
    ("`group_vars/all`: `links:` (a list)", model.Link),
    ("`links: addresses:` (routed links)", model.LinkAddresses),
    ("`links: addresses6:` (routed links, IPv6)", model.LinkAddresses6),
    ("`group_vars/all`: `policy:`", model.Policy),
    ("`policy: rules:` (a list, first match decides)", model.Rule),
    ("`group_vars/all`: `uplink:`", model.Uplink),
    ("`group_vars/all`: `vpn:`", model.Vpn),
    ("`group_vars/all`: `throughput:`", model.Throughput),
    ("`throughput: paths:` (a list)", model.ThroughputPath),
    ("`throughput: wan:`", model.WanTests),
    ("`host_vars/<device>.yml` (a device of group `network_devices`; its name is the host's)", model.Device),
    ("`ports:` of a device (a list)", model.Port),
    ("`hosts.yml`: a host of group `endpoints` (its name is the host's)", model.Endpoint),
]
NAMES = {IPv4Address: "IPv4 address", IPv4Network: "IPv4 prefix", IPv4Interface: "IPv4 address/length",
         IPv6Address: "IPv6 address", IPv6Network: "IPv6 prefix", IPv6Interface: "IPv6 address/length",
         int: "integer", float: "number", str: "text", bool: "true or false"}
BOUNDS = {Gt: "> {}", Ge: ">= {}", Lt: "< {}", Le: "<= {}"}


def type_text(annotation: Any) -> str:
    """How a field's type reads in the reference."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is typing.Annotated:
        return type_text(args[0])
    if origin is Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_text(a) for a in args if a is not type(None))
    if origin is list:
        return f"list of {type_text(args[0])}"
    if origin is dict:
        return f"mapping of {type_text(args[0])} to {type_text(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"{annotation.__name__} (its own table)"
    return NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))


def default_text(field: Any) -> str:
    if field.is_required():
        return "required"
    default = field.default
    if default is None or default == [] or default == {} or default is PydanticUndefined:
        return "none"
    if isinstance(default, BaseModel):
        return "its defaults"
    if default == "":
        return "empty"
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    return f"`{default}`"


def limits_text(field: Any) -> str:
    # annotated_types names each bound's value after its class: Gt(gt=0), Le(le=1000)
    parts = [template.format(getattr(m, kind.__name__.lower())) for m in field.metadata
             for kind, template in BOUNDS.items() if isinstance(m, kind)]
    parts += [f"at least {m.min_length} item(s)" for m in field.metadata if isinstance(m, MinLen)]
    return ", ".join(parts)


# filled in from the inventory (a host's name), never written as a key
FROM_INVENTORY: dict[type[BaseModel], set[str]] = {model.Device: {"name"}, model.Endpoint: {"name"}}


def model_table(cls: type[BaseModel]) -> list[str]:
    rows = ["| key | type | default | limits | meaning |", "| --- | --- | --- | --- | --- |"]
    for name, field in cls.model_fields.items():
        if name in FROM_INVENTORY.get(cls, set()):
            continue
        key = field.alias or name
        rows.append(f"| `{key}` | {type_text(field.annotation)} | {default_text(field)} | {limits_text(field)} | "
                    f"{field.description or ''} |")
    return rows


def intent_reference() -> str:
    """docs/intent-reference.md: every key of the intent, by the file that holds it."""
    lines = ["# The intent's keys", "",
             "Generated from the model (`src/boothnet/intent/model.py`) by `boothnet intent-reference`;",
             "a test keeps this page equal to it. Inside these sections a key not listed here is an error",
             "naming the file and the key. [Writing an intent](intent.md) explains how the parts fit together.", ""]
    for where, cls in WHERE:
        lines += [f"## {cls.__name__}", "", f"Written in {where}.", "", *model_table(cls), ""]
    return "\n".join(lines)
