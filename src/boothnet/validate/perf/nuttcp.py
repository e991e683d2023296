"""nuttcp: command lines for server and client (``-fparse``), and the key=value parser.

The client runs with ``-v -fparse -i<n>``: ``-fparse`` makes every figure ``key=value``,
``-v`` adds the connect line (MSS, RTT) and both ends' summaries, so the receiver's
goodput (``nuttcp-r:``) is reported rather than the sender's buffer-filling rate.
Brief output (no ``-v``: one unprefixed summary line) is parsed too.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Final

from boothnet.validate.perf.request import ToolCommands, ToolRequest
from boothnet.validate.perf.schema import Interval, ThroughputResult

TOOL: Final = "nuttcp"
MIB = 1024 * 1024  # nuttcp "megabytes" are MiB; its rate_Mbps is 10^6 bit/s
_KV = re.compile(r"([A-Za-z_]+)=([^\s]+)")
_BANNER = re.compile(r"^nuttcp-[tr]: v[\d.]+: socket$")


def server_argv(control_port: int, ipv6: bool = False) -> list[str]:
    """A one-shot server in the foreground on ``control_port``; data ports come from the
    client (``-p``), so the whole port block must be free on the server node. nuttcp speaks
    IPv4 unless told -6, on both ends."""
    return ["nuttcp", *(["-6"] if ipv6 else []), "-1", "--nofork", "-P", str(control_port)]


def client_argv(
    destination: str,
    control_port: int,
    *,
    streams: int = 1,
    duration: int = 10,
    window: int | None = None,
    mss: int | None = None,
    server_window: int | None = None,
    reverse: bool = False,
) -> list[str]:
    """Client transmitting to ``destination`` (``reverse``: receiving from it, -r -F); data on
    the ports after the control port, one a stream. window in bytes (nuttcp takes KB)."""
    if streams < 1 or duration < 1:
        raise ValueError(f"streams and duration must be >= 1, got {streams}, {duration}")
    argv = ["nuttcp", "-v", *(["-6"] if ":" in destination else [])]
    if reverse:  # -F: the client still opens the data connection, as a stateful firewall expects
        argv += ["-r", "-F"]
    argv += ["-fparse", "-i1", f"-T{duration}", f"-N{streams}",
             f"-P{control_port}", f"-p{control_port + 1}"]
    if window:
        argv.append(f"-w{math.ceil(window / 1024)}")
    if server_window:  # the server's receive window, as GSFC's nuttcp sweeps set both ends
        argv.append(f"-ws{math.ceil(server_window / 1024)}")
    if mss:
        argv.append(f"-M{mss}")
    argv.append(destination)
    return argv


def client_timeout(duration: int) -> float:
    return duration + 20


def commands(request: ToolRequest) -> ToolCommands:
    """nuttcp has no -O: it runs omit seconds longer and the intervals after them count."""
    r = request
    if r.streams + 1 > r.ports.width:
        raise ValueError(f"nuttcp with {r.streams} streams needs {r.streams + 1} ports, the block has {r.ports.width}")
    return ToolCommands(server_argv(r.ports.first, ipv6=":" in r.destination),
                        client_argv(r.destination, r.ports.first, streams=r.streams, duration=r.duration + r.omit,
                                    window=r.window, mss=r.mss, server_window=r.server_window, reverse=r.reverse),
                        client_timeout(r.duration + r.omit))


def hung_at(_stdout: str) -> str:
    """nuttcp prints nothing that says where it hung."""
    return ""


def result(request: ToolRequest, stdout: str, stderr: str, returncode: int) -> ThroughputResult:
    source, destination = request.ends
    return _after_omit(parse(stdout, source=source, destination=destination, path=request.path,
                             window=request.window, streams=request.streams, stderr=stderr, returncode=returncode),
                       request.omit)


def _after_omit(result: ThroughputResult, omit: int) -> ThroughputResult:
    """The goodput over the intervals after the first ``omit`` seconds."""
    kept = [i for i in result.intervals if i.start >= omit]
    if not omit or not result.succeeded or not kept:
        return result
    return result.model_copy(update={"throughput": sum(i.throughput for i in kept) / len(kept),
                                     "duration": kept[-1].end - kept[0].start, "intervals": kept})


def _kv(line: str) -> dict[str, str]:
    return dict(_KV.findall(line))


@dataclass
class _Reading:
    """What nuttcp's lines said so far (``key=value`` lines; free text is an error)."""

    known: dict[str, object]
    streams_given: bool
    mss: int | None = None
    rtt: float | None = None
    retrans: int | None = None
    summary: dict[str, str] = field(default_factory=dict)
    sender: dict[str, str] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)  # "t"/"r" -> % of a core, from each end's stats line
    intervals: list[Interval] = field(default_factory=list)
    elapsed: float = 0.0
    errors: list[str] = field(default_factory=list)

    def read(self, line: str) -> None:
        prefix, _, rest = line.partition(":") if line.startswith("nuttcp-") else ("", "", line)
        kv = _kv(rest)
        if not kv:
            # nuttcp's errors are free text: "connect failed: ...", "nuttcp-t: Error: ..."
            if not _BANNER.match(line.strip()):
                self.errors.append(line.strip())
            return
        self._connection(prefix, kv)
        if "rtt_ms" in kv:
            self.rtt = float(kv["rtt_ms"])
        if kv.get("stats") == "cpu" and prefix and kv.get("cpu", "").endswith("%"):
            self.cpu[prefix[-1]] = float(kv["cpu"].rstrip("%"))
        if prefix == "nuttcp-t" and "send_window_size" in kv:  # what the kernel gave the sender
            self.known["buffer_bytes"] = int(kv["send_window_size"])
        if "retrans" in kv and (prefix == "nuttcp-t" or "real_seconds" in kv):
            self.retrans = int(kv["retrans"])
        if "real_sec" in kv and "rate_Mbps" in kv:  # an interval line
            seconds = float(kv["real_sec"])
            self.intervals.append(Interval(
                start=self.elapsed, end=round(self.elapsed + seconds, 6),
                throughput=float(kv["rate_Mbps"]) * 1e6,
                retransmits=int(kv["retrans"]) if "retrans" in kv else None,
            ))
            self.elapsed = round(self.elapsed + seconds, 6)
        elif "real_seconds" in kv and "rate_Mbps" in kv:
            if prefix == "nuttcp-t":
                self.sender = kv
            else:  # nuttcp-r (verbose) or the unprefixed brief summary: the receiver
                self.summary = kv

    def _connection(self, prefix: str, kv: dict[str, str]) -> None:
        """Streams, MSS and the two ends, from the connect/accept lines."""
        if "nstream" in kv and not self.streams_given:
            self.known["streams"] = int(kv["nstream"])
        if "mss" in kv:
            self.mss = int(kv["mss"])
        for key in ("connect", "accept"):
            # the peer of the receiver's end (nuttcp-r) is the data's source, of the sender's its
            # destination, whichever end opened the connection (-F flips that)
            if key in kv:
                end = {"nuttcp-r": "source", "nuttcp-t": "destination"}.get(
                    prefix, "destination" if key == "connect" else "source")
                self.known[end] = self.known[end] or kv[key]


def parse(
    output: str,
    *,
    source: str = "",
    destination: str = "",
    path: str = "",
    window: int | None = None,
    streams: int | None = None,
    stderr: str = "",
    returncode: int | None = None,
) -> ThroughputResult:
    """Normalize nuttcp client output (stdout, plus stderr where errors go)."""
    raw = output if not stderr else f"{output}\n{stderr}"
    known: dict[str, object] = {"source": source, "destination": destination, "path": path,
                                "window": window, "streams": streams or 1}
    reading = _Reading(known, streams_given=streams is not None)
    for line in raw.splitlines():
        if line.strip():
            reading.read(line)
    summary, sender, errors, mss = reading.summary, reading.sender, reading.errors, reading.mss
    retrans, rtt, intervals = reading.retrans, reading.rtt, reading.intervals

    if not summary and not sender:
        why = "; ".join(errors) or f"no result in output (exit {returncode})"
        return ThroughputResult(tool=TOOL, succeeded=False, error=f"nuttcp: {why}", mss=mss,
                                raw=raw, **known)
    best = summary or sender
    if returncode not in (None, 0):
        why = "; ".join(errors) or "no message"
        return ThroughputResult(tool=TOOL, succeeded=False,
                                error=f"nuttcp exited with {returncode}: {why}",
                                raw=raw, **known)
    return ThroughputResult(
        tool=TOOL,
        succeeded=True,
        duration=float(best["real_seconds"]),
        throughput=float(best["rate_Mbps"]) * 1e6,
        sender_throughput=float(sender["rate_Mbps"]) * 1e6 if sender else None,
        bytes=round(float(best["megabytes"]) * MIB),
        retransmits=retrans,
        rtt_ms=rtt,
        mss=mss,
        intervals=intervals,
        sender_cpu_pct=float(best["tx_cpu"]) if "tx_cpu" in best else reading.cpu.get("t"),
        receiver_cpu_pct=float(best["rx_cpu"]) if "rx_cpu" in best else reading.cpu.get("r"),
        raw=raw,
        **known,
    )
