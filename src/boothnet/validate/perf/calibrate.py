"""The kernel's window factor, measured once per machine on a reference path.

Below the BDP a TCP stream carries about k x window/RTT, where k is what this kernel grants per
byte of window asked for (its buffer accounting and window scaling: about 1.3 here). The WAN
sweep judges its points against the intent's RTT and this k. k comes from a reference path of its
own, two scratch namespaces joined by the lab's delay line, never from the run it judges: a path
with twice the declared delay then fails the sweep too. Cached per kernel, tool and MTU in
``<build>/calibration.json``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import platform
import re
import signal
import statistics
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from boothnet.files import write_text_atomic
from boothnet.intent.model import Endpoint
from boothnet.lab import (
    CharonPaths,
    LabEnd,
    LabLink,
    add_delay_link,
    add_link,
    charon_env,
    create_namespace,
    remove_namespace,
    run_charon,
    shape,
)
from boothnet.layout import Layout
from boothnet.locks import measurement_turn
from boothnet.progress import Progress
from boothnet.validate.perf.ports import PortBlock
from boothnet.validate.perf.quiet import MachineLoad, quiet_moment
from boothnet.validate.perf.run import ToolName, ToolRequest, run_throughput
from boothnet.validate.perf.runner import netns_runner
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.perf.wan_judges import effective_window
from boothnet.validate.perf.wan_path import WanPath
from boothnet.validate.perf.wan_tools import WanTest, run_iperf3, run_nuttcp

REFERENCE_ONE_WAY_MS = 10.0
WINDOW_SHARES = (1 / 8, 1 / 4)  # of the reference path's BDP at 1 Gb/s: well below what it carries
_RTT = re.compile(r"= [\d.]+/([\d.]+)/")


def _measure(tool: str, mtu: int, work: Path) -> dict[str, float]:
    tag = os.getpid()
    names = (f"bncal-a-{tag}", f"bncal-b-{tag}")
    pid = None
    try:
        for ns in names:
            create_namespace(ns, f"boothnet-calibration:{ns}")
        link = LabLink(LabEnd("a", "ref0"), LabEnd("b", "ref0"), 1000, mtu, "calibration", REFERENCE_ONE_WAY_MS)
        pid = add_delay_link(link, names[0], names[1], work / "calibration-delay.log")
        for ns, address in zip(names, ("10.99.7.1/24", "10.99.7.2/24"), strict=True):
            subprocess.run(["ip", "-n", ns, "addr", "add", address, "dev", "ref0"], check=True)
        netns_runner(names[0], ["ping", "-c", "2", "-W", "2", "10.99.7.2"], 10)
        pings = netns_runner(names[0], ["ping", "-n", "-c", "10", "-i", "0.1", "10.99.7.2"], 20).stdout
        rtt_ms = float(m.group(1)) if (m := _RTT.search(pings)) else 2 * REFERENCE_ONE_WAY_MS
        ends = [Endpoint(name=ns, vlan="calibration", address=a, attach="calibration:ref0")
                for ns, a in zip(names, ("10.99.7.1", "10.99.7.2"), strict=True)]
        path = WanPath("calibration", ends[0], ends[1], ("reference",), rtt_ms / 2, 0, 0, 1e9, mtu)
        run = {"iperf3": run_iperf3, "nuttcp": run_nuttcp}[tool]
        factors = [k for share in WINDOW_SHARES if (k := _window_factor(run, names, path, int(path.bdp * share)))]
        if not factors:
            raise RuntimeError(f"the reference path carried no {tool} stream")
        return {"k": round(statistics.median(factors), 3), "rtt_ms": rtt_ms, "runs": len(factors)}
    finally:
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for ns in names:
            remove_namespace(ns)


def _window_factor(run: Callable[..., ThroughputResult], names: tuple[str, str], path: WanPath,
                   window: int) -> float:
    """k at ``window``: the higher of CEILING_RUNS runs, each at a quiet moment (a sender starved by
    the machine's other work understates k, and the figure is cached: a CI run measured 1.11 beside
    four live workers where 1.37 is this machine's, then failed a sweep row at 116% of it); 0: none ran."""
    factors = [result.throughput / (used * 8 / (2 * path.one_way_ms / 1000))
               for result in _quiet_runs(lambda: run(netns_runner, names, path, WanTest("sweep", 3, 1, window)))
               if result.succeeded and (used := effective_window(result) or window)]
    return max(factors, default=0.0)


def _quiet_runs(measure: Callable[[], ThroughputResult]) -> list[ThroughputResult]:
    """CEILING_RUNS runs of ``measure``, each at a quiet moment; a figure kept for every later run
    is the best of them (a run slowed by the machine's other work understates the lab)."""
    runs = []
    for _ in range(CEILING_RUNS):
        quiet_moment(MachineLoad())
        runs.append(measure())
    return runs


def _cached(build_root: Path, key: str, measure: Callable[[Path], dict[str, float]], says: str,
            progress: Progress) -> dict[str, float]:
    """``measure(work folder)``'s answer for ``key``, measured on first use (in this machine's
    measurement turn) and kept in calibration.json."""
    cache = Layout(build_root, "").calibration
    known = _known(cache)
    if key not in known:
        with measurement_turn(progress):
            known = _known(cache)  # another run may have measured it while this one waited
            if key not in known:
                progress(f"[calibration] {says} (once per machine)")
                cache.parent.mkdir(parents=True, exist_ok=True)
                known[key] = measure(cache.parent)
                write_text_atomic(cache, json.dumps(known, indent=1, sort_keys=True) + "\n")
                progress(f"[calibration] {key}: {known[key]}, kept in {cache}")
    return known[key]


def _known(cache: Path) -> dict[str, dict[str, float]]:
    """What calibration.json holds; {} when it is missing, torn or not an object (measured again)."""
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def window_factor(build_root: Path, progress: Progress) -> Callable[[str, int], float]:
    """``factor(tool, mtu)``: this machine's k, measured on first use and cached."""
    def factor(tool: str, mtu: int) -> float:
        says = f"{tool} window factor at MTU {mtu} on a {2 * REFERENCE_ONE_WAY_MS:g} ms reference path, about 10 s"
        return float(_cached(build_root, f"{platform.release()} {tool} mtu {mtu}",
                             lambda work: _measure(tool, mtu, work), says, progress)["k"])

    return factor


# --- the lab's own ceilings ------------------------------------------------------------------
# What the lab's emulation carries on this machine for a path of a given shape: the delay line
# (frames through a userspace process) and charon's kernel-libipsec (ESP in userspace), shaped at
# the path's rate with its delay, as the lab builds them. A path that asks more can be proven only
# on a floor; in the lab it is judged against the ceiling, and says so.
CEILING_SECONDS, CEILING_OMIT_S = 4, 2
# the higher of two runs, each at a quiet moment: a run slowed by the machine's other work
# understates what the lab carries, and is cached for every later run (a CI run measured a delay
# line at 273 Mb/s beside four live workers, then judged a 449 Mb/s stream against it)
CEILING_RUNS = 2


def _tunnel(ns: str, side: str, work: Path, psk: str) -> tuple[subprocess.Popen[bytes], CharonPaths]:
    """charon in ``ns`` with one PSK tunnel between 10.98.<side>.1 and the peer's inner address."""
    me, other = ("1", "2") if side == "a" else ("2", "1")
    p = CharonPaths(work / f"ceiling-{side}")
    p.folder.mkdir(parents=True, exist_ok=True)
    p.swanctl_conf.write_text(f"""connections {{ ceiling {{ version = 2
  local_addrs = 10.99.8.{me}
  remote_addrs = 10.99.8.{other}
  proposals = aes256-sha256-modp2048
  encap = yes
  local {{ auth = psk
    id = 10.99.8.{me} }}
  remote {{ auth = psk
    id = 10.99.8.{other} }}
  children {{ ceiling {{ local_ts = 10.98.{me}.1/32
    remote_ts = 10.98.{other}.1/32
    esp_proposals = aes256gcm16-modp2048 }} }} }} }}
secrets {{ ike-ceiling {{ id = 10.99.8.{other}
  secret = {psk} }} }}
""")
    proc = run_charon(ns, p, f"the ceiling's {ns}")
    subprocess.run(["ip", "netns", "exec", ns, "swanctl", "--load-all", "--noprompt", "--file", str(p.swanctl_conf),
                    "--uri", p.uri], env=charon_env(p), capture_output=True, check=True, timeout=30)
    subprocess.run(["ip", "-n", ns, "addr", "add", f"10.98.{me}.1/32", "dev", "lo"], check=True)
    return proc, p


def _measure_ceiling(kind: str, path: WanPath, work: Path) -> dict[str, float]:
    tag = os.getpid()
    names = (f"bnceil-a-{tag}", f"bnceil-b-{tag}")
    delay, tunnel = "delay line" in kind, "tunnel" in kind
    mtu = path.mtu
    procs: list[int] = []
    try:
        for ns in names:
            create_namespace(ns, f"boothnet-calibration:{ns}")
            subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        outer = max(1500, mtu + 100) if tunnel else mtu  # ESP-in-UDP's headers around the inner packet
        rate = int(path.rate_bps / 1e6)
        link = LabLink(LabEnd("a", "ref0"), LabEnd("b", "ref0"), rate, outer, "ceiling",
                       path.one_way_ms if delay else 0)
        if delay:
            procs.append(add_delay_link(link, names[0], names[1], work / "ceiling-delay.log"))
        else:
            add_link(link, names[0], names[1])
        for ns in names:
            shape(ns, "ref0", rate)
        for ns, address in zip(names, ("10.99.8.1/24", "10.99.8.2/24"), strict=True):
            subprocess.run(["ip", "-n", ns, "addr", "add", address, "dev", "ref0"], check=True)
        target = "10.99.8.2"
        if tunnel:
            psk = "0s" + base64.b64encode(os.urandom(32)).decode()
            (proc_a, initiator), (proc_b, _) = (_tunnel(names[0], "a", work, psk), _tunnel(names[1], "b", work, psk))
            procs += [proc_a.pid, proc_b.pid]
            subprocess.run(["ip", "netns", "exec", names[0], "swanctl", "--initiate", "--child", "ceiling", "--uri",
                            initiator.uri], env=charon_env(initiator), capture_output=True, check=True,
                           timeout=30)
            for ns, me, other in ((names[0], "1", "2"), (names[1], "2", "1")):
                subprocess.run(["ip", "-n", ns, "link", "set", "ipsec0", "mtu", str(mtu)], check=True)
                subprocess.run(["ip", "-n", ns, "route", "add", f"10.98.{other}.1/32", "dev", "ipsec0", "src",
                                f"10.98.{me}.1"], check=True)
            target = "10.98.2.1"
        netns_runner(names[0], ["ping", "-c", "3", "-W", "2", target], 15)
        return _best_of_quiet_runs(kind, ToolRequest(
            "iperf3", names[1], names[0], target, PortBlock("ceiling", names[1], 5301, 1),
            duration=CEILING_SECONDS, omit=CEILING_OMIT_S, window=path.advised_window))
    finally:
        for pid in procs:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for ns in names:
            remove_namespace(ns)


def _best_of_quiet_runs(kind: str, request: ToolRequest) -> dict[str, float]:
    runs = _quiet_runs(lambda: run_throughput(netns_runner, request))
    carried = [r for r in runs if r.succeeded]
    if not carried:
        raise RuntimeError(f"the lab's {kind} carried no iperf3 stream: {runs[-1].error}")
    best = max(carried, key=lambda r: r.throughput)
    return {"bps": round(best.throughput), "retransmits": best.retransmits or 0}


def lab_ceiling(build_root: Path, progress: Progress) -> Callable[[str, WanPath], float]:
    """``ceiling(kind, path)``: b/s one iperf3 stream with the path's advised window gets through
    the lab's ``kind`` ("delay line", "tunnel and delay line") shaped at the path's rate, with its
    delay and MTU, on a scratch pair of this machine; measured once per shape and cached."""
    def ceiling(kind: str, path: WanPath) -> float:
        shape_ = f"mtu {path.mtu}, {path.rate_bps / 1e6:g} Mb/s, {path.one_way_ms:g} ms one way"
        return float(_cached(build_root, f"{platform.release()} lab {kind}, {shape_}",
                             lambda work: _measure_ceiling(kind, path, work),
                             f"what the lab's {kind} carries at {shape_}, about 10 s", progress)["bps"])

    return ceiling


# What a stand-in router forwards here: ``flows`` iperf3 streams at once from one VLAN to another
# through a router on a stick behind its firewall, wired as this lab wires a trunk (a switch
# namespace bridging each VLAN to a segment of its own), unshaped: the CPU is the only limit, and
# the tools share it with the forwarding, as in the lab.
FORWARDING_SECONDS, FORWARDING_OMIT_S = 3, 1
FORWARDING_FIREWALL = """table inet ceiling {
  chain forward {
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    ip saddr 10.97.10.0/24 ip daddr 10.97.20.0/24 tcp dport 5301-65535 accept
  }
}
"""


def _in(ns: str, *argv: str) -> None:
    subprocess.run(["ip", "netns", "exec", ns, *argv], check=True, capture_output=True, timeout=30)


def _measure_forwarding(flows: int, mtu: int, work: Path) -> dict[str, float]:
    tag = os.getpid()
    ns = {role: f"bnfwd-{role}-{tag}" for role in ("c", "sw", "r", "s")}
    try:
        for name in ns.values():
            create_namespace(name, f"boothnet-calibration:{name}")
        for host, vlan in (("c", 10), ("s", 20)):
            add_link(LabLink(LabEnd(host, "eth0"), LabEnd("sw", f"p{vlan}"), 0, mtu, "ceiling"),
                            ns[host], ns["sw"])
            add_link(LabLink(LabEnd("sw", f"t{vlan}"), LabEnd("r", f"eth{vlan}"), 0, mtu, "ceiling"),
                            ns["sw"], ns["r"])
            _in(ns["sw"], "ip", "link", "add", f"br{vlan}", "type", "bridge")
            for port in (f"p{vlan}", f"t{vlan}"):
                _in(ns["sw"], "ip", "link", "set", port, "master", f"br{vlan}")
            _in(ns["sw"], "ip", "link", "set", f"br{vlan}", "up")
            _in(ns["r"], "ip", "addr", "add", f"10.97.{vlan}.1/24", "dev", f"eth{vlan}")
            _in(ns[host], "ip", "addr", "add", f"10.97.{vlan}.2/24", "dev", "eth0")
            _in(ns[host], "ip", "route", "add", "default", "via", f"10.97.{vlan}.1")
        _in(ns["r"], "sysctl", "-qw", "net.ipv4.ip_forward=1")
        (work / "ceiling-firewall.nft").write_text(FORWARDING_FIREWALL)
        _in(ns["r"], "nft", "-f", str(work / "ceiling-firewall.nft"))
        netns_runner(ns["c"], ["ping", "-c", "3", "-W", "2", "10.97.20.2"], 15)

        def stream(i: int) -> float:
            result = run_throughput(netns_runner, ToolRequest(
                "iperf3", ns["s"], ns["c"], "10.97.20.2", PortBlock(f"ceiling{i}", ns["s"], 5301 + i, 1),
                duration=FORWARDING_SECONDS, omit=FORWARDING_OMIT_S))
            if not result.succeeded:
                raise RuntimeError(f"a stand-in router carried no iperf3 stream: {result.error}")
            return result.throughput

        with ThreadPoolExecutor(max_workers=flows) as pool:
            total = sum(pool.map(stream, range(flows)))
        return {"bps": round(total), "flows": flows}
    finally:
        for name in ns.values():
            remove_namespace(name)


def forwarding_ceiling(build_root: Path, progress: Progress) -> Callable[[int, int], float]:
    """``ceiling(flows, mtu)``: b/s that many iperf3 streams at once get through a stand-in router
    (on a stick, behind its firewall) on this machine; measured once per count and MTU and cached."""
    def ceiling(flows: int, mtu: int) -> float:
        return float(_cached(build_root, f"{platform.release()} lab forwarding, {flows} flows, mtu {mtu}",
                             lambda work: _measure_forwarding(flows, mtu, work),
                             f"what a stand-in router forwards for {flows} flows at MTU {mtu}, about 10 s",
                             progress)["bps"])

    return ceiling


# What one stream of a tool carries here: two scratch namespaces on an unshaped veth pair at the
# path's MTU, no router between them; the sender's core is the only limit (nuttcp at 10 Gb/s:
# 94-96 % of a core for 8.0-8.7 Gb/s on a slow 2-core machine, where iperf3 carried 9.3-9.5).
STREAM_SECONDS, STREAM_OMIT_S = 3, 1


def _measure_stream(tool: ToolName, mtu: int, _work: Path) -> dict[str, float]:
    tag = os.getpid()
    names = (f"bnstr-a-{tag}", f"bnstr-b-{tag}")
    try:
        for ns in names:
            create_namespace(ns, f"boothnet-calibration:{ns}")
        add_link(LabLink(LabEnd("a", "ref0"), LabEnd("b", "ref0"), 0, mtu, "ceiling"), names[0], names[1])
        for ns, address in zip(names, ("10.99.9.1/24", "10.99.9.2/24"), strict=True):
            subprocess.run(["ip", "-n", ns, "addr", "add", address, "dev", "ref0"], check=True)
        netns_runner(names[0], ["ping", "-c", "3", "-W", "2", "10.99.9.2"], 15)
        result = run_throughput(netns_runner, ToolRequest(
            tool, names[1], names[0], "10.99.9.2", PortBlock("stream", names[1], 5301, 2),
            duration=STREAM_SECONDS, omit=STREAM_OMIT_S))
        if not result.succeeded:
            raise RuntimeError(f"one {tool} stream carried nothing between two namespaces: {result.error}")
        return {"bps": round(result.throughput)}
    finally:
        for ns in names:
            remove_namespace(ns)


def stream_ceiling(build_root: Path, progress: Progress) -> Callable[[ToolName, int], float]:
    """``ceiling(tool, mtu)``: b/s one stream of ``tool`` carries between two namespaces of this
    machine with nothing but a veth between them; measured once per tool and MTU and cached."""
    def ceiling(tool: ToolName, mtu: int) -> float:
        return float(_cached(build_root, f"{platform.release()} lab stream, {tool}, mtu {mtu}",
                             lambda work: _measure_stream(tool, mtu, work),
                             f"what one {tool} stream carries here at MTU {mtu}, about 5 s", progress)["bps"])

    return ceiling


@dataclass(frozen=True)
class LabLimits:
    """What this machine's lab carries, measured once per machine: a stand-in router's forwarding
    (``forwarding(flows, mtu)``) and one tool's stream (``stream(tool, mtu)``), b/s."""

    forwarding: Callable[[int, int], float]
    stream: Callable[[ToolName, int], float]

    @classmethod
    def of(cls, build_root: Path, progress: Progress) -> LabLimits:
        return cls(forwarding_ceiling(build_root, progress), stream_ceiling(build_root, progress))
