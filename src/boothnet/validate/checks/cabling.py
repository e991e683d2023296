"""Cabling: what each device's ports hear by LLDP, against the intent's cables."""

from __future__ import annotations

from boothnet.booth.lldp import CablingRow
from boothnet.validate.cabling import run_cabling
from boothnet.validate.checks.base import Context, LiveCheck, Suspect


class Cabling(LiveCheck):
    name = section = field = "cabling"
    order = 30
    title = "Cabling (LLDP)"
    header = ("verdict", "cable", "what the ends hear")
    empty = "no cables"
    alarm = "cause"
    alarm_rank = 20

    def measure(self, ctx: Context) -> list[CablingRow]:
        return run_cabling(ctx.net, ctx.access, ctx.progress)

    def subject(self, row: CablingRow) -> str:
        return f"cable {row.cable}"

    def message(self, row: CablingRow) -> str:
        return row.cause or "not where the intent says"

    def action(self, row: CablingRow) -> str:
        return (f"re-plug {row.label} as its label says ({row.cable.partition(' ')[2]})" if row.label != "-"
                else "unplug it, or add the cable to the intent")

    def key(self, row: CablingRow) -> str:
        return f"cabling {row.cable}"

    def cells(self, row: CablingRow) -> list[str]:
        return [row.verdict, row.cable, row.cause or "both ends see each other"]

    def suspect(self, row: CablingRow) -> Suspect | None:
        return None if row.verdict == "PASS" or row.label == "-" else Suspect(f"cabling: {row.cause}", label=row.label)


CHECK = Cabling()
