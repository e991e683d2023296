"""Linux quirks: bridge-per-VLAN SVIs, trunk members by VLAN mode, nftables rule syntax."""

from __future__ import annotations

from ipaddress import IPv6Network
from typing import TYPE_CHECKING

from boothnet.family import Family, icmp_words

if TYPE_CHECKING:  # the derived model's type only: platforms sit below derive
    from boothnet.derive.model import AclEntry, PortBinding



def svi_name(vid: int) -> str:
    return f"br{vid}"


def mgmt_interface() -> str:
    return "mgmt0"


def trunk_member(port: str, vid: int, vlan_mode: str) -> str:
    # Without 802.1Q in the kernel the lab wires one segment per VLAN: eth49v110.
    return f"{port}.{vid}" if vlan_mode == "dot1q" else f"{port}v{vid}"


# kernel-libipsec's TUN device: where the kernel has no ESP, cleartext enters and leaves
# the tunnel through it, so routes and firewall rules name it instead of xfrm policies.
LIBIPSEC_DEVICE = "ipsec0"


def tunnel_match(backend: str) -> str:
    """nft match for packets that came out of the tunnel."""
    return f'iifname "{LIBIPSEC_DEVICE}"' if backend == "libipsec" else "meta ipsec exists"


def cleartext_leak_guard(prefix: object, backend: str) -> str:
    """nft rule dropping traffic for a protected prefix that would leave outside the
    tunnel (tunnel down, SA missing): it must never cross the show network in clear."""
    outside = f'oifname != "{LIBIPSEC_DEVICE}"' if backend == "libipsec" else "rt ipsec missing"
    return f'ip daddr {prefix} {outside} log prefix "boothnet cleartext-guard " counter drop'


# what a bound port admits in IPv6 beside its host's sources (derive.model's LINK_LOCAL6, UNSPECIFIED6)
_ON_LINK6 = (IPv6Network("fe80::/10"), IPv6Network("::/128"))
# a stand-in's port ACL marks what it admits where the switch's port ACL replaces the SVI's router
# ACL for that port's traffic: the SVI's inbound ACL then skips it (templates/frr_linux/firewall.j2)
PORT_ACL_MARK = "0x0000006b"


def _one_or_set(values: tuple[object, ...]) -> str:
    # nft lists a one-element anonymous set as its element: print it so, and drift compares alike
    return str(values[0]) if len(values) == 1 else "{ " + ", ".join(map(str, values)) + " }"


def port_binding_lines(port: str, binding: PortBinding) -> list[str]:
    """A bridge port's filter: what port security (the MACs) and IP source guard (the IPv4
    sources; none given admits no IPv4 at all) admit, and the IPv6 sources of a dual-stack
    VLAN's port; ARP is not IP and passes, as on a switch."""
    lines = []
    if binding.macs is not None:
        # shutdown: the port err-disabled at the first frame from another MAC, until cleared
        # (templates/frr_linux/port_security.j2 drops all to and from a port in @errdisabled)
        errdisable = "add @errdisabled { iifname } " if binding.violation == "shutdown" else ""
        lines.append(f'iifname "{port}" ether saddr != {_one_or_set(binding.macs)} {errdisable}drop')
    if binding.addresses:
        lines.append(f'iifname "{port}" ip saddr != {_one_or_set(binding.addresses)} drop')
    elif binding.addresses is not None:
        lines.append(f'iifname "{port}" ether type ip drop')
    if binding.runs_acl6:  # a stand-in: the IOS or EOS port ACL as read, every line, at the port
        mark = f"meta mark set {PORT_ACL_MARK} accept" if binding.replaces_svi_acl else "accept"
        lines += [f'iifname "{port}" ' + nft_rule(entry, "", Family.V6, permit=mark) for entry in binding.acl6_entries]
        lines.append(f'iifname "{port}" ether type ip6 drop')  # the ACL's implicit deny
    elif binding.sources6 is not None:  # the sources the port admits in IPv6, on link and off
        admitted = sorted((*binding.sources6, *_ON_LINK6), key=lambda net: int(net.network_address))
        shown = tuple(net.network_address if net.prefixlen == 128 else net for net in admitted)
        lines += [f'iifname "{port}" ip6 saddr :: meta l4proto != ipv6-icmp drop',
                  f'iifname "{port}" ip6 saddr != {_one_or_set(shown)} drop']
    return lines


def acl_lines(entry: AclEntry, family: Family, tunnel_match: str, permit: str = "accept") -> list[str]:
    """``permit``: the verdict of a permit line: `accept`, or `return` in an inbound ACL of a device
    that also filters outbound (an `accept` in a jumped chain ends the hook: the outbound ACL the
    packet meets next would never see it; a switch applies both)."""
    return [nft_rule(entry, tunnel_match, family, permit=permit)]


# nftables' names of the ICMPv6 types the compiler names
NFT_ICMPV6 = {"nd-ns": "nd-neighbor-solicit", "nd-na": "nd-neighbor-advert", "router-solicitation": "nd-router-solicit",
              "router-advertisement": "nd-router-advert"}


# nftables' words for ICMP in each family: its type match, its protocol, its type names
NFT_ICMP: dict[Family, tuple[str, str, dict[str, str]]] = {
    Family.V4: ("icmp", "icmp", icmp_words("frr_linux", Family.V4)),
    Family.V6: ("icmpv6", "ipv6-icmp", {**NFT_ICMPV6, **icmp_words("frr_linux", Family.V6)})}


def _nft_icmp(icmp_type: str | None, family: Family) -> str:
    header, protocol, names = NFT_ICMP[family]
    return f"{header} type {names.get(icmp_type, icmp_type)}" if icmp_type else f"meta l4proto {protocol}"


def _nft_ports(entry: AclEntry) -> list[str]:
    parts: list[str] = []
    if entry.src_port is not None:
        parts.append(f"{entry.proto} sport {entry.src_port}")
    if entry.dst_ports:
        ports = ", ".join(str(p) for p in entry.dst_ports)
        parts.append(f"{entry.proto} dport {{ {ports} }}")
    if not entry.src_port and not entry.dst_ports:
        parts.append(f"meta l4proto {entry.proto}")
    if entry.proto == "tcp" and entry.established:
        # IOS and EOS `established`: a segment with ACK or RST set, not a tracked connection
        # (a stateful device's return lines are dropped before they get here)
        parts.append("tcp flags & (ack | rst) != 0")
    return parts


def nft_rule(entry: AclEntry, tunnel_match: str, family: Family, permit: str = "accept") -> str:
    parts: list[str] = []
    address = Family(family).nft  # a plain 4 or 6 too
    if entry.via_tunnel:
        parts.append(tunnel_match)
    if entry.src is not None:
        parts.append(f"{address} saddr {entry.src}")
    if entry.dst is not None:
        parts.append(f"{address} daddr {entry.dst}")
    if entry.proto in ("tcp", "udp"):
        parts += _nft_ports(entry)
    elif entry.proto == "icmp":
        parts.append(_nft_icmp(entry.icmp_type, family))
    if entry.log:
        parts.append(f'log prefix "boothnet {entry.action} {entry.rule} "')
    parts.append("counter")
    parts.append(permit if entry.action == "permit" else "drop")
    return " ".join(parts)
