"""htb shaping of lab links at their intent speed, with Ethernet wire overhead accounted.

A veth skb's length already includes the 14-byte Ethernet header; a real wire also
carries preamble (8), FCS (4) and the inter-frame gap (12) per frame. The class rate is
the share of line rate that frames of the link's MTU get once those 24 bytes are paid:
rate x (MTU + 14) / (MTU + 38). TCP goodput in the lab then follows the physical formula
rate x (MTU - 52) / (MTU + 38).

Why the rate and not htb's ``overhead``: htb charges ``overhead`` once per skb, so it is
only right with one frame per skb (``gso_max_segs 1``). That made every hop of a routed
path handle every frame: one 1 Gb/s TCP stream through booth1 -> core1 -> theater1 kept
both CPUs of a 2-core VM 83-99 % busy, and under any other load it fell to 0.77 of the
formula. With GSO left on, a super-packet crosses each hop once, and htb still charges it
per segment (its length counts each segment's headers): 7-8 % busy, 1.001 of the formula,
no retransmits. The price: frames smaller than the link's MTU get more than the formula,
up to 1.4 % (the VPN's 1400-byte inner frames on a 9000 access link); on most lab
bottlenecks, access links, the frame size is the link's MTU.
"""

from __future__ import annotations

import contextlib
from typing import Any

from pyroute2 import IPRoute
from pyroute2.netlink.exceptions import NetlinkError

WIRE_OVERHEAD = 24  # preamble 8 + FCS 4 + inter-frame gap 12 (L2 header is in skb->len)
ROOT_HANDLE = 0x10000  # 1:
CLASS_HANDLE = 0x10001  # 1:1, the only class; default for all traffic


def htb_params(speed_mbps: int, mtu: int) -> dict[str, int]:
    """Rate, burst and quantum for one htb class at ``speed_mbps`` carrying ``mtu``-sized frames.

    rate_bytes: the frames' share of line rate (module docstring).
    burst: one 250 Hz tick (4 ms) of line rate, as tc itself picks by default (rate/HZ):
    a bucket smaller than the watchdog's lateness loses tokens, and a 1 ms bucket ran
    100 Mb/s links at 0.87 of their rate on a CI VM. Never less than 4 full frames,
    so a jumbo frame always fits.
    quantum: only one class, so it sets no share; it must be >= one frame, and
    the kernel caps sane values at 200000 bytes.
    """
    line_bytes = speed_mbps * 1_000_000 // 8
    frame = mtu + 14  # what htb charges per frame: skb length, Ethernet header included
    rate_bytes = line_bytes * frame // (frame + WIRE_OVERHEAD)
    burst = max(line_bytes // 250, 4 * frame)
    quantum = min(200_000, max(frame, line_bytes // 1000))
    return {"rate_bytes": rate_bytes, "burst": burst, "quantum": quantum, "frame": frame}


def shape(netns: str, ifname: str, speed_mbps: int) -> None:
    """Replace the root qdisc of ``ifname`` in ``netns`` by htb at ``speed_mbps``.

    Idempotent: an existing root qdisc is deleted first. Reads the link's MTU so the
    bucket fits a full frame (call it after the MTU is set).
    """
    # flags=0: never create the namespace as a side effect of a typo
    with IPRoute(netns=netns, flags=0) as ns:
        shape_in(ns, ifname, speed_mbps, where=netns)


def shape_in(ns: Any, ifname: str, speed_mbps: int, where: str = "") -> None:
    """``shape`` on an already open pyroute2 ``IPRoute``/``NetNS`` handle (saves one
    netns round trip per link when a runner shapes many links)."""
    if speed_mbps <= 0:
        raise ValueError(f"shape {where}/{ifname}: speed_mbps must be > 0, got {speed_mbps}")
    found = ns.link_lookup(ifname=ifname)
    if not found:
        raise ValueError(f"shape: no interface {ifname!r} in netns {where!r}")
    index = found[0]
    mtu = int(ns.get_links(index)[0].get("IFLA_MTU"))
    p = htb_params(speed_mbps, mtu)
    with contextlib.suppress(NetlinkError):  # no root qdisc yet is the normal case
        ns.tc("del", index=index, handle=0, parent=0xFFFFFFFF)
    ns.tc("add", "htb", index=index, handle=ROOT_HANDLE, default=CLASS_HANDLE & 0xFFFF)
    ns.tc(
        "add-class",
        "htb",
        index=index,
        handle=CLASS_HANDLE,
        parent=ROOT_HANDLE,
        rate=p["rate_bytes"],
        ceil=p["rate_bytes"],
        burst=p["burst"],
        cburst=p["burst"],
        quantum=p["quantum"],
        mtu=p["frame"],
    )
