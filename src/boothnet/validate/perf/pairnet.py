"""Two throw-away namespaces joined by one veth: for the benchmark and perf lab tests.

Not the lab (boothnet.lab builds the intent's topology); just enough to measure the
tools themselves. Always use it as a context manager: the namespaces are deleted on
exit, whatever happened inside.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from types import TracebackType

from boothnet.lab import shape


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@dataclass
class VethPair:
    """``a`` (198.18.200.1) and ``b`` (198.18.200.2) on one veth, MTU and speed per end."""

    tag: str = field(default_factory=lambda: f"{os.getpid() % 100000}")
    mtu_a: int = 1500
    mtu_b: int = 1500
    speed_mbps: int | None = None  # None: unshaped
    addr_a: str = "198.18.200.1"
    addr_b: str = "198.18.200.2"

    @property
    def ns_a(self) -> str:
        return f"bnperf-a-{self.tag}"

    @property
    def ns_b(self) -> str:
        return f"bnperf-b-{self.tag}"

    if_a = "perf0"
    if_b = "perf1"

    def link_name(self) -> str:
        return f"{self.ns_a}:{self.if_a} -- {self.ns_b}:{self.if_b}"

    def __enter__(self) -> VethPair:
        try:
            _ip("netns", "add", self.ns_a)
            _ip("netns", "add", self.ns_b)
            _ip("link", "add", f"bnp{self.tag}a", "type", "veth", "peer", "name", f"bnp{self.tag}b")
            _ip("link", "set", f"bnp{self.tag}a", "netns", self.ns_a, "name", self.if_a)
            _ip("link", "set", f"bnp{self.tag}b", "netns", self.ns_b, "name", self.if_b)
            for ns, ifn, addr, mtu in ((self.ns_a, self.if_a, self.addr_a, self.mtu_a),
                                       (self.ns_b, self.if_b, self.addr_b, self.mtu_b)):
                _ip("-n", ns, "link", "set", "lo", "up")
                _ip("-n", ns, "link", "set", ifn, "mtu", str(mtu))
                _ip("-n", ns, "addr", "add", f"{addr}/30", "dev", ifn)
                _ip("-n", ns, "link", "set", ifn, "up")
                if self.speed_mbps:
                    shape(ns, ifn, self.speed_mbps)
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        for ns in (self.ns_a, self.ns_b):  # deleting a namespace deletes its veth end
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
