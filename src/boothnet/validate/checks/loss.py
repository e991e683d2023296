"""Loss: each LAN path family (source VLAN to destination VLAN) sends UDP at half its limit, both
ways, judged on the datagrams lost against what the intent declares on the links crossed;
measured in the throughput check's lanes (``run._measure_loss``)."""

from __future__ import annotations

from boothnet.validate.checks._measured import MeasuredCheck, mbps, why_cell
from boothnet.validate.checks.base import Context
from boothnet.validate.perf.schema import ThroughputResult


class Loss(MeasuredCheck):
    name = "loss"
    order = 82
    title = "Loss (UDP below the limit, each LAN path family, both ways)"
    header = ("verdict", "path", "from -> to", "rate Mb/s", "datagrams", "lost %", "jitter ms", "why")
    kinds = frozenset({"loss"})

    def execute(self, ctx: Context) -> None:
        """Measured in the throughput check's lanes, beside the host paths."""

    def cells(self, row: ThroughputResult) -> list[str]:
        return [row.status, row.path, f"{row.source} -> {row.destination}",
                mbps(row.throughput if row.succeeded else None), "-" if row.packets is None else str(row.packets),
                "-" if row.lost_pct is None else f"{row.lost_pct:.3f}",
                "-" if row.jitter_ms is None else f"{row.jitter_ms:.3f}", why_cell(row)]


CHECK = Loss()
