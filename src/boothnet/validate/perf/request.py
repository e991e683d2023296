"""One measurement request, and the protocol iperf3 and nuttcp both implement for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol

from boothnet.validate.perf.ports import PortBlock
from boothnet.validate.perf.schema import ThroughputResult

ToolName = Literal["iperf3", "nuttcp"]


@dataclass(frozen=True)
class ToolRequest:
    """What one measurement needs: its ends, its ports, the tool's options and how the result
    names it. ``omit``: seconds of slow start left out. ``reverse``: the server sends; ``source``
    and ``destination_label`` still name the client's and the server's ends."""

    tool: ToolName
    server_node: str
    client_node: str
    destination: str  # an address of server_node
    ports: PortBlock  # the server listens on ports.first (nuttcp: control; data on the following)
    streams: int = 1
    duration: int = 10
    omit: int = 0
    window: int | None = None  # socket buffer, bytes
    server_window: int | None = None  # nuttcp -ws: the server's window too
    mss: int | None = None
    udp_rate_bps: float | None = None  # iperf3 UDP at this rate
    tcp_rate_bps: float | None = None  # iperf3 TCP paced at this rate: a small transfer
    reverse: bool = False
    path: str = ""
    source: str = ""  # default: the client node
    destination_label: str = ""  # default: the destination address

    @property
    def ends(self) -> tuple[str, str]:
        """(source, destination) the way the data flowed."""
        client, server = self.source or self.client_node, self.destination_label or self.destination
        return (server, client) if self.reverse else (client, server)


class ToolCommands(NamedTuple):
    server: list[str]
    client: list[str]
    client_timeout: float  # seconds before the client counts as hung
    stop_grace_s: float = 0  # a client stopped by its own bound (timeout(1)) gets this long to print


class Tool(Protocol):
    """A measurement tool (the modules iperf3 and nuttcp)."""

    def commands(self, request: ToolRequest) -> ToolCommands: ...

    def result(self, request: ToolRequest, stdout: str, stderr: str, returncode: int) -> ThroughputResult: ...

    def hung_at(self, stdout: str) -> str: ...
