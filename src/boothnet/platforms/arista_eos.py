"""Arista EOS quirks: interface names, prefix-length ACL addresses."""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network
from typing import TYPE_CHECKING

from boothnet.platforms import acl_syntax
from boothnet.platforms.cisco_ios import svi_name

if TYPE_CHECKING:  # the derived model's type only: platforms sit below derive
    from boothnet.derive.model import AclEntry

__all__ = ["acl_lines", "mgmt_interface", "svi_name"]


def mgmt_interface() -> str:
    return "Management1"


def _address(net: IPv4Network | IPv6Network | None) -> str:
    if net is None:
        return "any"
    if net.prefixlen == net.max_prefixlen:
        return f"host {net.network_address}"
    if net.version == 6:  # IPv6 ACLs take prefixes, never wildcard masks
        return str(net)
    return str(net)


def acl_lines(entry: AclEntry) -> list[str]:
    # No explicit sequence numbers: one entry can expand to a line per port, and EOS numbers
    # lines 10, 20, ... in order by itself.
    return acl_syntax.acl_lines(entry, _address)


# EOS's `ipv6 access-list` says `ipv6` and `icmpv6`, and names ICMPv6 types in full
IPV6_NAMES = {"ip": "ipv6", "icmp": "icmpv6", "nd-ns": "neighbor-solicitation", "nd-na": "neighbor-advertisement"}


def acl_lines6(entry: AclEntry) -> list[str]:
    return acl_syntax.acl_lines(entry, _address, IPV6_NAMES)
