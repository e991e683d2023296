"""Ansible filters for the iperf3 and nuttcp roles: thin wrappers over boothnet.validate.perf.

Command lines are built and outputs parsed in Python (boothnet.validate.perf), so the roles only
run argv and register results. Every filter returns plain lists/dicts/numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_filters import needing_boothnet

try:
    from boothnet.validate.perf import iperf3, nuttcp
    from boothnet.validate.perf.formula import DEFAULT_PASS_RATIO, expected_goodput
    from boothnet.validate.perf.ports import PortBlock
    from boothnet.validate.perf.request import ToolRequest
    from boothnet.validate.perf.runner import detached_argv, pidfile_for
    from boothnet.validate.perf.schema import ThroughputResult, judge
except ImportError as error:
    BOOTHNET_MISSING: ImportError | None = error
else:
    BOOTHNET_MISSING = None

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)[bB]?\s*$")
_MULT = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def size_bytes(value: Any) -> int | None:
    """4194304, "4M", "512K" -> bytes (binary multiples, as iperf3 and nuttcp take them)."""
    if value in (None, "", 0, "0"):
        return None
    if isinstance(value, int | float):
        return int(value)
    m = _SIZE.match(str(value))
    if not m:
        raise ValueError(f"not a size: {value!r} (use bytes or e.g. 4M, 512K)")
    return int(float(m.group(1)) * _MULT[m.group(2).lower()])


def _int_or_none(value: Any) -> int | None:
    return None if value in (None, "", 0, "0") else int(value)


def iperf3_server_argv(port: Any) -> list[str]:
    return iperf3.server_argv(int(port))


def iperf3_client_argv(destination: str, port: Any, streams: Any = 1, duration: Any = 10,
                       window: Any = None, mss: Any = None) -> list[str]:
    # the role runs the client where it is told and names no lab nodes; the server's one port
    ports = PortBlock("", "", int(port), 1)
    return iperf3.client_argv(ToolRequest("iperf3", "", "", destination, ports, streams=int(streams),
                                          duration=int(duration), window=size_bytes(window), mss=_int_or_none(mss)))


def nuttcp_server_argv(port: Any) -> list[str]:
    return nuttcp.server_argv(int(port))


def nuttcp_client_argv(destination: str, port: Any, streams: Any = 1, duration: Any = 10,
                       window: Any = None, mss: Any = None) -> list[str]:
    return nuttcp.client_argv(destination, int(port), streams=int(streams),
                              duration=int(duration), window=size_bytes(window),
                              mss=_int_or_none(mss))


def detached(argv: Sequence[str], pidfile: str, limit_s: Any = 300) -> list[str]:
    """argv that starts ``argv`` in the background, pid in ``pidfile``, killed at limit_s."""
    return detached_argv(list(argv), pidfile, float(limit_s))


def pidfile(node: str, tool: str, port: Any) -> str:
    return pidfile_for(None, node, tool, int(port))  # the role's server is a namespace or a host of its own


def listening(ss_stdout: str) -> list[int]:
    """Ports in ``ss -Hltn`` output."""
    ports = set()
    for line in ss_stdout.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3].rpartition(":")[2].isdigit():
            ports.add(int(fields[3].rpartition(":")[2]))
    return sorted(ports)


def goodput(speed_mbps: Any, mtu: Any) -> float:
    """Expected TCP goodput in bits/s of a ``speed_mbps`` link at ``mtu``."""
    return expected_goodput(float(speed_mbps) * 1e6, int(mtu))


def _labels(registered: Mapping[str, Any], source: str, destination: str, path: str, window: Any) -> dict[str, Any]:
    """What both tools' parsers take besides the output: the row's names and the task's end."""
    return {"source": source, "destination": destination, "path": path, "window": size_bytes(window),
            "stderr": registered.get("stderr", ""), "returncode": registered.get("rc")}


def _judged(result: ThroughputResult, expected_bps: Any, ratio: Any) -> dict[str, Any]:
    if expected_bps not in (None, "", 0):
        result = judge(result, float(expected_bps), float(ratio or DEFAULT_PASS_RATIO))
    return result.model_dump(mode="json")


def iperf3_result(registered: Mapping[str, Any], source: str = "", destination: str = "",
                  path: str = "", window: Any = None, expected_bps: Any = None,
                  ratio: Any = None) -> dict[str, Any]:
    """A registered iperf3 client task -> perf schema dict (judged if expected_bps)."""
    parsed = iperf3.parse(registered.get("stdout", ""), **_labels(registered, source, destination, path, window))
    return _judged(parsed, expected_bps, ratio)


def nuttcp_result(registered: Mapping[str, Any], source: str = "", destination: str = "",
                  path: str = "", window: Any = None, streams: Any = None,
                  expected_bps: Any = None, ratio: Any = None) -> dict[str, Any]:
    """A registered nuttcp client task -> perf schema dict (judged if expected_bps)."""
    parsed = nuttcp.parse(registered.get("stdout", ""), streams=_int_or_none(streams),
                          **_labels(registered, source, destination, path, window))
    return _judged(parsed, expected_bps, ratio)


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return needing_boothnet({
            "boothnet_size_bytes": size_bytes,
            "boothnet_iperf3_server_argv": iperf3_server_argv,
            "boothnet_iperf3_client_argv": iperf3_client_argv,
            "boothnet_nuttcp_server_argv": nuttcp_server_argv,
            "boothnet_nuttcp_client_argv": nuttcp_client_argv,
            "boothnet_detached_argv": detached,
            "boothnet_pidfile": pidfile,
            "boothnet_listening_ports": listening,
            "boothnet_goodput": goodput,
            "boothnet_iperf3_result": iperf3_result,
            "boothnet_nuttcp_result": nuttcp_result,
        }, BOOTHNET_MISSING)
