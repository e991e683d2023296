"""MTU: a DF ping at the VLAN's MTU from each endpoint to its gateway, across each routed link,
and along each declared path; a black hole (no reply, no frag-needed) names its first hop."""

from __future__ import annotations

from boothnet.validate.checks.base import Context, LiveCheck, Suspect
from boothnet.validate.results import MtuRow
from boothnet.validate.run import run_mtu


class Mtu(LiveCheck):
    name = section = field = "mtu"
    order = 60
    title = "MTU probes"
    rows_first = "failed"
    header = ("verdict", "link / path", "MTU", "from -> to", "probe", "cause")
    rotates = True
    alarm = "effect"
    alarm_rank = 80

    def measure(self, ctx: Context) -> list[MtuRow]:
        return run_mtu(ctx.net, ctx.access, ctx.progress, ctx.in_share)

    def subject(self, row: MtuRow) -> str:
        return f"link {row.path}" + (f" [{row.device}]" if row.device else "")

    def message(self, row: MtuRow) -> str:
        return f"MTU {row.mtu} {row.source} -> {row.destination}: {row.cause or 'failed'}"

    def action(self, row: MtuRow) -> str:
        return f"set MTU {row.mtu} on every hop of {row.path}" + (f" (first: {row.device})" if row.device else "")

    def key(self, row: MtuRow) -> str:
        return f"mtu {row.path} {row.source} -> {row.destination} ({row.kind})"

    def suspect(self, row: MtuRow) -> Suspect | None:
        return Suspect(f"MTU {row.mtu} {row.path}: {row.cause}", path=row.path, source=row.source,
                       destination=row.destination) if row.verdict == "FAIL" else None

    def cells(self, row: MtuRow) -> list[str]:
        return [row.verdict, row.path, str(row.mtu), f"{row.source} -> {row.destination}", row.kind, row.cause or ""]



CHECK = Mtu()
