"""The ACL line shared by IOS-style platforms; each platform supplies how an address prints."""

from __future__ import annotations

from collections.abc import Callable
from ipaddress import IPv4Network, IPv6Network
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the derived model's type only: platforms sit below derive
    from boothnet.derive.model import AclEntry


AddressFormat = Callable[[IPv4Network | IPv6Network | None], str]


def acl_lines(entry: AclEntry, address: AddressFormat, names: dict[str, str] | None = None) -> list[str]:
    """One line per destination port: `eq` takes a single port everywhere Batfish parses.
    `names`: the platform's words for a protocol or ICMP type where they differ (IPv6's)."""
    return [_acl_line(entry, port, address, names or {}) for port in entry.dst_ports or (None,)]


def _acl_line(entry: AclEntry, port: int | None, address: AddressFormat, names: dict[str, str]) -> str:
    parts = [entry.action, names.get(entry.proto, entry.proto), address(entry.src)]
    if entry.src_port is not None:
        parts.append(f"eq {entry.src_port}")
    parts.append(address(entry.dst))
    if port is not None:
        parts.append(f"eq {port}")
    if entry.icmp_type:
        parts.append(names.get(entry.icmp_type, entry.icmp_type))
    if entry.established:
        parts.append("established")
    if entry.log:
        parts.append("log")
    return " ".join(parts)
