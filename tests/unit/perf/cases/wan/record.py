"""Records the WAN cases (root, under the lab lock; about 1 min): two scratch namespaces joined
by the lab's delay line (boothnet.lab.delayline), htb-shaped as sc-booth's home path (622 Mb/s,
25 ms one way, MTU 9000), the second time losing 1 % of its frames. Each tool run goes through
wan_tools.tool_request, so its argv is the one validate runs; the client's output is kept
untouched (output.json / output.txt), with meta.json saying how (the test, the path, this
kernel's k and autotuning maximum).

    flock /work/notes/lab-session.lock .venv/bin/python tests/unit/perf/cases/wan/record.py
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from boothnet.intent.model import Endpoint
from boothnet.lab import LabEnd, LabLink, add_delay_link, create_namespace, remove_namespace, shape
from boothnet.locks import measurement_turn
from boothnet.validate.perf.calibrate import window_factor
from boothnet.validate.perf.judges import UDP_BUFFER
from boothnet.validate.perf.run import TOOLS, ToolName, run_throughput
from boothnet.validate.perf.runner import CommandResult, netns_runner
from boothnet.validate.perf.wan_path import WanPath
from boothnet.validate.perf.wan_probes import RttProbe
from boothnet.validate.perf.wan_tools import WanTest, tool_request

HERE = Path(__file__).parent
NAMES = ("bnrec-a", "bnrec-b")
ADDRESSES = ("10.99.9.1", "10.99.9.2")
RATE_BPS, ONE_WAY_MS, MTU = 622e6, 25.0, 9000
SHAPE = {"rate_bps": RATE_BPS, "one_way_ms": ONE_WAY_MS, "mtu": MTU}


def _path(loss_pct: float) -> WanPath:
    ends = [Endpoint(name=name, vlan="wan", address=address, attach=f"wan:{name}")
            for name, address in zip(("h1", "h4"), ADDRESSES, strict=True)]
    return WanPath("home-path", ends[0], ends[1], ("r1:eth3 -- r2:eth3",), ONE_WAY_MS, 0, loss_pct, RATE_BPS, MTU)


def _save(case: str, output: str, suffix: str, meta: dict[str, object]) -> None:
    folder = HERE / case
    folder.mkdir(exist_ok=True)
    (folder / f"output.{suffix}").write_text(output)
    (folder / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(case, meta.get("returncode"), len(output), file=sys.stderr)


def _tool(case: str, tool: ToolName, path: WanPath, test: WanTest, extra: dict[str, object]) -> None:
    request = tool_request(tool, NAMES, path, test)
    client = TOOLS[tool].commands(request).client
    seen: list[CommandResult] = []

    def runner(node: str, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
        res = netns_runner(node, argv, timeout)
        if list(argv) == client:
            seen.append(res)
        return res

    run_throughput(runner, request)
    (res,) = seen
    _save(case, res.stdout, "json" if tool == "iperf3" else "txt", {
        "tool": tool, "argv": list(res.argv), "returncode": res.returncode, "stderr": res.stderr,
        "test": asdict(test), "path": {**SHAPE, "loss_pct": path.loss_pct}, **extra, "recorded": _recorded(path)})


def _beside(path: WanPath) -> None:
    """As wan.tcp_under_udp_load runs them: UDP at 25 % of the path (udp_load_pct) beside one
    nuttcp stream with the advised window."""
    load = WanTest("udp-load", 6, 0, UDP_BUFFER, udp_rate_bps=path.expect().physical_bps * 25 / 100)
    tcp = WanTest("tcp-under-udp-load", 4, 2, path.advised_window)
    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [pool.submit(_tool, "iperf3_udp_load", "iperf3", path, load, {"beside": "nuttcp_tcp_under_udp_load"}),
                pool.submit(_tool, "nuttcp_tcp_under_udp_load", "nuttcp", path, tcp, {"beside": "iperf3_udp_load"})]
        for job in jobs:
            job.result()


def _ping(case: str, path: WanPath, payload: int) -> None:
    probe = RttProbe(path.name, path.source.name, path.destination.name, path.address, payload, path.rtt_ms,
                     path.rtt_tolerance_ms)
    res = netns_runner(NAMES[0], probe.argv, 20)
    _save(case, res.output, "txt", {"tool": "ping", "argv": probe.argv, "returncode": res.returncode,
                                    "path": {**SHAPE, "loss_pct": path.loss_pct}, "recorded": _recorded(path)})


def _recorded(path: WanPath) -> str:
    return (f"two netns joined by the lab's delay line ({path.one_way_ms:g} ms one way, {path.loss_pct:g} % loss), "
            f"htb {path.rate_bps / 1e6:g} Mbit on both TAPs, MTU {path.mtu}; Linux {platform.release()}; "
            "recorded by record.py")


def _pair(loss_pct: float, work: Path) -> int:
    for ns in NAMES:
        create_namespace(ns, f"boothnet-record:{ns}")
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
    link = LabLink(LabEnd("a", "wan0"), LabEnd("b", "wan0"), int(RATE_BPS / 1e6), MTU,
                   "record", ONE_WAY_MS, loss_pct=loss_pct)
    pid = add_delay_link(link, NAMES[0], NAMES[1], work / "delay.log")
    for ns, address in zip(NAMES, ADDRESSES, strict=True):
        shape(ns, "wan0", int(RATE_BPS / 1e6))
        subprocess.run(["ip", "-n", ns, "addr", "add", f"{address}/24", "dev", "wan0"], check=True)
    netns_runner(NAMES[0], ["ping", "-c", "3", "-W", "2", ADDRESSES[1]], 15)
    return pid


@contextlib.contextmanager
def _lined(loss_pct: float, work: Path) -> Iterator[None]:
    pid = 0
    try:
        pid = _pair(loss_pct, work)
        yield
    finally:
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for ns in NAMES:
            remove_namespace(ns)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, measurement_turn():
        work = Path(tmp)
        factor = window_factor(work, lambda line: print(line, file=sys.stderr))
        k = {tool: factor(tool, MTU) for tool in ("iperf3", "nuttcp")}
        path = _path(0.0)
        with _lined(0.0, work):
            wmem = netns_runner(NAMES[0], ["sysctl", "-n", "net.ipv4.tcp_wmem"], 10).stdout.split()
            wmem_max = int(wmem[2])
            _ping("ping_56", path, 56)
            _ping("ping_8972", path, path.largest_ping)
            _tool("iperf3_default_window", "iperf3", path, WanTest("default-window", 4, 2),
                  {"wmem_max": wmem_max, "k": k["iperf3"]})
            _tool("iperf3_advised_window", "iperf3", path, WanTest("advised-window", 4, 2, path.advised_window), {})
            _tool("iperf3_parallel", "iperf3", path, WanTest("parallel", 4, 2, path.advised_window // 4, 4), {})
            for tool in ("iperf3", "nuttcp"):
                for share, name in ((0.25, "quarter"), (1, "advised")):
                    window = int(path.advised_window * share)
                    _tool(f"{tool}_sweep_{name}", tool, path, WanTest("sweep", 2, 1, window), {"k": k[tool]})
            _beside(path)
        lossy = _path(1.0)
        with _lined(1.0, work):
            rate = lossy.expect().physical_bps / 2
            _tool("iperf3_udp_lossy", "iperf3", lossy, WanTest("udp", 6, 0, UDP_BUFFER, udp_rate_bps=rate), {})


if __name__ == "__main__":
    main()
