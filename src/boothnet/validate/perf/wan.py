"""Long fat pipes: the tests of a declared path that crosses a WAN link, run in turn (the path
model: wan_path.py; the RTT probes: wan_probes.py; the judges: wan_judges.py; the tool runners:
wan_tools.py; this machine's load watched in the lab: lab_watch.py).

As the show networks measured their home paths (SC2000's window sweeps, GSFC's nuttcp RTT
probes, the ORNL parallel streams): small and large DF pings against the declared RTT; one
TCP stream with the OS default window and one with the advised window (the bandwidth-delay
product rounded up), both judged against what the path can carry, so the report shows
whether one stream with the defaults fills it; N parallel streams, each with a window below
the BDP; UDP at a set rate for loss and jitter against the declared loss; and, as its own
stage, a sweep of windows from well below to above the BDP, each judged against
min(physical, window/RTT, Mathis) for the window the kernel actually gave.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

from boothnet.intent.model import Network
from boothnet.progress import Progress
from boothnet.validate.perf.judges import UDP_BUFFER
from boothnet.validate.perf.lab_watch import LabWatch, excused, udp_receivers
from boothnet.validate.perf.probes import drops_meanwhile
from boothnet.validate.perf.quiet import MachineLoad, until_settled
from boothnet.validate.perf.runner import Runner
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.perf.wan_judges import judge_stream, judge_sweep, judge_udp, judge_under_load
from boothnet.validate.perf.wan_path import WanPath, noted
from boothnet.validate.perf.wan_tools import WanTest, autotuning_max, run_iperf3, run_nuttcp


@dataclass(frozen=True)
class PathTests:
    """What the TCP tests of one path share: the runner, the client's and the server's nodes,
    the path, the intent, the watch on this machine's load, and the sender's autotuning (the
    net.ipv4.tcp_wmem maximum and this kernel's k, where it holds less than the BDP: judge_stream)."""

    runner: Runner
    ends: tuple[str, str]
    path: WanPath
    net: Network
    watch: LabWatch
    autotuning: tuple[int, float] | None = None


def wan_stream(on: PathTests, kind: str, window: int | None, reverse: bool = False, streams: int = 1
               ) -> ThroughputResult:
    """One TCP test of the path (iperf3 between the nodes ``on.ends``), judged (judge_stream), and
    the lab's ceiling where this machine's load accounts for it (``on.watch``)."""
    settings = on.net.throughput.wan
    test = WanTest(kind, settings.duration_s, settings.omit_s, window, streams, reverse=reverse)

    def judged() -> ThroughputResult:
        measured, taken = on.watch.measure(partial(run_iperf3, on.runner, on.ends, on.path, test))
        return excused(judge_stream(measured, on.path, on.net.throughput.pass_ratio, window, on.autotuning), taken)

    first = judged()
    # a stream the load starved is measured again at a quieter moment before it says CPU-bound
    return first if on.watch.namespaces is None else until_settled(judged, first, MachineLoad())


def run_wan_path(
    runner: Runner, path: WanPath, ns: Callable[[str], str], net: Network, progress: Progress,
    window_factor: Callable[[str, int], float] | None = None, *, lab: bool = False,
) -> list[ThroughputResult]:
    """The window pair, parallel streams and UDP (the path's RTT: the wan rtt check).
    ``window_factor``: this kernel's k, which judges an OS-default stream its sender's autotuning
    limits (judge_stream). ``lab``: a stream slowed while this machine's cores were saturated is
    the lab's ceiling, no verdict (lab_cpu_bound), as on the LAN; so is one while a delay line of
    the lab fell behind long enough to account for it."""
    settings = net.throughput.wan
    client, server = ns(path.source.name), ns(path.destination.name)
    wmem_max = autotuning_max(runner, client)
    # k (above 1: the kernel grants more than asked) only where the default buffer holds less than
    # the BDP: asking for it may start a calibration run
    autotuning = (wmem_max, window_factor("iperf3", path.mtu)) \
        if wmem_max and window_factor and wmem_max // 2 < path.bdp else None
    advised = path.advised_window
    tests: list[ThroughputResult] = []
    watch = LabWatch.of(ns, net, lab=lab)
    stream = partial(wan_stream, PathTests(runner, (client, server), path, net, watch, autotuning))
    # the advised window both ways: the path's far end sending fills it too (iperf3 -R)
    for kind, window, reverse in (("default-window", None, False), ("advised-window", advised, False),
                                  ("advised-window", advised, True)):
        tests.append(stream(kind, window, reverse))
    each = max(4096, advised // settings.streams)  # each stream below the BDP, together above it
    tests.append(stream("parallel", each, streams=settings.streams))
    rate = path.expect().physical_bps * settings.udp_rate_pct / 100
    # no -O for UDP: iperf3 3.12 counts the datagrams lost while omitting against the rest
    # (1.4-1.5 % reported for 1.0 % dropped)
    # -w gives the receiving socket room for 200 ms at 300 Mb/s: with the default 208 KiB a
    # server descheduled for 6 ms drops datagrams the path delivered (1.3 % seen in CI)
    udp, dropped_here = drops_meanwhile(runner, udp_receivers(path, ns, net, lab=lab), partial(
        run_iperf3, runner, (client, server), path,
        WanTest("udp", settings.duration_s + settings.omit_s, 0, UDP_BUFFER, udp_rate_bps=rate)))
    tests.append(judge_udp(udp, path, rate, dropped_here))
    if "nuttcp" in net.throughput.tools:
        (udp_load, tcp), taken = watch.measure(lambda: tcp_under_udp_load(runner, client, server, path, net, advised))
        tests += [udp_load, excused(tcp, taken)]
    tests = noted(path, tests)
    for t in tests:
        progress(f"[wan] {path.name} {t.kind}: {t.throughput / 1e6:.1f} Mb/s {t.verdict}: {t.explanation}")
    return tests


def tcp_under_udp_load(runner: Runner, client: str, server: str, path: WanPath, net: Network,
                       window: int) -> list[ThroughputResult]:
    """As the ORNL tests did: a TCP stream (nuttcp, the advised window) while UDP (iperf3) takes
    udp_load_pct of the path; the stream must get pass_ratio of what the UDP leaves (judge_under_load)."""
    settings = net.throughput.wan
    rate = path.expect().physical_bps * settings.udp_load_pct / 100
    with ThreadPoolExecutor(max_workers=2) as pool:
        load = pool.submit(run_iperf3, runner, (client, server), path, WanTest(
            "udp-load", settings.duration_s + settings.omit_s, 0, UDP_BUFFER, udp_rate_bps=rate))
        tcp = pool.submit(run_nuttcp, runner, (client, server), path, WanTest(
            "tcp-under-udp-load", settings.duration_s, settings.omit_s, window))
        return judge_under_load(load.result(), tcp.result(), path, rate, net.throughput.pass_ratio)


def run_wan_sweep(
    runner: Runner, path: WanPath, ns: Callable[[str], str], net: Network, progress: Progress,
    window_factor: Callable[[str, int], float], *, lab: bool = False,
) -> list[ThroughputResult]:
    """Each tool at each window of the sweep, judged together per tool (judge_sweep). ``lab``: a
    point slowed while this machine's cores were saturated is the lab's ceiling, no verdict
    (lab_cpu_bound), as the path's other streams are."""
    settings = net.throughput.wan
    run = {"iperf3": run_iperf3, "nuttcp": run_nuttcp}
    watch = LabWatch.of(ns, net, lab=lab)
    points = []
    for tool in net.throughput.tools:
        measured, taken = [], {}
        for factor in settings.sweep:
            window = max(4096, int(path.advised_window * factor))
            point, taken[window] = watch.measure(partial(
                run[tool], runner, (ns(path.source.name), ns(path.destination.name)), path,
                WanTest("sweep", settings.sweep_duration_s, settings.omit_s, window)))
            measured.append(point)
            progress(f"[wan sweep] {path.name} {tool} -w {window}: {point.throughput / 1e6:.1f} Mb/s")
        judged = judge_sweep(measured, path, net.throughput.pass_ratio, window_factor(tool, path.mtu))
        points += noted(path, [excused(p, taken[p.window or 0]) for p in judged])
    for point in points:
        progress(f"[wan sweep] {path.name}: {point.verdict}: {point.explanation}")
    return points
