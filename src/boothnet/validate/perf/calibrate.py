"""The kernel's window factor, measured once per machine on a reference path.

Below the BDP a TCP stream carries about k x window/RTT, where k is what this kernel grants per
byte of window asked for (its buffer accounting and window scaling: about 1.3 here). The WAN
sweep judges its points against the intent's RTT and this k. k comes from a reference path of its
own, two scratch namespaces joined by the lab's delay line, never from the run it judges: a path
with twice the declared delay then fails the sweep too. Cached per kernel, tool and MTU in
``<build>/calibration.json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import signal
import statistics
import subprocess
from collections.abc import Callable
from pathlib import Path

from boothnet.files import write_text_atomic
from boothnet.intent.model import Endpoint
from boothnet.lab import net as labnet
from boothnet.lab.spec import LabEnd, LabLink
from boothnet.layout import Layout
from boothnet.validate.perf.runner import netns_runner
from boothnet.validate.perf.wan import WanPath, effective_window, run_iperf3, run_nuttcp

REFERENCE_ONE_WAY_MS = 10.0
WINDOW_SHARES = (1 / 8, 1 / 4)  # of the reference path's BDP at 1 Gb/s: well below what it carries
_RTT = re.compile(r"= [\d.]+/([\d.]+)/")


def _measure(tool: str, mtu: int, work: Path) -> dict[str, float]:
    tag = os.getpid()
    names = (f"bncal-a-{tag}", f"bncal-b-{tag}")
    pid = None
    try:
        for ns in names:
            labnet.create_namespace(ns, f"boothnet-calibration:{ns}")
        link = LabLink(LabEnd("a", "ref0"), LabEnd("b", "ref0"), 1000, mtu, "calibration", REFERENCE_ONE_WAY_MS)
        pid = labnet.add_delay_link(link, names[0], names[1], work / "calibration-delay.log")
        for ns, address in zip(names, ("10.99.7.1/24", "10.99.7.2/24"), strict=True):
            subprocess.run(["ip", "-n", ns, "addr", "add", address, "dev", "ref0"], check=True)
        netns_runner(names[0], ["ping", "-c", "2", "-W", "2", "10.99.7.2"], 10)
        pings = netns_runner(names[0], ["ping", "-n", "-c", "10", "-i", "0.1", "10.99.7.2"], 20).stdout
        rtt_ms = float(m.group(1)) if (m := _RTT.search(pings)) else 2 * REFERENCE_ONE_WAY_MS
        ends = [Endpoint(name=ns, vlan="calibration", address=a, attach="calibration:ref0")  # type: ignore[arg-type]
                for ns, a in zip(names, ("10.99.7.1", "10.99.7.2"), strict=True)]
        path = WanPath("calibration", ends[0], ends[1], ("reference",), rtt_ms / 2, 0, 0, 1e9, mtu)
        run = {"iperf3": run_iperf3, "nuttcp": run_nuttcp}[tool]
        factors = []
        for share in WINDOW_SHARES:
            window = int(path.bdp * share)
            result = run(netns_runner, names[0], names[1], path, kind="sweep", window=window, duration=3, omit=1)
            used = effective_window(result) or window
            if result.succeeded and used:
                factors.append(result.throughput / (used * 8 / (rtt_ms / 1000)))
        if not factors:
            raise RuntimeError(f"the reference path carried no {tool} stream")
        return {"k": round(statistics.median(factors), 3), "rtt_ms": rtt_ms, "runs": len(factors)}
    finally:
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for ns in names:
            labnet.remove_namespace(ns)


def window_factor(build_root: Path, progress: Callable[[str], None]) -> Callable[[str, int], float]:
    """``factor(tool, mtu)``: this machine's k, measured on first use and cached."""
    cache = Layout(build_root, "").calibration

    def factor(tool: str, mtu: int) -> float:
        key = f"{platform.release()} {tool} mtu {mtu}"
        try:
            known = json.loads(cache.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        if key not in known:
            progress(f"[calibration] {tool} window factor at MTU {mtu} on a {2 * REFERENCE_ONE_WAY_MS:g} ms "
                     "reference path (once per machine, about 10 s)")
            cache.parent.mkdir(parents=True, exist_ok=True)
            known[key] = _measure(tool, mtu, cache.parent)
            write_text_atomic(cache, json.dumps(known, indent=1, sort_keys=True) + "\n")
            progress(f"[calibration] k = {known[key]['k']:.3f} ({key}), kept in {cache}")
        return float(known[key]["k"])

    return factor
