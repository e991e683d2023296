"""The WAN judges: pure functions over what the tools recorded (a ThroughputResult parsed from
iperf3's or nuttcp's output), each against what the path carries (wan_path.WanPath.expect).

One stream, or N together (judge_stream), with the OS default window or the advised one; the
window sweep against k x window/RTT below the BDP and the path's limit above it (judge_sweep);
UDP loss and jitter against the path's declared ones (judge_udp, over judges.judge_loss); a TCP
stream beside UDP against what the UDP leaves (judge_under_load)."""

from __future__ import annotations

from collections.abc import Sequence

from boothnet.status import Status
from boothnet.validate.perf.formula import faster_than_limit, window_advice
from boothnet.validate.perf.judges import judge_loss, mb
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.perf.wan_path import WanPath

SWEEP_BAND = (0.75, 1.15)  # below the BDP, goodput / (window/RTT) must fall in this band


def _kib(n: float) -> str:
    return f"{n / 2**20:.2f} MiB" if n >= 2**20 else f"{n / 1024:.0f} KiB"


def judge_stream(result: ThroughputResult, path: WanPath, ratio: float, window: int | None,
                 autotuning: tuple[int, float] | None = None) -> ThroughputResult:
    """One stream (or N together): judged against what the path carries (physical, or the Mathis
    bound when it declares loss); window/RTT explains a stream that stays below.

    ``autotuning`` (the sender's net.ipv4.tcp_wmem maximum, this kernel's window factor k): an
    OS-default stream whose sender cannot buffer the BDP is the host's limit, not the network's;
    it is judged as a sweep point at the window that buffer gives (half of it, as -w asks),
    and the advice says what fills the path."""
    capacity = path.expect()
    goal = capacity.bps
    if result.kind == "parallel" and window:
        goal = min(capacity.bps, result.streams * path.expect(window).bps)
    if window is None and autotuning and capacity.limit == "physical":
        wmem_max, k = autotuning
        follows = window_bps(path, k, wmem_max // 2)
        if follows < capacity.bps:
            return _judge_autotuned(result, path, follows, wmem_max, k)
    # faster than the intent's rate is a shaping fault; faster than the lab's ceiling share is not
    too_fast = faster_than_limit(result.throughput, path.intent_physical_bps) if result.succeeded else None
    ok = result.succeeded and result.throughput >= ratio * goal and too_fast is None
    in_flight = result.throughput * path.rtt_ms / 1000 / 8
    if not result.succeeded:
        why = f"no measurement: {result.error}"
    elif too_fast:
        why = too_fast
    elif result.kind == "parallel":
        each = window or 0
        why = (f"{result.streams} streams with {_kib(each)} windows each (below the BDP of {_kib(path.bdp)}): "
               f"{mb(result.throughput)} together, {result.throughput / goal:.0%} of {mb(goal)} "
               f"(>= {ratio:.0%} passes)")
    elif ok and capacity.limit == "loss":
        how = f"with -w {_kib(window)}" if window else "with the OS default window (autotuning)"
        why = (f"one stream {how}: {mb(result.throughput)}, {result.throughput / goal:.0%} of the Mathis bound "
               f"{mb(goal)} for {path.loss_pct:g} % loss (a Reno bound: Linux's CUBIC with SACK keeps more in "
               f"flight)")
    elif ok:
        how = f"with -w {_kib(window)}" if window else "with the OS default window (autotuning)"
        limit = "lab's" if path.ceiling_note else capacity.limit
        why = (f"one stream {how} fills the path: {mb(result.throughput)}, {result.throughput / goal:.0%} of "
               f"the {limit} limit {mb(goal)}")
    elif window and window >= path.bdp:
        why = (f"below the limit with -w {_kib(window)}, at or above the BDP of {_kib(path.bdp)}: "
               f"{mb(result.throughput)}, {result.throughput / goal:.0%} of {mb(goal)}: the path carries less "
               f"than the intent says (loss, a slower hop, a busy delay line or host)")
    else:
        how = f"-w {_kib(window)}" if window else "the OS default window (autotuning, up to net.ipv4.tcp_wmem)"
        why = (f"window-limited: with {how} one stream kept {_kib(in_flight)} in flight, below the BDP of "
               f"{_kib(path.bdp)} ({mb(capacity.physical_bps)} x {path.rtt_ms:g} ms): {mb(result.throughput)}, "
               f"{result.throughput / goal:.0%} of {mb(goal)}; use -w {path.advised_window}")
    return result.model_copy(update={
        "expected": goal, "pass_ratio": ratio, "verdict": Status.of(ok),
        "limit": "window" if goal < capacity.bps else capacity.limit,
        "explanation": why, "advice": window_advice(capacity.physical_bps, path.rtt_ms, window).text})


def effective_window(result: ThroughputResult) -> int | None:
    """The window asked for, or less where the kernel capped it (net.core.wmem_max): Linux
    reports twice what it grants for SO_SNDBUF."""
    if result.window and result.buffer_bytes:
        return min(result.window, result.buffer_bytes // 2)
    return result.window


def window_bps(path: WanPath, k: float, window: int) -> float:
    """What one stream with ``window`` carries over ``path``: k x window/RTT (k: this kernel's)."""
    return k * window * 8 / (path.rtt_ms / 1000)


def _idles(path: WanPath, carried_bps: float) -> str:
    return f"the sender idles {1 - carried_bps / path.expect().bps:.0%} of each round trip"


def _judge_autotuned(result: ThroughputResult, path: WanPath, follows: float, wmem_max: int, k: float
                     ) -> ThroughputResult:
    share = result.throughput / follows if result.succeeded else 0.0
    too_fast = faster_than_limit(result.throughput, path.intent_physical_bps) if result.succeeded else None
    ok = result.succeeded and share >= SWEEP_BAND[0] and too_fast is None
    why = (f"no measurement: {result.error}" if not result.succeeded else too_fast or
           f"window-limited by the sender's autotuning (net.ipv4.tcp_wmem max {_kib(wmem_max)}, as -w "
           f"{_kib(wmem_max // 2)}): {mb(result.throughput)}, {share:.0%} of {k:.2f} x window/RTT = "
           f"{mb(follows)} (>= {SWEEP_BAND[0]:.0%} passes); {_idles(path, follows)}: the host's default, not "
           f"the network, use -w {path.advised_window} to fill the path")
    return result.model_copy(update={
        "expected": follows, "pass_ratio": SWEEP_BAND[0], "verdict": Status.of(ok), "limit": "window",
        "explanation": why, "advice": window_advice(path.expect().physical_bps, path.rtt_ms, None).text})


def judge_sweep(points: Sequence[ThroughputResult], path: WanPath, ratio: float, k: float) -> list[ThroughputResult]:
    """The sweep: below the BDP goodput must follow k x window/RTT, with the intent's RTT and k,
    what this kernel carries per byte of window asked for, measured once per machine on a
    reference path (validate/perf/calibrate.py: about 1.3 here at MTU 9000), never on the run it
    judges; at and above the BDP it must reach pass_ratio of the path's limit.

    Each point below the BDP says the share of each round trip the sender sits idle, waiting
    for acknowledgements (1 - k x window/BDP); the first at or above it is the knee, where
    goodput stops rising (SC2000's OC-12 home path plateaued at a 1.5 MB window)."""
    out = []
    knee = None
    for p in sorted(points, key=lambda p: effective_window(p) or 0):
        window = effective_window(p) or 0
        follows = min(path.expect().bps, window_bps(path, k, window))
        limit = "window" if follows < path.expect().bps else path.expect().limit
        if not p.succeeded:
            ok, why = False, f"no measurement: {p.error}"
        elif limit == "window":
            share = p.throughput / follows
            ok = SWEEP_BAND[0] <= share <= SWEEP_BAND[1]
            why = (f"-w {_kib(window)} below the BDP of {_kib(path.bdp)}: {mb(p.throughput)}, {share:.0%} of "
                   f"{k:.2f} x window/RTT = {mb(follows)} (k measured on this machine's reference path; "
                   f"{SWEEP_BAND[0]:.0%}-{SWEEP_BAND[1]:.0%} passes); {_idles(path, follows)} "
                   "(1 - k x window/BDP)")
        else:
            ok = p.throughput >= ratio * follows
            why = (f"-w {_kib(window)} at or above the BDP: {mb(p.throughput)}, {p.throughput / follows:.0%} "
                   f"of the {limit} limit {mb(follows)}")
            if knee is None and ok:
                knee = window
                why += (f"; the knee: the first window of the sweep that fills the path "
                        f"(BDP / k = {_kib(int(path.bdp / k))})")
        if p.window and window < p.window:
            why += f" (asked -w {_kib(p.window)}: the kernel caps it at net.core.wmem_max)"
        out.append(p.model_copy(update={"expected": follows, "pass_ratio": ratio, "limit": limit,
                                        "verdict": Status.of(ok), "explanation": why}))
    return out


def judge_udp(result: ThroughputResult, path: WanPath, rate_bps: float,
              dropped_here: dict[str, int] | None = None) -> ThroughputResult:
    """Loss against the declared loss (judge_loss), with the datagrams still on the wire when the
    test ends (iperf3's server may close its count while the last one-way delay's worth are in
    the delay line), and jitter within what the path declares."""
    datagram = (result.bytes or 0) / result.packets if result.packets else path.mtu
    return judge_loss(result, path.loss_pct, rate_bps, in_flight=rate_bps * path.one_way_ms / 1000 / 8 / datagram,
                      jitter_ms=path.jitter_ms, dropped_here=dropped_here)


def judge_under_load(udp: ThroughputResult, tcp: ThroughputResult, path: WanPath, rate_bps: float, ratio: float
                     ) -> list[ThroughputResult]:
    """As the ORNL tests did: the TCP stream measured while UDP took ``rate_bps`` of the path must
    get ``ratio`` of what the UDP leaves; the UDP beside it is judged as the path's (judge_udp)."""
    udp_judged = judge_udp(udp, path, rate_bps)
    if path.ceiling_note and udp_judged.verdict == Status.FAIL:
        # TCP fills the lab's own ceiling beside it: the emulation (charon's queue, the delay line)
        # drops, not the network; a path at its real rate is judged on the floor
        udp_judged = udp_judged.model_copy(update={"verdict": Status.SKIPPED, "explanation": (
            f"{udp_judged.explanation}: lost beside TCP filling the lab's {path.ceiling_kind}, so not judged here")})
    left = path.expect().bps - (udp.throughput if udp.succeeded else rate_bps)
    ok = tcp.succeeded and tcp.throughput >= ratio * left
    why = (f"beside {mb(udp.throughput)} of UDP: {mb(tcp.throughput)}, "
           f"{tcp.throughput / left:.0%} of the {mb(left)} the UDP leaves of {mb(path.expect().bps)}"
           if tcp.succeeded else f"no measurement: {tcp.error}")
    tcp_judged = tcp.model_copy(update={
        "expected": left, "pass_ratio": ratio, "verdict": Status.of(ok),
        "limit": path.expect().limit, "explanation": why})
    return [udp_judged, tcp_judged]
