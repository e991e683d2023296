"""Port blocks for test servers: deterministic per test id, never two on one block.

Each test gets a block of ``width`` consecutive TCP ports on its server node (iperf3 uses
the first; nuttcp uses the first for control and the next ones for its data streams).
The block is picked from the test id's hash, so the same test gets the same ports run
after run (easy to find in captures), and moves to the next free block on collision with
another test of this allocator or with a port already listening on the node.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# Each tool's own first port (iperf3's server; nuttcp's control, its data on the next): what a
# firewall rule for the tools names, and where the WAN tests run
TOOL_PORTS: dict[str, int] = {"iperf3": 5201, "nuttcp": 5000}
DEFAULT_BASE = TOOL_PORTS["iperf3"]
DEFAULT_WIDTH = 8
DEFAULT_SLOTS = 512  # 5201 .. 9296 with width 8


@dataclass(frozen=True)
class PortBlock:
    test_id: str
    node: str
    first: int
    width: int

    @property
    def ports(self) -> range:
        return range(self.first, self.first + self.width)


def _slot(test_id: str, slots: int) -> int:
    # sha256 rather than hash(): Python's str hash changes per process.
    digest = hashlib.sha256(test_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") % slots


@dataclass
class PortAllocator:
    base: int = DEFAULT_BASE
    width: int = DEFAULT_WIDTH
    slots: int = DEFAULT_SLOTS
    _used: dict[tuple[str, int], str] = field(default_factory=dict)  # (node, slot) -> test id
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # tests in parallel lanes

    def __post_init__(self) -> None:
        if self.base < 1024 or self.base + self.width * self.slots > 65536:
            raise ValueError(f"port range {self.base}+{self.width}x{self.slots} is out of bounds")

    def allocate(
        self,
        test_id: str,
        node: str,
        in_use: Iterable[int] | Callable[[], Iterable[int]] = (),
    ) -> PortBlock:
        """A free block for ``test_id`` on server ``node``.

        ``in_use``: ports already taken on the node (e.g. ``listening_ports(runner, node)``),
        or a callable returning them, evaluated once.
        """
        taken = set(in_use() if callable(in_use) else in_use)
        with self._lock:
            return self._take(test_id, node, taken)

    def _take(self, test_id: str, node: str, taken: set[int]) -> PortBlock:
        start = _slot(test_id, self.slots)
        for step in range(self.slots):
            slot = (start + step) % self.slots
            owner = self._used.get((node, slot))
            if owner == test_id:
                return self._block(test_id, node, slot)
            if owner is not None:
                continue
            block = self._block(test_id, node, slot)
            if taken.isdisjoint(block.ports):
                self._used[(node, slot)] = test_id
                return block
        raise RuntimeError(f"no free block of {self.width} ports left on {node} for {test_id}")

    def release(self, block: PortBlock) -> None:
        slot = (block.first - self.base) // self.width
        with self._lock:
            if self._used.get((block.node, slot)) == block.test_id:
                del self._used[(block.node, slot)]

    def _block(self, test_id: str, node: str, slot: int) -> PortBlock:
        return PortBlock(test_id, node, self.base + slot * self.width, self.width)
