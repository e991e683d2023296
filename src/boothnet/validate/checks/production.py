"""Production under research load: each production host's pings and transfers, on the idle
network and again while the research aggregates run; production must not feel research."""

from __future__ import annotations

from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.production import production_under_load
from boothnet.validate.results import ProductionRow


def _figure(probe: str, value: float | None) -> str:
    """A ping's mean RTT, a transfer's rate."""
    return "no reply" if value is None else f"{value:.3f} ms" if probe == "ping" else f"{value:.0f} Mb/s"


class ProductionUnderLoad(LiveCheck):
    name = "production under load"
    section = field = "production"
    order = 90
    title = "Production under research load (idle, then while the research aggregates run)"
    header = ("verdict", "probe", "from -> to", "idle", "under load", "lost under load", "why")
    empty = "no production host to probe, or no research traffic to load the network with"
    measures = True
    alarm = "effect"
    alarm_rank = 110

    def measure(self, ctx: Context) -> list[ProductionRow]:
        return production_under_load(ctx.net, ctx.access, ctx.progress)

    def subject(self, row: ProductionRow) -> str:
        return f"{row.probe} {row.source} -> {row.destination} under research load"

    def message(self, row: ProductionRow) -> str:
        return row.cause

    def action(self, row: ProductionRow) -> str:
        return ("find what carries research traffic into this production host's path: a mirror (SPAN) session, a "
                "shared trunk or uplink, shaping or QoS removed")

    def key(self, row: ProductionRow) -> str:
        return f"production {row.probe} {row.source} -> {row.destination}"

    def cells(self, row: ProductionRow) -> list[str]:
        return [row.verdict, row.probe, f"{row.source} -> {row.destination}", _figure(row.probe, row.idle),
                _figure(row.probe, row.loaded), "-" if row.sent is None else f"{row.lost} of {row.sent}", row.cause]


CHECK = ProductionUnderLoad()
