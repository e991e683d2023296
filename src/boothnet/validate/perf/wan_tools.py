"""The tool runners of a WAN path: one iperf3 or nuttcp run between the path's ends (server up,
client run, server down, through validate/perf/run.py), its row named after the path and the
test's kind; and the send buffer this kernel's TCP autotuning grows to."""

from __future__ import annotations

from dataclasses import dataclass

from boothnet.validate.perf.ports import TOOL_PORTS, PortBlock
from boothnet.validate.perf.run import ToolRequest, run_throughput
from boothnet.validate.perf.runner import Runner
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.perf.wan_path import WanPath


@dataclass(frozen=True)
class WanTest:
    """One test of a path: its row's ``kind``, ``duration`` s measured after ``omit`` s (slow
    start), the window asked for (-w; None: the OS default), parallel ``streams``, a UDP rate
    (None: TCP) and ``reverse`` (-R: the destination sends). nuttcp takes the first four only."""

    kind: str
    duration: int
    omit: int
    window: int | None = None
    streams: int = 1
    udp_rate_bps: float | None = None
    reverse: bool = False


def run_iperf3(runner: Runner, ends: tuple[str, str], path: WanPath, test: WanTest) -> ThroughputResult:
    """One iperf3 run on the path between ``ends`` (the client's and the server's nodes): server
    up, client run, server down; ``reverse``: the destination sends (-R)."""
    client_ns, server_ns = ends
    result = run_throughput(runner, ToolRequest(
        "iperf3", server_ns, client_ns, path.address,
        PortBlock(f"{path.name}/{test.kind}", path.destination.name, TOOL_PORTS["iperf3"], 1), streams=test.streams,
        duration=test.duration, omit=test.omit, window=test.window, udp_rate_bps=test.udp_rate_bps,
        reverse=test.reverse, path=path.name, source=path.source.name, destination_label=path.destination.name))
    return result.model_copy(update={"kind": test.kind, "family": path.family})


def run_nuttcp(runner: Runner, ends: tuple[str, str], path: WanPath, test: WanTest) -> ThroughputResult:
    """One nuttcp run on the path between ``ends`` (the client's and the server's nodes) with -w
    and -ws (both ends' windows), its goodput after omit_s."""
    if test.streams != 1 or test.udp_rate_bps is not None or test.reverse:
        raise ValueError(f"{path.name}/{test.kind}: the WAN tests run nuttcp as one TCP stream only, not {test}")
    client_ns, server_ns = ends
    port = TOOL_PORTS["nuttcp"]
    result = run_throughput(runner, ToolRequest(
        "nuttcp", server_ns, client_ns, path.address,
        PortBlock(f"{path.name}/{test.kind}", path.destination.name, port, 2), duration=test.duration,
        omit=test.omit, window=test.window, server_window=test.window, path=path.name, source=path.source.name,
        destination_label=path.destination.name))
    return result.model_copy(update={"kind": test.kind, "family": path.family})


def autotuning_max(runner: Runner, node: str) -> int | None:
    """The largest send buffer TCP autotuning gives on ``node`` (net.ipv4.tcp_wmem, third field)."""
    res = runner(node, ["sysctl", "-n", "net.ipv4.tcp_wmem"], 10)
    fields = res.output.split() if res.returncode == 0 else []
    return int(fields[2]) if len(fields) == 3 and fields[2].isdigit() else None
