"""What the LAN and the WAN judges share: a UDP test's loss against the loss declared (a LAN
pair's cables, a WAN path's links), the share of the lab's own measured ceiling a path is
judged against, and the socket buffers a UDP test asks for."""

from __future__ import annotations

import math

from boothnet.status import Status
from boothnet.validate.perf.schema import ThroughputResult

UDP_BUFFER = 4 * 2**20  # socket buffers of a UDP test (net.core.rmem_max caps larger)

# of what the lab's emulation carried on the scratch pair: a lab path has more hops and shares the
# CPU with every namespace (sc-booth's tunnel path: 0.69-0.93 of the pair's figure, run to run, and
# once, in a full suite run, 0.52: 0.6 of it failed a row on the lab's own noise)
CEILING_SHARE = 0.5
# charon's userspace ESP is noisier still: once, alone on an idle machine, 0.447 of the pair's
# figure, one second of four at 83 Mb/s with 97 retransmits
TUNNEL_CEILING_SHARE = 0.4


def mb(bps: float) -> str:
    """A rate as every row says it."""
    return f"{bps / 1e6:.0f} Mb/s"


# where this machine's own software dropped datagrams, as both of judge_loss's CPU-bound answers say
AT_FULL_QUEUES = "at a full socket buffer or TUN/TAP queue (UDP RcvbufErrors, tx drops)"


def judge_loss(result: ThroughputResult, declared_pct: float, rate_bps: float, *, in_flight: float = 0,
               jitter_ms: float = 0, where: str = "", dropped_here: dict[str, int] | None = None) -> ThroughputResult:
    """A UDP test's loss against ``declared_pct``, within three standard errors of a binomial
    count and 0.1 percentage point; ``in_flight`` datagrams at the end can only add to the loss
    counted. ``where``: what a failure names (the path's cables). ``dropped_here``: datagrams
    each node's kernel dropped meanwhile because its software did not read them in time
    (probes.software_drops: the receiving host's socket; in the lab also a tunnel gateway's
    charon, a delay line): lost on this machine, not the network, so a loss they account for is
    no verdict (cause cpu_bound)."""
    dropped = {node: count for node, count in (dropped_here or {}).items() if count}
    said = ", ".join(f"{node} dropped {count}" for node, count in dropped.items())
    result = result.model_copy(update={"software_drops": dropped})  # on the row, whatever the verdict
    if not result.succeeded or result.lost_pct is None or not result.packets:
        if dropped:  # the tool's own exchange crosses the same full queues: it hung on this machine
            return result.model_copy(update={"verdict": Status.ERROR, "causes": [*result.causes, "cpu_bound"],
                                              "explanation": (
                f"CPU-bound: no measurement ({result.error}) while {said} datagrams {AT_FULL_QUEUES}: software on "
                "this machine did not keep up, and the "
                "test's own exchange was lost with them (no verdict; measure again on a quieter machine)")})
        return result.model_copy(update={"verdict": "FAIL", "explanation": f"no measurement: {result.error}"})
    p = declared_pct / 100
    sigma = math.sqrt(max(p * (1 - p), 1e-12) / result.packets) * 100
    edge = 100 * in_flight / result.packets
    below, above = 3 * sigma + 0.1, 3 * sigma + 0.1 + edge

    def within(lost_pct: float) -> bool:
        return -below <= lost_pct - declared_pct <= above

    ok = within(result.lost_pct)
    why = (f"{result.packets} datagrams at {mb(rate_bps)}: {result.lost_pct:.3f} % lost, "
           f"declared {declared_pct:g} % (from -{below:.3f} to +{above:.3f}: 3 sigma + 0.1"
           + (f", and {edge:.3f} above for the {in_flight:.0f} datagrams in flight at the end" if in_flight else "")
           + f"); jitter {result.jitter_ms or 0:.2f} ms")
    if jitter_ms:  # a path that declares jitter: the measured one (RFC 3550) stays within it
        inside = (result.jitter_ms or 0) <= jitter_ms
        ok = ok and inside
        why += f" ({'within' if inside else 'above'} the declared {jitter_ms:g} ms)"
    lost = round(result.lost_pct * result.packets / 100)
    here = sum(dropped.values())
    network = 100 * max(0, lost - here) / result.packets  # what no node's kernel dropped
    # the machine's own drops cover every datagram lost (counted on more than one queue): what the
    # network lost cannot be told apart, so no verdict either (ci: 4246 dropped here of 3729 lost)
    if not ok and here and (within(network) or here >= lost):
        return result.model_copy(update={"verdict": Status.ERROR, "causes": [*result.causes, "cpu_bound"],
                                          "explanation": (
            f"CPU-bound: {said} of the {lost} datagrams lost, {AT_FULL_QUEUES}: software on this machine did not "
            f"read them as fast as they came; the "
            f"network lost {network:.3f} %, as declared: this machine, not the network, limited the test (no "
            f"verdict; measure again on a quieter machine); {why}")})
    if not ok and where:
        why += f": frames are lost on {where}"
    if not ok and here:  # part of the loss was this machine's: said, with the count the verdict did not excuse
        why += f"; of the {lost} lost, {said} {AT_FULL_QUEUES}: this machine's own, so the network lost {network:.3f} %"
    return result.model_copy(update={"verdict": Status.of(ok), "explanation": why})
