"""The WAN path model: a declared throughput path whose route crosses a WAN link (``delay_ms``,
``jitter_ms``, ``loss_pct`` on a routed link; the lab's delay line applies them), what it
carries (physical, window/RTT, Mathis), and, in the lab, the ceiling its emulation carries.

The route of a path is the shortest chain of the intent's links between the two endpoints'
switches (hop count): the intent has no routing table, and a booth's WAN is one hop.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from ipaddress import IPv6Address

from boothnet.intent.model import Endpoint, Link, Network
from boothnet.validate.perf.formula import (
    TcpExpectation,
    bdp_bytes,
    expected_goodput,
    expected_tcp_goodput,
    window_advice,
)
from boothnet.validate.perf.judges import CEILING_SHARE, TUNNEL_CEILING_SHARE, mb
from boothnet.validate.perf.probes import IPV4_ICMP_HEADERS, IPV6_ICMP_HEADERS
from boothnet.validate.perf.schema import ThroughputResult

RTT_TOLERANCE_MS = 2.0


@dataclass(frozen=True)
class WanPath:
    name: str
    source: Endpoint
    destination: Endpoint
    links: tuple[str, ...]  # the WAN links crossed, as the intent names them
    one_way_ms: float
    jitter_ms: float
    loss_pct: float  # each direction, all WAN links together
    rate_bps: float  # the slowest link or port on the route
    mtu: int
    ceiling_bps: float | None = None  # in the lab: the goodput its emulation carries here (capped())
    ceiling_kind: str = ""  # "delay line", "tunnel and delay line"
    address6: IPv6Address | None = None  # set on the path's IPv6 twin (in_ipv6): its destination's

    @property
    def family(self) -> int:
        return 6 if self.address6 else 4

    @property
    def address(self) -> str:
        """The destination's address in the path's family."""
        return str(self.address6 or self.destination.address)

    @property
    def largest_ping(self) -> int:
        """The largest DF ping payload the path MTU carries: IPv6's header is 20 bytes longer."""
        return self.mtu - (IPV6_ICMP_HEADERS if self.address6 else IPV4_ICMP_HEADERS)

    def in_ipv6(self, address6: IPv6Address) -> WanPath:
        return replace(self, name=f"{self.name} (IPv6)", address6=address6)

    @property
    def intent_physical_bps(self) -> float:
        """The goodput the intent's rate allows at the path MTU, whatever the lab carries."""
        return expected_goodput(self.rate_bps, self.mtu, self.family)

    @property
    def lab_rate_bps(self) -> float:
        """rate_bps, or less where the lab's emulation carries less: what the lab judges against."""
        if self.ceiling_bps is None:
            return self.rate_bps
        return self.rate_bps * min(1.0, self.ceiling_bps / self.intent_physical_bps)

    @property
    def ceiling_note(self) -> str | None:
        if self.ceiling_bps is None or self.lab_rate_bps >= self.rate_bps:
            return None
        return (f"judged against what this lab's {self.ceiling_kind} can carry, at most {mb(self.ceiling_bps)} on "
                f"this machine: the intent's {mb(self.intent_physical_bps)} can only be proven "
                "on the floor")

    @property
    def rtt_ms(self) -> float:
        return 2 * self.one_way_ms

    @property
    def rtt_tolerance_ms(self) -> float:
        # a path adds its other hops to the WAN's round trip (the VPN gateways' userspace ESP, 2 ms
        # on sc-booth): it gets 10 % on top of the link's tolerance
        return max(RTT_TOLERANCE_MS, 0.1 * self.rtt_ms) + 2 * self.jitter_ms

    def expect(self, window_bytes: int | None = None) -> TcpExpectation:
        return expected_tcp_goodput(self.lab_rate_bps, self.mtu, self.rtt_ms, window_bytes, self.loss_pct or None,
                                    self.family)

    @property
    def advised_window(self) -> int:
        return window_advice(self.expect().physical_bps, self.rtt_ms).window_bytes

    @property
    def bdp(self) -> float:
        return bdp_bytes(self.expect().physical_bps, self.rtt_ms)


def wan_links_on(hops: Sequence[Link]) -> list[Link]:
    """The WAN links (delay, jitter or loss) among a route's links: a path with any is a WAN path."""
    return [link for link in hops if link.wan]


CARRIED = 0.9  # the scratch pair got this share of the path's physical limit: the lab carries the path


def capped(path: WanPath, ceiling: Callable[[str, WanPath], float], tunnel: bool) -> WanPath:
    """``path`` in the lab, judged against what the lab's delay line (and tunnel) carry on this
    machine when the intent asks more (calibrate.lab_ceiling); never on a floor."""
    kind = "tunnel and delay line" if tunnel else "delay line"
    carried = ceiling(kind, path)
    if carried >= CARRIED * path.intent_physical_bps:
        return path
    return replace(path, ceiling_bps=(TUNNEL_CEILING_SHARE if tunnel else CEILING_SHARE) * carried, ceiling_kind=kind)


def noted(path: WanPath, tests: list[ThroughputResult]) -> list[ThroughputResult]:
    """Each row of a path the lab cannot carry at its intent's rate says so."""
    if (note := path.ceiling_note) is None:
        return tests
    return [t.model_copy(update={"explanation": f"{t.explanation}; {note}" if t.explanation else note})
            for t in tests]


def wan_paths(net: Network, path_mtu: Callable[[Endpoint, Endpoint], int]) -> list[WanPath]:
    """Every declared throughput path whose route crosses a WAN link."""
    out = []
    for declared in net.throughput.paths:
        src, dst = net.endpoints[declared.source], net.endpoints[declared.destination]
        hops = net.route(src, dst)
        wan = wan_links_on(hops)
        if not wan:
            continue
        speeds = [net.port_index[e.attach].speed for e in (src, dst)] + [net.link_speed(link) for link in hops]
        kept = math.prod(1 - link.loss_pct / 100 for link in wan)
        out.append(WanPath(
            name=declared.name, source=src, destination=dst,
            links=tuple(link.key for link in wan),
            one_way_ms=sum(link.delay_ms for link in wan),
            jitter_ms=sum(link.jitter_ms for link in wan),
            loss_pct=round(100 * (1 - kept), 6),
            rate_bps=min(speeds) * 1e6,
            mtu=path_mtu(src, dst),
        ))
    return out

