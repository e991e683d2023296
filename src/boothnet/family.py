"""The address family as one value: IPv4 or IPv6.

Dual stack is one path taking a family, not an IPv4 function and its IPv6 twin. A ``Family``
is an ``int`` (4 or 6), so it compares, hashes, prints and serialises as the number, and code
that keeps a family as a plain 4 or 6 meets it unchanged; what differs between the families
(how a prefix is written, the word a config says, a label) is an attribute of the value, not a
branch at each use.
"""

from __future__ import annotations

from enum import IntEnum
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network


class Family(IntEnum):
    V4 = 4
    V6 = 6

    @property
    def max_prefixlen(self) -> int:
        """A host's prefix length: 32 or 128."""
        return 32 if self == Family.V4 else 128

    @property
    def label(self) -> str:
        """What a name gets in this family: nothing for IPv4 (the default), " (IPv6)" for IPv6."""
        return "" if self == Family.V4 else " (IPv6)"

    @property
    def suffix(self) -> str:
        """What the intent's and the model's names for it end with: none for IPv4, "6" for IPv6
        (addresses6, next_hop6, acl6_in)."""
        return "" if self == Family.V4 else "6"

    @property
    def acl_suffix(self) -> str:
        """What an ACL's name ends with: IPv4's none, IPv6's "_V6"."""
        return "" if self == Family.V4 else "_V6"

    @property
    def nft(self) -> str:
        """nftables' word for the family's header: `ip` or `ip6`."""
        return "ip" if self == Family.V4 else "ip6"

    def host(self, address: IPv4Address | IPv6Address | str) -> IPv4Network | IPv6Network:
        """One address as a network of its own: a /32 or a /128."""
        network = IPv4Network if self == Family.V4 else IPv6Network
        return network(f"{address}/{self.max_prefixlen}")


FAMILIES = (Family.V4, Family.V6)


# The ICMP types a rule may name (`icmp_types`: intent.model.Rule), by the name the intent and
# the compiled model use, with the word each platform prints for it in each family it exists in:
# (IOS, EOS, nftables). A type of one family only (timestamps: IPv4; packet-too-big: IPv6) gives
# lines in that family only: no packet of the other family is of that type.
ICMP_PLATFORMS = ("cisco_ios", "arista_eos", "frr_linux")
ICMP_TYPES: dict[str, dict[Family, tuple[str, str, str]]] = {
    "echo-request": {Family.V4: ("echo", "echo", "echo-request"),
                     Family.V6: ("echo-request", "echo-request", "echo-request")},
    "echo-reply": {Family.V4: ("echo-reply",) * 3, Family.V6: ("echo-reply",) * 3},
    "destination-unreachable": {Family.V4: ("unreachable", "unreachable", "destination-unreachable"),
                                Family.V6: ("unreachable", "unreachable", "destination-unreachable")},
    "time-exceeded": {Family.V4: ("time-exceeded",) * 3, Family.V6: ("time-exceeded",) * 3},
    "parameter-problem": {Family.V4: ("parameter-problem",) * 3, Family.V6: ("parameter-problem",) * 3},
    "redirect": {Family.V4: ("redirect",) * 3, Family.V6: ("redirect", "redirect", "nd-redirect")},
    "timestamp-request": {Family.V4: ("timestamp-request",) * 3},
    "timestamp-reply": {Family.V4: ("timestamp-reply",) * 3},
    "packet-too-big": {Family.V6: ("packet-too-big",) * 3},
}
# the types' numbers, as Batfish's headers and the wire say them
ICMP_NUMBERS: dict[str, dict[Family, int]] = {
    "echo-request": {Family.V4: 8, Family.V6: 128}, "echo-reply": {Family.V4: 0, Family.V6: 129},
    "destination-unreachable": {Family.V4: 3, Family.V6: 1}, "time-exceeded": {Family.V4: 11, Family.V6: 3},
    "parameter-problem": {Family.V4: 12, Family.V6: 4}, "redirect": {Family.V4: 5, Family.V6: 137},
    "timestamp-request": {Family.V4: 13}, "timestamp-reply": {Family.V4: 14}, "packet-too-big": {Family.V6: 2},
}
# what a stateless device must let back for a permitted type: its reply (the request's state)
ICMP_REPLY = {"echo-request": "echo-reply", "timestamp-request": "timestamp-reply"}


def icmp_words(platform: str, family: Family) -> dict[str, str]:
    """A platform's words for the ICMP types of one family, where they differ from the name."""
    column = ICMP_PLATFORMS.index(platform)
    return {name: words[family][column] for name, words in ICMP_TYPES.items()
            if family in words and words[family][column] != name}
