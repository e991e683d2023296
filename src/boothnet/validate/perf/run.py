"""One throughput test end to end: server up, client run, server down, result judged.

The one measurement layer: the LAN throughput tests and the WAN paths both run their tools
here (argv, port, server lifetime, client timeout, parse)."""

from __future__ import annotations

import threading
from typing import Literal

from boothnet.validate.perf import iperf3, nuttcp
from boothnet.validate.perf.formula import DEFAULT_PASS_RATIO
from boothnet.validate.perf.ports import PortBlock
from boothnet.validate.perf.runner import CommandResult, Runner, pidfile_for, start_background, stop_background
from boothnet.validate.perf.schema import ThroughputResult, judge

ToolName = Literal["iperf3", "nuttcp"]


def run_throughput(
    runner: Runner,
    tool: ToolName,
    *,
    server_node: str,
    client_node: str,
    destination: str,
    ports: PortBlock,
    streams: int = 1,
    duration: int = 10,
    window: int | None = None,
    mss: int | None = None,
    path: str = "",
    source: str = "",
    expected_bps: float | None = None,
    ratio: float = DEFAULT_PASS_RATIO,
    start_together: threading.Barrier | None = None,
    omit: int = 0,
    udp_rate_bps: float | None = None,
    server_window: int | None = None,
    destination_label: str = "",
    reverse: bool = False,
    tcp_rate_bps: float | None = None,
) -> ThroughputResult:
    """Measure ``client_node`` -> ``destination`` (an address of ``server_node``).

    The server listens on ``ports.first`` (nuttcp: control; data on the following
    ports), is bounded in time, and is stopped by pid whatever happens to the client.
    ``omit``: seconds of slow start left out (iperf3 -O; nuttcp has none, so it runs that
    much longer and the intervals after them count). ``udp_rate_bps``: iperf3 UDP at that
    rate; ``tcp_rate_bps``: iperf3 TCP paced at that rate. ``server_window``: nuttcp's server
    window (-ws). ``destination_label``: the name the result gives the destination (default:
    its address). ``reverse``: the server sends
    (iperf3 -R, nuttcp -r); ``source`` and ``destination_label`` still name the client's
    and the server's ends, and the result names them the way the data flowed.
    """
    if tool == "nuttcp" and streams + 1 > ports.width:
        raise ValueError(f"nuttcp with {streams} streams needs {streams + 1} ports, "
                         f"the block has {ports.width}")
    port = ports.first
    server, client, client_timeout = _argv(tool, destination, port, streams=streams, duration=duration,
                                           window=window, mss=mss, omit=omit, udp_rate_bps=udp_rate_bps,
                                           server_window=server_window, reverse=reverse,
                                           tcp_rate_bps=tcp_rate_bps)
    res = _client_against_server(runner, tool, port, (server_node, server), (client_node, client), client_timeout,
                                 duration + omit + 60, start_together)
    ends = [source or client_node, destination_label or destination]
    if reverse:
        ends.reverse()
    common = {"source": ends[0], "destination": ends[1], "path": path,
              "window": window, "stderr": res.stderr, "returncode": res.returncode}
    if tool == "iperf3":
        result = iperf3.parse(res.stdout, **common)  # type: ignore[arg-type]
    else:
        result = _after_omit(nuttcp.parse(res.stdout, streams=streams, **common), omit)  # type: ignore[arg-type]
    result = result.model_copy(update={"reverse": reverse})
    if res.timed_out:
        result = result.model_copy(update={
            "succeeded": False, "error": f"{tool} client timed out after {client_timeout:g} s"})
    if expected_bps is not None:
        result = judge(result, expected_bps, ratio)
    return result


def _client_against_server(
    runner: Runner, tool: ToolName, port: int, server: tuple[str, list[str]], client: tuple[str, list[str]],
    client_timeout: float, limit: float, start_together: threading.Barrier | None,
) -> CommandResult:
    """The server started (bounded by `limit` s), the client run (after the others, with
    `start_together`), the server stopped by pid whatever happened to the client."""
    (server_node, server_argv), (client_node, client_argv) = server, client
    try:
        handle = start_background(runner, server_node, server_argv,
                                  pidfile_for(runner, server_node, tool, port), limit_s=limit, port=port)
    except RuntimeError:
        if start_together is not None:
            start_together.abort()  # the other clients must not wait for this one
        raise
    try:
        if start_together is not None:
            start_together.wait(timeout=limit)
        return runner(client_node, client_argv, client_timeout)
    finally:
        stop_background(runner, handle)


def _argv(tool: ToolName, destination: str, port: int, *, streams: int, duration: int, window: int | None,
          mss: int | None, omit: int, udp_rate_bps: float | None, server_window: int | None, reverse: bool,
          tcp_rate_bps: float | None = None) -> tuple[list[str], list[str], float]:
    """The tool's server and client command lines and how long the client may run."""
    if tool == "iperf3":
        return (iperf3.server_argv(port),
                iperf3.client_argv(destination, port, streams=streams, duration=duration, window=window, mss=mss,
                                   omit=omit, udp_rate_bps=udp_rate_bps, reverse=reverse, tcp_rate_bps=tcp_rate_bps),
                iperf3.client_timeout(duration, omit))
    # nuttcp has no -O: it runs omit seconds longer and the intervals after them count
    return (nuttcp.server_argv(port),
            nuttcp.client_argv(destination, port, streams=streams, duration=duration + omit, window=window, mss=mss,
                               server_window=server_window, reverse=reverse),
            nuttcp.client_timeout(duration + omit))


def _after_omit(result: ThroughputResult, omit: int) -> ThroughputResult:
    """nuttcp's goodput over the intervals after the first ``omit`` seconds."""
    kept = [i for i in result.intervals if i.start >= omit]
    if not omit or not result.succeeded or not kept:
        return result
    return result.model_copy(update={"throughput": sum(i.throughput for i in kept) / len(kept),
                                     "duration": kept[-1].end - kept[0].start, "intervals": kept})


def combine(results: list[ThroughputResult], path: str) -> ThroughputResult:
    """Tests run at the same time, as one: throughput, bytes, streams and retransmits add up;
    the RTT is the worst. One result comes back as it is."""
    if len(results) == 1:
        return results[0]
    first = results[0]
    failed = [r for r in results if not r.succeeded]

    def total(field: str) -> int | None:
        values = [getattr(r, field) for r in results]
        return None if any(v is None for v in values) else sum(values)

    rtts = [r.rtt_ms for r in results if r.rtt_ms is not None]
    return ThroughputResult(
        tool=first.tool,
        succeeded=not failed,
        error="; ".join(f"{r.source}: {r.error}" for r in failed) or None,
        path=path,
        reverse=first.reverse,
        source="+".join(dict.fromkeys(r.source for r in results)),  # together: several ends, or one sending to all
        destination="+".join(dict.fromkeys(r.destination for r in results)),
        streams=sum(r.streams for r in results),
        duration=min(r.duration for r in results),
        throughput=sum(r.throughput for r in results),
        bytes=total("bytes"),
        retransmits=total("retransmits"),
        rtt_ms=max(rtts) if rtts else None,
        mss=first.mss,
    )
