"""Arista EOS quirks: interface names, prefix-length ACL addresses."""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network
from typing import TYPE_CHECKING

from boothnet.family import Family, icmp_words
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
    return str(net)  # a prefix in either family, never a wildcard mask


# EOS's `ipv6 access-list` says `ipv6` and `icmpv6`, and names ICMPv6 types in full
NAMES: dict[Family, dict[str, str]] = {
    Family.V4: icmp_words("arista_eos", Family.V4),
    Family.V6: {"ip": "ipv6", "icmp": "icmpv6", "nd-ns": "neighbor-solicitation", "nd-na": "neighbor-advertisement",
                **icmp_words("arista_eos", Family.V6)},
}


def acl_lines(entry: AclEntry, family: Family) -> list[str]:
    # No explicit sequence numbers: one entry can expand to a line per port, and EOS numbers
    # lines 10, 20, ... in order by itself.
    return acl_syntax.acl_lines(entry, _address, NAMES[family])
