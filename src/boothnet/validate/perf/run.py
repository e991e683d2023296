"""One throughput test end to end: server up, client run, server down, result judged.

The one measurement layer: the LAN throughput tests and the WAN paths both run their tools
here (argv, port, server lifetime, client timeout, parse)."""

from __future__ import annotations

import threading

from boothnet.validate.perf import iperf3, nuttcp
from boothnet.validate.perf.formula import DEFAULT_PASS_RATIO
from boothnet.validate.perf.request import Tool, ToolCommands, ToolName, ToolRequest
from boothnet.validate.perf.runner import CommandResult, Runner, pidfile_for, start_background, stop_background
from boothnet.validate.perf.schema import ThroughputResult, judge

__all__ = ["TOOLS", "ToolName", "ToolRequest", "combine", "run_throughput"]

TOOLS: dict[str, Tool] = {"iperf3": iperf3, "nuttcp": nuttcp}
# iperf3 (3.12, Debian 12) opens a UDP test with one datagram and waits for the server's reply
# without end: on a lossy path (1 % loss loses it about once in a hundred tests) the client hangs
# until its timeout, which says nothing of the path's loss. Such a run is measured once more.
UDP_HANDSHAKE_LOST = ("its first run hung until its timeout: iperf3 waits without end for the reply to the one "
                      "datagram that opens a UDP test, which a lossy path can lose; measured again")


def run_throughput(runner: Runner, request: ToolRequest, *, expected_bps: float | None = None,
                   ratio: float = DEFAULT_PASS_RATIO, start_together: threading.Barrier | None = None
                   ) -> ThroughputResult:
    """Measure what ``request`` asks: its server bounded in time and stopped by pid whatever
    happens to the client; judged against ``expected_bps`` when given. ``start_together``: the
    client starts when every other holder of the barrier has its server up."""
    tool = TOOLS[request.tool]
    commands = tool.commands(request)
    limit = request.duration + request.omit + 60
    res = _client_against_server(runner, request, commands, limit, start_together)
    retried = None
    if _timed_out(res) and request.tool == "iperf3" and request.udp_rate_bps is not None \
            and tool.hung_at(res.stdout) in (iperf3.NO_STREAM, ""):
        retried = UDP_HANDSHAKE_LOST
        res = _client_against_server(runner, request, commands, limit, None)
    result = tool.result(request, res.stdout, res.stderr, res.returncode).model_copy(
        update={"reverse": request.reverse, "retried": retried})
    if _timed_out(res):
        where = tool.hung_at(res.stdout)
        result = result.model_copy(update={"succeeded": False, "error": (
            f"{request.tool} client timed out after {commands.client_timeout:g} s{f' {where}' if where else ''}")})
    if expected_bps is not None:
        result = judge(result, expected_bps, ratio)
    return result


def _client_against_server(runner: Runner, request: ToolRequest, commands: ToolCommands, limit: float,
                           start_together: threading.Barrier | None) -> CommandResult:
    """The server started (bounded by `limit` s), the client run (after the others, with
    `start_together`), the server stopped by pid whatever happened to the client."""
    port = request.ports.first
    try:
        handle = start_background(runner, request.server_node, commands.server,
                                  pidfile_for(runner, request.server_node, request.tool, port), limit_s=limit,
                                  port=port)
    except RuntimeError:
        if start_together is not None:
            start_together.abort()  # the other clients must not wait for this one
        raise
    try:
        if start_together is not None:
            start_together.wait(timeout=limit)
        return runner(request.client_node, commands.client, commands.client_timeout + commands.stop_grace_s)
    finally:
        stop_background(runner, handle)


TIMEOUT_EXIT = 124


def _timed_out(res: CommandResult) -> bool:
    """Stopped at its bound: by the runner, or by timeout(1) (exit 124) around the client."""
    return res.timed_out or (res.argv[:1] == ("timeout",) and res.returncode == TIMEOUT_EXIT)


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
