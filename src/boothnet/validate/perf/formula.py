"""The physical throughput limit a path is judged against (see DESIGN.md, "Throughput").

TCP goodput on Ethernet with timestamps = rate x (MTU - 52) / (MTU + 38):
52 = IPv4 20 + TCP 20 + timestamps 12 per segment; 38 = preamble 8 + header 14 + FCS 4 +
inter-frame gap 12 per frame. 94.1 % of line rate at MTU 1500, 99.0 % at 9000. IPv6's header
is 20 bytes longer: (MTU - 72) / (MTU + 38), 92.8 % at 1500, 98.8 % at 9000.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from boothnet.status import Status

TCP_IP_HEADERS = 52  # IPv4 20 + TCP 20 + TCP timestamp option 12
IPV6_EXTRA_HEADER = 20  # IPv6's header is 40 bytes, IPv4's 20
ETH_WIRE_OVERHEAD = 38  # preamble+SFD 8 + MAC header 14 + FCS 4 + inter-frame gap 12
DEFAULT_PASS_RATIO = 0.9
# A measurement above the physical limit by more than this is no success: the link is not what the
# intent says (shaping missing, or the intent's speed is wrong). The lab's shaper lets frames
# smaller than its link's MTU through up to 1.5 % faster than the formula (labs/README.md).
MAX_OVER_LIMIT = 1.05

Verdict = Status  # PASS or FAIL


def goodput_fraction(mtu: int, family: int = 4) -> float:
    """Share of the line rate that TCP payload can use at ``mtu`` over IPv4 or IPv6."""
    headers = TCP_IP_HEADERS + (IPV6_EXTRA_HEADER if family == 6 else 0)
    if mtu <= headers:
        raise ValueError(f"MTU {mtu} leaves no room for TCP payload")
    return (mtu - headers) / (mtu + ETH_WIRE_OVERHEAD)


def expected_goodput(rate_bps: float, mtu: int, family: int = 4) -> float:
    """Expected TCP goodput in bits/s over a link of ``rate_bps`` at ``mtu``."""
    if rate_bps <= 0:
        raise ValueError(f"rate must be > 0 bits/s, got {rate_bps}")
    return rate_bps * goodput_fraction(mtu, family)


@dataclass(frozen=True)
class PathLink:
    """One hop of a path, as the intent declares it."""

    name: str  # e.g. "core1:Gi1/0/1 -- rsw1:Ethernet1"
    speed_mbps: float
    mtu: int


@dataclass(frozen=True)
class Bottleneck:
    speed_mbps: float
    mtu: int
    speed_link: str  # the link that sets the speed (first one on ties)
    mtu_link: str  # the link that sets the path MTU

    @property
    def expected_bps(self) -> float:
        return expected_goodput(self.speed_mbps * 1e6, self.mtu)


def bottleneck(links: Sequence[PathLink]) -> Bottleneck:
    """Slowest speed and smallest MTU over ``links`` (they may come from different links)."""
    if not links:
        raise ValueError("a path needs at least one link")
    slow = min(links, key=lambda link: link.speed_mbps)
    narrow = min(links, key=lambda link: link.mtu)
    return Bottleneck(slow.speed_mbps, narrow.mtu, slow.name, narrow.name)


def path_expected_goodput(links: Sequence[PathLink]) -> float:
    """Expected goodput of a path in bits/s: its bottleneck speed at its path MTU."""
    return bottleneck(links).expected_bps


def bdp_bytes(rate_bps: float, rtt_ms: float) -> float:
    """Bandwidth-delay product in bytes: what a single stream must keep in flight."""
    return rate_bps * (rtt_ms / 1000.0) / 8.0


@dataclass(frozen=True)
class WindowAdvice:
    rate_bps: float
    rtt_ms: float
    bdp_bytes: float
    window_bytes: int  # BDP rounded up to a power of two: what to pass as -w
    limited_by_window: bool | None  # True when the given window is below the BDP
    text: str


def _human_bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n:.0f} B"


def window_advice(rate_bps: float, rtt_ms: float, window_bytes: int | None = None) -> WindowAdvice:
    """Advice on the TCP window needed to fill ``rate_bps`` at a measured ``rtt_ms``."""
    bdp = bdp_bytes(rate_bps, rtt_ms)
    # Power of two because socket buffers are usually configured that way, and headroom
    # above the BDP costs nothing while a window just below it caps the stream.
    advised = 1 << max(12, math.ceil(math.log2(max(bdp, 1.0))))
    limited = None if window_bytes is None else window_bytes < bdp
    text = (
        f"{rate_bps / 1e6:.0f} Mb/s x {rtt_ms:g} ms = {_human_bytes(bdp)} in flight; "
        f"use a window of at least {_human_bytes(advised)} (-w {advised})"
    )
    if limited:
        text += f"; the window used ({_human_bytes(window_bytes or 0)}) caps one stream"
    return WindowAdvice(rate_bps, rtt_ms, bdp, advised, limited, text)


MATHIS_C = 1.22  # sqrt(3/2): Mathis et al. 1997, periodic loss, delayed ACKs off

Limit = Literal["physical", "window", "loss"]


@dataclass(frozen=True)
class TcpExpectation:
    """What one TCP stream can reach on a path, and which limit sets it."""

    bps: float
    limit: Limit
    physical_bps: float
    window_bps: float | None = None  # window / RTT
    loss_bps: float | None = None  # Mathis: MSS / RTT x 1.22 / sqrt(p)


def expected_tcp_goodput(rate_bps: float, mtu: int, rtt_ms: float | None = None,
                         window_bytes: int | None = None, loss_pct: float | None = None,
                         family: int = 4) -> TcpExpectation:
    """The smallest of the physical limit (rate at the path MTU), window/RTT for the window the
    stream used, and, when the path loses packets, the Mathis bound MSS/RTT x 1.22/sqrt(p)."""
    physical = expected_goodput(rate_bps, mtu, family)
    bounds: dict[Limit, float] = {"physical": physical}
    window = loss = None
    if rtt_ms is not None and rtt_ms <= 0:
        raise ValueError(f"RTT must be > 0 ms, got {rtt_ms}")
    if rtt_ms and window_bytes:
        window = bounds["window"] = window_bytes * 8 / (rtt_ms / 1000)
    if rtt_ms and loss_pct:
        if not 0 < loss_pct < 100:
            raise ValueError(f"loss must be in (0, 100) %, got {loss_pct}")
        mss_bits = (mtu - TCP_IP_HEADERS - (IPV6_EXTRA_HEADER if family == 6 else 0)) * 8
        loss = bounds["loss"] = mss_bits / (rtt_ms / 1000) * MATHIS_C / math.sqrt(loss_pct / 100)
    limit = min(bounds, key=lambda name: bounds[name])
    return TcpExpectation(bounds[limit], limit, physical, window, loss)


def verdict(measured_bps: float, expected_bps: float, ratio: float = DEFAULT_PASS_RATIO) -> Verdict:
    """PASS when ``ratio x expected_bps <= measured_bps <= MAX_OVER_LIMIT x expected_bps``."""
    if not 0 < ratio <= 1.5:
        raise ValueError(f"pass ratio must be in (0, 1.5], got {ratio}")
    return Status.of(ratio * expected_bps <= measured_bps <= MAX_OVER_LIMIT * expected_bps)


# Retransmitted segments per segment sent, above which a LAN TCP test fails. The clean lab
# retransmits none (sc-booth's research rows: 0 in 3 s at ~990 Mb/s, about 41,500 segments);
# 1 % of a file server's frames lost gave 466 (1.1 %). 0.1 % leaves a loaded switch its
# odd drop and fails a cable that loses one frame in a thousand.
RETRANSMIT_LIMIT = 0.001


def retransmit_rate(retransmits: int | None, payload_bytes: int | None, mss: int) -> float | None:
    """Retransmitted segments per segment carried, when the tool says both."""
    if retransmits is None or not payload_bytes or mss <= 0:
        return None
    return retransmits / max(1.0, payload_bytes / mss)


def faster_than_limit(measured_bps: float, limit_bps: float) -> str | None:
    """Why a measurement above the physical limit fails, or None when it is within it."""
    if limit_bps <= 0 or measured_bps <= MAX_OVER_LIMIT * limit_bps:
        return None
    return (f"{measured_bps / 1e6:.1f} Mb/s is {measured_bps / limit_bps:.2f}x the physical limit "
            f"{limit_bps / 1e6:.1f} Mb/s (at most {MAX_OVER_LIMIT:g}x): faster than the link: shaping missing, "
            "or the intent's speed is wrong")
