"""WAN RTT: every WAN link's round trip (its first end's router pings the second end) and every
declared path's that crosses one (from its source host), small and at the MTU with DF, against
the delay the intent declares. A watch round sends one small series of each, all at once."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from boothnet.deploy.batch import in_parallel
from boothnet.validate.checks.base import Context, LiveCheck, Moved, Suspect
from boothnet.validate.perf.schema import RttRow
from boothnet.validate.perf.wan_probes import (
    link_families,
    link_rtt_probe,
    path_rtt_probe,
    probe_wan_links,
    wan_links,
)
from boothnet.validate.plan import declared_wan_paths
from boothnet.validate.results import Failure

RTT_FLOOR_MS = 1.0  # a row moved between runs by more than its spread, and at least this
ROUND_PINGS = 10  # a watch round's series


class WanRtt(LiveCheck):
    name = "wan rtt"
    section = field = "rtt"
    row_type = RttRow
    order = 75
    title = "WAN paths: RTT"
    rows_first = None
    header = ("verdict", "path", "from -> to", "payload B (DF)", "declared ms", "min/avg/max ms", "note")
    empty = "no WAN link"
    alarm = "effect"
    alarm_rank = 60

    def applies(self, ctx: Context) -> bool:
        return any(link.wan for link in ctx.net.links)

    def measure(self, ctx: Context) -> list[RttRow]:
        if ctx.profile.share is not None:
            return self._round(ctx)
        access, net = ctx.access, ctx.net
        rows = probe_wan_links(net, access.runner, access.node, ctx.progress, access.has_shell)
        for path in declared_wan_paths(net, ctx.tunnel_mtu):
            for payload in (56, path.largest_ping):
                row = path_rtt_probe(access.runner, access.node(path.source.name), path, payload)
                ctx.progress(f"[wan] {path.name}: RTT {payload} B {row.avg_ms or 0:.1f} ms "
                             f"(declared {row.declared_ms:g}) {row.verdict}")
                rows.append(row)
        return rows

    def _round(self, ctx: Context) -> list[RttRow]:
        """One small DF ping series per WAN link (its first end's router) and per declared WAN path
        (its source host), all at once."""
        access, net = ctx.access, ctx.net
        runner, node = access.runner, access.node
        probes: list[Callable[[], RttRow]] = [
            partial(link_rtt_probe, runner, node(router), link, 56, ROUND_PINGS, family)
            for link in wan_links(net) if access.has_shell(router := link.a.split(":", 1)[0])
            for family in link_families(link)]
        probes += [partial(path_rtt_probe, runner, node(path.source.name), path, 56, f"path {path.name}", ROUND_PINGS)
                   for path in declared_wan_paths(net, None) if not access.why_not(path.source.name, "ping")]
        return in_parallel(probes, lambda probe: probe())

    def subject(self, row: RttRow) -> str:
        return f"path {row.path} ({row.payload} B DF ping)"

    def action(self, row: RttRow) -> str:
        return "check the WAN hop's delay and the intent's delay_ms for it"

    def failure(self, row: RttRow) -> Failure | None:
        return super().failure(row) if row.verdict == "FAIL" else None

    def key(self, row: RttRow) -> str:
        return f"rtt {row.path} {row.payload} B"

    def moved(self, before: RttRow, after: RttRow) -> Moved | None:
        if before.avg_ms is None or after.avg_ms is None:
            return None
        spread = [(r.max_ms or r.avg_ms or 0.0) - (r.min_ms or r.avg_ms or 0.0) for r in (before, after)]
        noise = max(max(spread), RTT_FLOOR_MS)
        if abs(after.avg_ms - before.avg_ms) <= noise:
            return None
        return Moved(subject=f"RTT {after.path} ({after.payload} B)", before=before.avg_ms, after=after.avg_ms,
                     unit="ms", noise=noise, limit=f"declared {after.declared_ms:g} +- {after.tolerance_ms:g} ms")

    def suspect(self, row: RttRow) -> Suspect | None:
        return Suspect(f"RTT {row.path}: {row.cause}", path=row.path, source=row.source,
                       destination=row.destination) if row.verdict == "FAIL" else None

    def cells(self, row: RttRow) -> list[str]:
        return [row.verdict, row.path, f"{row.source} -> {row.destination}", str(row.payload),
                f"{row.declared_ms:g} +- {row.tolerance_ms:g}",
                "-" if row.avg_ms is None else f"{row.min_ms:.1f} / {row.avg_ms:.1f} / {row.max_ms:.1f}",
                row.cause or ""]



CHECK = WanRtt()
