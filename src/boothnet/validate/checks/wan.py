"""WAN: each declared path that crosses a WAN link, measured as a long fat pipe: the OS default
window and the advised one (both ways), parallel streams below the BDP each, UDP at a share of
the path, and TCP beside UDP load; each judged against the window, loss and physical limits."""

from __future__ import annotations

from boothnet.validate.checks._measured import MeasuredCheck, mbps, why_cell
from boothnet.validate.checks.base import Context
from boothnet.validate.perf.calibrate import lab_ceiling, window_factor
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.perf.wan import run_wan_path
from boothnet.validate.perf.wan_path import WanPath, capped
from boothnet.validate.plan import crosses_vpn, declared_wan_paths


def declared_paths(ctx: Context) -> list[WanPath]:
    """The intent's paths that cross a WAN link; in the lab each capped at what its own delay line
    and userspace tunnel carry here."""
    net = ctx.net
    paths = declared_wan_paths(net, ctx.tunnel_mtu)
    if ctx.access.on_floor:
        return paths
    ceiling = lab_ceiling(ctx.run.build_root, ctx.progress)
    return [capped(p, ceiling, crosses_vpn(net, p.source, p.destination)) for p in paths]


class Wan(MeasuredCheck):
    name = "wan"
    order = 110
    title = "WAN paths: window, streams, UDP"
    rows_first = None
    header = ("verdict", "path", "test", "window", "streams", "measured Mb/s", "expected Mb/s", "limit", "why")
    empty = "no declared path crosses a WAN link"
    kinds = frozenset({"default-window", "advised-window", "parallel", "udp", "udp-load", "tcp-under-udp-load"})

    def applies(self, ctx: Context) -> bool:
        return any(link.wan for link in ctx.net.links)

    def measure(self, ctx: Context) -> list[ThroughputResult]:
        factor = window_factor(ctx.run.build_root, ctx.progress)
        return [row for path in declared_paths(ctx)
                for row in run_wan_path(ctx.access.runner, path, ctx.access.node, ctx.net, ctx.progress, factor,
                                        lab=ctx.access.forwards_here)]

    def cells(self, row: ThroughputResult) -> list[str]:
        return [row.status, row.path + (" (reverse)" if row.reverse else ""), row.kind,
                "OS default" if not row.window else f"{row.window}",
                str(row.streams) + (f" ({', '.join(mbps(x) for x in row.stream_throughputs)})"
                                    if row.stream_throughputs else ""),
                mbps(row.throughput if row.succeeded else None), mbps(row.expected), row.limit or "-",
                why_cell(row)]



CHECK = Wan()
