"""This machine's load, watched while the lab measures: the cores' busy share and how long each
of the lab's delay lines held frames past their time (LabWatch), which excuses a stream the
load slowed (excused: the lab's ceiling, no verdict); and the nodes whose software may drop a
UDP test's datagrams (udp_receivers). On a floor nothing is watched and nothing excused."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from boothnet.intent.model import Network
from boothnet.lab import delay_lines_behind
from boothnet.validate.perf.schema import ThroughputResult, busy_share, lab_cpu_bound, machine_cpu
from boothnet.validate.perf.wan_path import WanPath

T = TypeVar("T")


@dataclass(frozen=True)
class Taken:
    """What this machine's own load took from a lab measurement: its cores' busy share, and how
    long each of the lab's delay lines (by its device) held frames past their time meanwhile."""

    busy: float
    behind_ms: dict[str, float]


@dataclass(frozen=True)
class LabWatch:
    """Measurements watched for this machine's load (``namespaces``: the lab's devices'); on a
    floor (None) nothing is watched and nothing excused."""

    namespaces: dict[str, str] | None

    @classmethod
    def of(cls, ns: Callable[[str], str], net: Network, *, lab: bool) -> LabWatch:
        return cls({device: ns(device) for device in net.devices} if lab else None)

    def measure(self, measure: Callable[[], T]) -> tuple[T, Taken | None]:
        if self.namespaces is None:
            return measure(), None
        cpu, before = machine_cpu(), delay_lines_behind(self.namespaces)
        result = measure()
        after = delay_lines_behind(self.namespaces)
        return result, Taken(busy_share(cpu, machine_cpu()), {
            device: ms - before[device] for device, ms in after.items() if ms > before.get(device, ms)})


def excused(result: ThroughputResult, taken: Taken | None) -> ThroughputResult:
    """The lab's ceiling, no verdict, where this machine's load accounts for a slow stream (lab_cpu_bound)."""
    return lab_cpu_bound(result, taken.busy, taken.behind_ms) if taken else result


def udp_receivers(path: WanPath, ns: Callable[[str], str], net: Network, *, lab: bool) -> dict[str, str]:
    """Where a UDP test's datagrams may be dropped by this machine's own software (name: the
    runner's node): the receiving host; in the lab also every device, whose software carries them
    too (charon's ESP, the delay lines)."""
    return {path.destination.name: ns(path.destination.name)} | (
        {device: ns(device) for device in net.devices} if lab else {})
