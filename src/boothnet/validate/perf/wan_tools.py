"""The tool runners of a WAN path: one iperf3 or nuttcp run between the path's ends (server up,
client run, server down, through validate/perf/run.py), its row named after the path and the
test's kind; and the send buffer this kernel's TCP autotuning grows to."""

from __future__ import annotations

from dataclasses import dataclass

from boothnet.validate.perf.ports import TOOL_PORTS, PortBlock
from boothnet.validate.perf.run import ToolName, ToolRequest, run_throughput
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


def tool_request(tool: ToolName, ends: tuple[str, str], path: WanPath, test: WanTest) -> ToolRequest:
    """What ``tool`` is asked for ``test`` on the path between ``ends`` (the client's and the
    server's nodes): nuttcp sets both ends' windows (-w and -ws) and takes one TCP stream only."""
    if tool == "nuttcp" and (test.streams != 1 or test.udp_rate_bps is not None or test.reverse):
        raise ValueError(f"{path.name}/{test.kind}: the WAN tests run nuttcp as one TCP stream only, not {test}")
    client_ns, server_ns = ends
    return ToolRequest(
        tool, server_ns, client_ns, path.address,
        PortBlock(f"{path.name}/{test.kind}", path.destination.name, TOOL_PORTS[tool], 1 if tool == "iperf3" else 2),
        streams=test.streams, duration=test.duration, omit=test.omit, window=test.window,
        server_window=test.window if tool == "nuttcp" else None, udp_rate_bps=test.udp_rate_bps,
        reverse=test.reverse, path=path.name, source=path.source.name, destination_label=path.destination.name)


def run_iperf3(runner: Runner, ends: tuple[str, str], path: WanPath, test: WanTest) -> ThroughputResult:
    """One iperf3 run on the path between ``ends``: server up, client run, server down;
    ``test.reverse``: the destination sends (-R)."""
    result = run_throughput(runner, tool_request("iperf3", ends, path, test))
    return result.model_copy(update={"kind": test.kind, "family": path.family})


def run_nuttcp(runner: Runner, ends: tuple[str, str], path: WanPath, test: WanTest) -> ThroughputResult:
    """One nuttcp run on the path between ``ends`` with -w and -ws (both ends' windows), its
    goodput after omit_s."""
    result = run_throughput(runner, tool_request("nuttcp", ends, path, test))
    return result.model_copy(update={"kind": test.kind, "family": path.family})


def autotuning_max(runner: Runner, node: str) -> int | None:
    """The largest send buffer TCP autotuning gives on ``node`` (net.ipv4.tcp_wmem, third field)."""
    res = runner(node, ["sysctl", "-n", "net.ipv4.tcp_wmem"], 10)
    fields = res.output.split() if res.returncode == 0 else []
    return int(fields[2]) if len(fields) == 3 and fields[2].isdigit() else None
