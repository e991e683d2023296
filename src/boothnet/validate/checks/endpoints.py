"""Endpoints: each host where the intent puts it (address, gateway, switch port), no other MAC
answering for its address, and no unlisted address answering in a secured VLAN; in a dual-stack
VLAN a second row, its IPv6 address, default router and gateway's neighbour entry."""

from __future__ import annotations

from boothnet.validate.checks.base import Context, LiveCheck, Suspect
from boothnet.validate.placement import run_placement
from boothnet.validate.results import EndpointRow

_IN_IPV6 = " (IPv6)"  # a dual-stack host's second row, as the other sections name theirs


class Endpoints(LiveCheck):
    name = section = field = "endpoints"
    order = 40
    title = "Endpoints"
    header = ("verdict", "host", "VLAN", "address", "port", "seen instead")
    empty = "no endpoints"
    alarm = "cause"
    alarm_rank = 70

    def measure(self, ctx: Context) -> list[EndpointRow]:
        return run_placement(ctx.net, ctx.access, ctx.progress, ctx.results.warnings)

    def subject(self, row: EndpointRow) -> str:
        return f"endpoint {row.host}{_IN_IPV6 if row.family == 6 else ''} ({row.vlan}, {row.attach})"

    def message(self, row: EndpointRow) -> str:
        return row.cause or "not where the intent puts it"

    def action(self, row: EndpointRow) -> str:
        return f"plug {row.host} into {row.attach.replace(':', ' ')} and give it {row.address} (VLAN {row.vlan})"

    def key(self, row: EndpointRow) -> str:
        return f"endpoint {row.host}{_IN_IPV6 if row.family == 6 else ''}"

    def cells(self, row: EndpointRow) -> list[str]:
        return [row.verdict, row.host, row.vlan, row.address, row.attach, row.cause or ""]

    def suspect(self, row: EndpointRow) -> Suspect | None:
        return Suspect(f"endpoint {row.host}: {row.cause}", host=row.host) if row.verdict == "FAIL" else None


CHECK = Endpoints()
