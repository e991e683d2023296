"""The one shape of a progress sink: every long step says what it is doing through one."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None]  # a line for the user, e.g. "[throughput] lab: h3 -> h4 iperf3: ..."
