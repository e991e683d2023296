"""Items filed under IPv4 prefixes, found by the prefixes that hold a given one.

Both "does an earlier line already cover this one" checks — the intent's shadowed policy rules
and the derived ACLs' unreachable lines — compare an item only with items whose prefix contains
its own. Finding those is a lookup per prefix length in use, instead of a comparison with every
earlier item (500k rule pairs, 190k ACL line pairs on a 500-device floor).
"""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import Generic, TypeVar

T = TypeVar("T")


def _key(address: int, length: int) -> tuple[int, int]:
    return address >> (32 - length), length


class PrefixIndex(Generic[T]):
    def __init__(self) -> None:
        self._filed: dict[tuple[int, int] | None, list[T]] = {}
        self._lengths: set[int] = set()

    def add(self, prefix: IPv4Network | None, item: T) -> None:
        """File `item` under `prefix` (None: any address)."""
        key = None
        if prefix is not None:
            key = _key(int(prefix.network_address), prefix.prefixlen)
            self._lengths.add(prefix.prefixlen)
        self._filed.setdefault(key, []).append(item)

    def holding(self, prefix: IPv4Network | None) -> list[T]:
        """The items filed under any address, and, for a prefix, under it or a supernet of it."""
        found = list(self._filed.get(None, ()))
        if prefix is not None:
            address = int(prefix.network_address)
            for length in self._lengths:
                if length <= prefix.prefixlen:
                    found += self._filed.get(_key(address, length), ())
        return found
