"""Cisco IOS quirks: interface names, ACL line syntax (wildcard masks, `host`, `established`)."""

from __future__ import annotations

from ipaddress import IPv4Network

from boothnet.derive.model import AclEntry


def svi_name(vid: int) -> str:
    return f"Vlan{vid}"


def mgmt_interface() -> str:
    return "GigabitEthernet0/0"


def _host(net: IPv4Network | None) -> str:
    if net is None:
        return "any"
    if net.prefixlen == 32:
        return f"host {net.network_address}"
    return f"{net.network_address} {net.hostmask}"


def acl_lines(entry: AclEntry) -> list[str]:
    """One line per destination port: `eq` takes a single port everywhere Batfish parses."""
    return [_acl_line(entry, port) for port in entry.dst_ports or (None,)]


def _acl_line(entry: AclEntry, port: int | None) -> str:
    parts = [entry.action, entry.proto, _host(entry.src)]
    if entry.src_port is not None:
        parts.append(f"eq {entry.src_port}")
    parts.append(_host(entry.dst))
    if port is not None:
        parts.append(f"eq {port}")
    if entry.icmp_type:
        parts.append(entry.icmp_type)
    if entry.established:
        parts.append("established")
    if entry.log:
        parts.append("log")
    return " ".join(parts)
