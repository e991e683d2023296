"""Cisco IOS quirks: interface names, ACL addresses as wildcard masks or `host`."""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network
from typing import TYPE_CHECKING

from boothnet.family import Family, icmp_words
from boothnet.platforms import acl_syntax

if TYPE_CHECKING:  # the derived model's type only: platforms sit below derive
    from boothnet.derive.model import AclEntry


def svi_name(vid: int) -> str:
    return f"Vlan{vid}"


def mgmt_interface() -> str:
    return "GigabitEthernet0/0"


def _address(net: IPv4Network | IPv6Network | None) -> str:
    if net is None:
        return "any"
    if net.prefixlen == net.max_prefixlen:
        return f"host {net.network_address}"
    if net.version == 6:  # IPv6 ACLs take prefixes, never wildcard masks
        return str(net)
    return f"{net.network_address} {net.hostmask}"


# an `ipv6 access-list` matches every protocol with `ipv6`; its `icmp` is ICMPv6, whose types
# keep the names the compiler gives them (nd-ns, nd-na, packet-too-big, ...)
NAMES: dict[Family, dict[str, str]] = {Family.V4: icmp_words("cisco_ios", Family.V4),
                                       Family.V6: {"ip": "ipv6", **icmp_words("cisco_ios", Family.V6)}}


def acl_lines(entry: AclEntry, family: Family) -> list[str]:
    return acl_syntax.acl_lines(entry, _address, NAMES[family])
