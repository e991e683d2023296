"""The ACL line shared by IOS-style platforms; each platform supplies how an address prints."""

from __future__ import annotations

from collections.abc import Callable
from ipaddress import IPv4Network, IPv6Network
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the derived model's type only: platforms sit below derive
    from boothnet.derive.model import AclEntry


AddressFormat = Callable[[IPv4Network | IPv6Network | None], str]


def acl_lines(entry: AclEntry, address: AddressFormat) -> list[str]:
    """One line per destination port: `eq` takes a single port everywhere Batfish parses."""
    return [_acl_line(entry, port, address) for port in entry.dst_ports or (None,)]


def _acl_line(entry: AclEntry, port: int | None, address: AddressFormat) -> str:
    parts = [entry.action, entry.proto, address(entry.src)]
    if entry.src_port is not None:
        parts.append(f"eq {entry.src_port}")
    parts.append(address(entry.dst))
    if port is not None:
        parts.append(f"eq {port}")
    if entry.icmp_type:
        parts.append(entry.icmp_type)
    if entry.established:
        parts.append("established")
    if entry.log:
        parts.append("log")
    return " ".join(parts)
