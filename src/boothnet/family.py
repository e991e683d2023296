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
