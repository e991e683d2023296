"""iperf3: command lines for server and client (``-J``), and the JSON parser."""

from __future__ import annotations

import json
import statistics
from typing import Any, Final

from boothnet.validate.perf.request import ToolCommands, ToolRequest
from boothnet.validate.perf.schema import Interval, ThroughputResult

TOOL: Final = "iperf3"


def server_argv(port: int, *, bind: str | None = None) -> list[str]:
    """A one-off server in the foreground (``-1``: exits after one test)."""
    argv = ["iperf3", "-s", "-1", "-p", str(port)]
    if bind:
        argv += ["-B", bind]
    return argv


def client_argv(request: ToolRequest) -> list[str]:
    """Client sending to the request's destination on its first port, with JSON output
    (``reverse``: receiving from it, -R).

    window: socket buffer in bytes (-w); mss: TCP MSS (-M); omit: seconds of slow start
    left out of the result (-O).
    """
    r = request
    if r.streams < 1 or r.duration < 1:
        raise ValueError(f"streams and duration must be >= 1, got {r.streams}, {r.duration}")
    argv = ["iperf3", "-c", r.destination, "-p", str(r.ports.first), "-J",
            "-P", str(r.streams), "-t", str(r.duration), "-i", "1"]
    if r.omit:
        argv += ["-O", str(r.omit)]
    if r.reverse:
        argv.append("-R")
    if r.udp_rate_bps:
        argv += ["-u", "-b", str(int(r.udp_rate_bps))]
    elif r.tcp_rate_bps:  # paced TCP: a small transfer, not a measurement of the limit
        argv += ["-b", str(int(r.tcp_rate_bps))]
    if r.window:
        argv += ["-w", str(r.window)]
    if r.mss:
        argv += ["-M", str(r.mss)]
    return argv


def client_timeout(duration: int, omit: int = 0) -> float:
    """How long to let the client run before calling it hung."""
    return duration + omit + 20


def commands(request: ToolRequest) -> ToolCommands:
    """The client runs under timeout(1): stopped with SIGINT at its bound, iperf3 prints its JSON
    so far, which says where it hung (hung_at); the runner's own bound comes STOP_GRACE_S later."""
    r = request
    bound = client_timeout(r.duration, r.omit)
    return ToolCommands(server_argv(r.ports.first),
                        ["timeout", "-s", "INT", "-k", str(STOP_GRACE_S), f"{bound:g}",
                         *client_argv(r)],
                        bound, STOP_GRACE_S)


STOP_GRACE_S = 5
# where a client stopped at its bound had got to (hung_at)
UNCONNECTED = "before its control connection to the server opened"
NO_STREAM = ("with its control connection open and no data stream started (a UDP test opens with one "
             "datagram whose reply iperf3 3.12 waits for without end)")
STREAMING = "after its data streams started (in the test or in the exchange of results after it)"


def hung_at(stdout: str) -> str:
    """Where a client stopped at its bound had got to, from the JSON it printed then; empty when
    it printed none (killed)."""
    try:
        start = json.loads(stdout).get("start") or {}
    except (ValueError, AttributeError):
        return ""
    if "connecting_to" not in start:
        return UNCONNECTED
    return STREAMING if start.get("connected") else NO_STREAM


def result(request: ToolRequest, stdout: str, stderr: str, returncode: int) -> ThroughputResult:
    source, destination = request.ends
    return parse(stdout, source=source, destination=destination, path=request.path, window=request.window,
                 stderr=stderr, returncode=returncode)


def _error(message: str, raw: str, **known: Any) -> ThroughputResult:
    return ThroughputResult(tool=TOOL, succeeded=False, error=message, raw=raw, **known)


def parse(
    output: str,
    *,
    source: str = "",
    destination: str = "",
    path: str = "",
    window: int | None = None,
    stderr: str = "",
    returncode: int | None = None,
) -> ThroughputResult:
    """Normalize the client's ``-J`` output.

    throughput is the receiver's goodput (``end.sum_received``); the sender's rate is
    kept beside it. iperf3 3.12 may exit 0 on "connection refused" with ``-J``: the
    ``error`` key, not the exit code, decides.
    """
    raw = output if not stderr else f"{output}\n{stderr}"
    known: dict[str, Any] = {"source": source, "destination": destination, "path": path,
                             "window": window}
    try:
        data = json.loads(output)
    except ValueError:
        why = (stderr.strip() or output.strip()[:200] or "no output")
        return _error(f"iperf3 output is not JSON: {why}", raw, **known)
    if not isinstance(data, dict):
        return _error("iperf3 output is not a JSON object", raw, **known)

    start = data.get("start") or {}
    end = data.get("end") or {}
    test = start.get("test_start") or {}
    connected = start.get("connected") or []
    reverse = bool(test.get("reverse"))
    # the data's source: the client, or with -R the server it connected to
    ends = ("remote_host", "local_host") if reverse else ("local_host", "remote_host")
    if connected and not source:
        known["source"] = connected[0].get(ends[0], "")
    if connected and not destination:
        known["destination"] = connected[0].get(ends[1], "")
    known["reverse"] = reverse
    known["streams"] = int(test.get("num_streams") or len(connected) or 1)
    mss = start.get("tcp_mss") or start.get("tcp_mss_default")

    if data.get("error"):
        return _error(f"iperf3: {data['error']}", raw, mss=mss, **known)
    known["buffer_bytes"] = None if reverse else start.get("sndbuf_actual")  # the client's: not the sender's with -R
    if str(test.get("protocol", "")).upper() == "UDP":
        return _udp(end.get("sum") or {}, raw, returncode, stderr, known)
    received = end.get("sum_received") or {}
    sent = end.get("sum_sent") or {}
    if not received.get("bytes"):
        return _error("iperf3: no data received", raw, mss=mss, **known)
    if returncode not in (None, 0):
        return _error(f"iperf3 exited with {returncode}: {stderr.strip()}", raw, **known)

    return _tcp(data, received, sent, mss, raw, known)


def _tcp(data: dict[str, Any], received: dict[str, Any], sent: dict[str, Any], mss: Any, raw: str,
         known: dict[str, Any]) -> ThroughputResult:
    """A TCP test that received data: goodput, sender rate, retransmits, RTT, intervals."""
    end = data.get("end") or {}
    rtts = [s["sender"]["mean_rtt"] for s in end.get("streams", [])
            if s.get("sender", {}).get("mean_rtt")]
    per_stream = [float(s["receiver"]["bits_per_second"]) for s in end.get("streams", [])
                  if "bits_per_second" in s.get("receiver", {})]
    intervals = [
        Interval(
            start=float(i["sum"]["start"]),
            end=float(i["sum"]["end"]),
            throughput=float(i["sum"]["bits_per_second"]),
            retransmits=i["sum"].get("retransmits"),
        )
        for i in data.get("intervals", [])
        if "sum" in i and not i["sum"].get("omitted")
    ]
    return ThroughputResult(
        tool=TOOL,
        succeeded=True,
        duration=float(received.get("seconds") or sent.get("seconds") or 0.0),
        throughput=float(received["bits_per_second"]),
        sender_throughput=float(sent["bits_per_second"]) if "bits_per_second" in sent else None,
        bytes=int(received["bytes"]),
        retransmits=sent.get("retransmits"),
        rtt_ms=statistics.fmean(rtts) / 1000.0 if rtts else None,  # iperf3 reports microseconds
        mss=mss,
        intervals=intervals,
        stream_throughputs=per_stream if len(per_stream) > 1 else [],
        # the client sends unless -R: its CPU is then the receiver's
        sender_cpu_pct=_cpu(end, "remote_total" if known["reverse"] else "host_total"),
        receiver_cpu_pct=_cpu(end, "host_total" if known["reverse"] else "remote_total"),
        raw=raw,
        **known,
    )


def _cpu(end: dict[str, Any], which: str) -> float | None:
    value = (end.get("cpu_utilization_percent") or {}).get(which)
    return round(float(value), 1) if value is not None else None


def _udp(
    total: dict[str, Any], raw: str, returncode: int | None, stderr: str, known: dict[str, Any]
) -> ThroughputResult:
    """A UDP test (``-u -b``): what arrived, the datagrams lost and the receiver's jitter."""
    if returncode not in (None, 0):
        return _error(f"iperf3 exited with {returncode}: {stderr.strip()}", raw, protocol="udp", **known)
    if not total.get("packets"):
        return _error("iperf3: no UDP datagram sent", raw, protocol="udp", **known)
    return ThroughputResult(
        tool=TOOL, succeeded=True, protocol="udp", kind="udp",
        duration=float(total.get("seconds") or 0.0),
        throughput=float(total.get("bits_per_second") or 0.0) * (1 - float(total.get("lost_percent") or 0) / 100),
        bytes=int(total.get("bytes") or 0),
        lost_pct=float(total.get("lost_percent") or 0.0),
        jitter_ms=float(total.get("jitter_ms") or 0.0),
        packets=int(total["packets"]),
        raw=raw,
        **known,
    )
