"""One normalized throughput result for iperf3 and nuttcp, modelled on perfSONAR's.

perfSONAR (pScheduler) reports a throughput test as ``succeeded``/``error``, a summary
(``throughput-bits``, ``retransmits``, ``rtt``, ``tcp-window-size``) and ``intervals``
with the same fields per reporting interval. We keep those names in snake_case, add
what a booth report needs (path, source, destination, expected goodput and a verdict),
and keep the tool's raw output beside the numbers so a reader can check them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from boothnet.status import Status
from boothnet.validate.perf.formula import (
    DEFAULT_PASS_RATIO,
    RETRANSMIT_LIMIT,
    TCP_IP_HEADERS,
    faster_than_limit,
    retransmit_rate,
    verdict,
    window_advice,
)

Tool = Literal["iperf3", "nuttcp"]
SCHEMA_VERSION = 1


class Interval(BaseModel):
    model_config = ConfigDict(extra="forbid")

    start: float  # seconds since the test started
    end: float
    throughput: float  # bits/s over the interval, all streams together
    retransmits: int | None = None  # None when the tool does not report them


class LinkLoad(BaseModel):
    """What one wire of a device link carried during a measurement, from its ends' counters."""

    model_config = ConfigDict(extra="forbid")

    wire: str  # the cable's label, and the VLAN where the lab wires a trunk per VLAN
    a_to_b_bps: float | None = None  # as the label reads: left end to right end
    b_to_a_bps: float | None = None
    error: str | None = None  # why the counters could not be read


class ThroughputResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    tool: Tool
    succeeded: bool
    error: str | None = None
    path: str = ""  # what the intent calls this test, e.g. "r110: node1 -> fs1"
    family: int = 4  # the IP version measured
    reverse: bool = False  # the path's other direction: the test's server sent (iperf3 -R, nuttcp -r)
    source: str = ""
    destination: str = ""
    streams: int = 1
    duration: float = 0.0  # seconds actually measured
    throughput: float = 0.0  # receiver goodput, bits/s, all streams
    sender_throughput: float | None = None  # what the sender pushed, bits/s
    bytes: int | None = None  # payload bytes received
    retransmits: int | None = None
    # of those, segments the receiver reported it already had (D-SACK, read from the senders'
    # kernels): a retransmit timer that fired early, while a busy core held the ACK, not a loss
    duplicates: int | None = None
    rtt_ms: float | None = None  # mean smoothed RTT (iperf3) or connect RTT (nuttcp)
    mss: int | None = None
    window: int | None = None  # socket buffer requested (-w), bytes
    intervals: list[Interval] = Field(default_factory=list)
    # filled by judge()
    expected: float | None = None  # bits/s, from the path's bottleneck
    pass_ratio: float | None = None
    verdict: Status | None = None  # PASS, FAIL or ERROR: no verdict (a host could not run it, CPU-bound)
    advice: str | None = None  # bandwidth-delay product / window advice
    # WAN paths (validate/perf/wan_judges.py): which test, what limited the expectation, and why the verdict
    kind: Literal["path", "default-window", "advised-window", "parallel", "udp", "udp-load", "tcp-under-udp-load",
                  "sweep", "loss"] = "path"  # loss: a LAN path's UDP test, judged on the datagrams lost
    protocol: Literal["tcp", "udp"] = "tcp"
    limit: Literal["physical", "window", "loss"] | None = None  # the smallest bound of the expectation
    buffer_bytes: int | None = None  # the send buffer the kernel gave (SO_SNDBUF as read back)
    stream_throughputs: list[float] = Field(default_factory=list)  # bits/s, per stream
    lost_pct: float | None = None  # UDP: datagrams lost, %
    jitter_ms: float | None = None  # UDP: receiver's jitter
    packets: int | None = None  # UDP: datagrams sent
    # UDP: datagrams each node's kernel dropped meanwhile because software on this machine did not
    # read them in time (a host's full socket buffer, a lab TUN/TAP queue): lost here, not on the wire
    software_drops: dict[str, int] = Field(default_factory=dict)
    explanation: str | None = None  # the verdict in a sentence: every cause, the most telling first
    retried: str | None = None  # why the first run was not kept and the test measured again
    # the verdict's causes as classes, in that order: "too_fast", "lossy", "cpu_bound", "lab_ceiling"
    causes: list[Literal["too_fast", "lossy", "cpu_bound", "lab_ceiling"]] = Field(default_factory=list)
    link_loads: list[LinkLoad] = Field(default_factory=list)  # backbone aggregates: each wire's counters
    machine_busy: float | None = None  # lab: the share of this machine's cores busy while it ran
    sender_cpu_pct: float | None = None  # iperf3 cpu_utilization_percent, nuttcp tx_cpu: of one core
    receiver_cpu_pct: float | None = None
    raw: str | None = Field(default=None, repr=False)  # tool output as captured

    @property
    def status(self) -> Status:
        """Its verdict as a report counts it: a run that failed is FAIL (ERROR where a host could
        not run it); measured but never judged against an expectation is SKIPPED."""
        if not self.succeeded:
            return Status.ERROR if self.verdict == Status.ERROR else Status.FAIL
        return Status(self.verdict) if self.verdict else Status.SKIPPED

    @property
    def ratio(self) -> float | None:
        """measured / expected, when judged."""
        if not self.expected:
            return None
        return self.throughput / self.expected

    def to_json(self, *, raw: bool = True) -> str:
        return self.model_dump_json(indent=2, exclude={"raw"} if not raw else None)

    @classmethod
    def from_json(cls, text: str) -> ThroughputResult:
        return cls.model_validate_json(text)


class RttRow(BaseModel):
    """A DF ping series on a WAN path (validate/perf/wan_probes.py), beside the RTT the intent declares."""

    model_config = ConfigDict(extra="forbid")

    path: str
    source: str
    destination: str
    payload: int  # ICMP payload bytes: 56, or the path MTU - 28 (IPv6: - 48)
    declared_ms: float  # 2 x the WAN links' delay_ms
    tolerance_ms: float
    min_ms: float | None = None
    avg_ms: float | None = None
    max_ms: float | None = None
    loss_pct: float | None = None  # of the probes sent
    verdict: Status  # PASS or FAIL
    cause: str | None = None
    family: int = 4  # the IP version probed


CPU_BOUND_PCT = 90.0  # a sender or receiver busier than this was limited by its CPU, not by the network


def cpu_bound(result: ThroughputResult) -> str | None:
    """Why a slow, clean run is the machine's: its sender or receiver used a whole core."""
    if not result.succeeded:
        return None
    ends = [(name, pct) for name, pct in (("sender", result.sender_cpu_pct), ("receiver", result.receiver_cpu_pct))
            if pct is not None and pct >= CPU_BOUND_PCT]
    if not ends:
        return None
    said = " and ".join(f"the {name} used {pct:.0f} % of a core" for name, pct in ends)
    return (f"CPU-bound: {said}: this machine, not the network, limited the test (no verdict; "
            "measure again on a quieter machine, or on the floor)")


# The lab's routers are namespaces forwarding in software on the cores that also run the tools: a
# measurement while every core is busy is this machine's ceiling, not the network's. Half the
# expectation still comes through a starved lab (campus booth's hairpinned trunk: 78-89 %); a link
# at a fraction of its speed carries that fraction whatever the CPU, and keeps its diagnosis.
CPU_SATURATED = 0.9
CPU_STARVED_KEEPS = 0.5


def machine_cpu() -> tuple[int, int]:
    """(idle, total) jiffies of every core since boot (/proc/stat's first line)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[3] + fields[4], sum(fields[:8])


def busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    idle, total = after[0] - before[0], after[1] - before[1]
    return 1 - idle / total if total > 0 else 0.0


def lab_cpu_bound(result: ThroughputResult, busy: float, behind_ms: Mapping[str, float] | None = None
                  ) -> ThroughputResult:
    """A slow lab measurement taken while the machine's cores were saturated, or while a delay line
    of the lab (``behind_ms``: each by its device, ms it held frames past their time meanwhile) fell
    behind long enough to account for the shortfall: the lab's ceiling, no verdict on the network
    (ERROR, cause cpu_bound), every such cause said, before any cable diagnosis."""
    if (result.verdict != Status.FAIL or not result.succeeded or not result.expected
            or "lossy" in result.causes or not CPU_STARVED_KEEPS * result.expected <= result.throughput
            < result.expected):
        return result
    said = [f"this machine's cores were {busy:.0%} busy while it ran (the lab's stand-ins forward in software on "
            "the cores that also run the tools)"] if busy >= CPU_SATURATED else []
    said += [held] if (held := _held_back(result, behind_ms or {})) else []
    if not said:
        return result
    return result.model_copy(update={"verdict": Status.ERROR, "causes": [*result.causes, "cpu_bound"], "explanation": (
        f"CPU-bound: {'; and '.join(said)}: this is the lab's ceiling, not the network's (no verdict; on the "
        "floor there is no such cap)")})


def _held_back(result: ThroughputResult, behind_ms: Mapping[str, float]) -> str:
    """Why a stream is the lab's when its delay lines, processes on this machine, held its frames
    long enough that over the rest of the time it would have passed; empty when they did not."""
    held_s = sum(behind_ms.values()) / 1000
    ratio, expected = result.pass_ratio or 1.0, result.expected or 0.0
    if not held_s or result.duration <= held_s:
        return ""
    carried = result.throughput * result.duration / (result.duration - held_s)
    if carried < ratio * expected:
        return ""
    lines = ", ".join(f"{device}'s {ms / 1000:.2f} s" for device, ms in sorted(behind_ms.items()))
    return (f"the lab's delay line held frames past their time while it ran ({lines}: a process on this machine "
            f"that did not get a core in time); over the rest of its {result.duration:.1f} s it carried "
            f"{carried / 1e6:.0f} Mb/s, {carried / expected:.0%} of {expected / 1e6:.0f} Mb/s (enough to pass)")


def _retransmits(result: ThroughputResult, path_mtu: int, path: str | None,
                 cables: str) -> tuple[str | None, str | None]:
    """(why the TCP test lost frames, or None; why its retransmits, though many, lost none, or
    None): retransmits the receiver reported it already had (D-SACK) are not counted as lost."""
    if result.protocol != "tcp" or result.retransmits is None:
        return None, None
    mss = result.mss or path_mtu - TCP_IP_HEADERS
    duplicates = min(result.duplicates or 0, result.retransmits)
    rate = retransmit_rate(result.retransmits - duplicates, result.bytes, mss)
    if rate is not None and rate > RETRANSMIT_LIMIT:
        lost = f" ({result.retransmits - duplicates} lost, {duplicates} spurious)" if duplicates else ""
        return (f"{result.retransmits} retransmits{lost}, {rate:.2%} of the segments sent (at most "
                f"{RETRANSMIT_LIMIT:.1%}): frames are lost on {path or result.path or result.source} "
                f"({f'its host cables {cables}: ' if cables else ''}a bad cable or a dropping port)"), None
    everything = retransmit_rate(result.retransmits, result.bytes, mss)
    if everything is None or everything <= RETRANSMIT_LIMIT:
        return None, None
    return None, (f"{result.retransmits} retransmits, {duplicates} of them spurious (the receiver already had "
                  "the segment: D-SACK): timers that fired while a busy core held the ACKs, not frames lost on "
                  "a cable")


def judge(
    result: ThroughputResult,
    expected_bps: float,
    ratio: float = DEFAULT_PASS_RATIO,
    *,
    path: str | None = None,
    path_mtu: int | None = None,
    cables: str = "",
) -> ThroughputResult:
    """Copy of ``result`` with expected, verdict and window advice filled in.

    A run that failed (tool error, nothing measured) is a FAIL whatever the numbers say. With
    ``path_mtu`` (a LAN path) a TCP test also fails when it retransmits more than
    RETRANSMIT_LIMIT of its segments: the rate can hold while frames are lost.
    """
    ok = result.succeeded and verdict(result.throughput, expected_bps, ratio) == "PASS"
    lossy, spurious = _retransmits(result, path_mtu, path, cables) if path_mtu is not None else (None, None)
    ok = ok and lossy is None
    advice = None
    if result.rtt_ms:
        advice = window_advice(expected_bps, result.rtt_ms, result.window).text
    update: dict[str, object] = {
        "expected": expected_bps,
        "pass_ratio": ratio,
        "verdict": Status.of(ok),
        "advice": advice,
    }
    # every cause that applies, the most telling first: a link without its shaping also drops
    # frames at its queue, and "frames are lost" must never hide "faster than the link"
    causes: dict[str, str] = {}
    if result.succeeded and (too_fast := faster_than_limit(result.throughput, expected_bps)):
        causes["too_fast"] = too_fast
    if lossy:
        causes["lossy"] = lossy
    elif not ok and result.throughput < expected_bps and (bound := cpu_bound(result)):  # slow, not too fast
        causes["cpu_bound"] = bound
        update["verdict"] = Status.ERROR
    if causes:
        update.update(explanation="; ".join(causes.values()), causes=list(causes))
    elif spurious and ok:  # said on a passing row, where no cause speaks
        update["explanation"] = spurious
    if path is not None:
        update["path"] = path
    return result.model_copy(update=update)
