"""Probes for reachability, isolation and MTU: ping, DF ping pairs, TCP connect, and a
large TCP transfer that exposes MTU black holes.

Every probe takes a ``Runner`` and a node name, runs plain argv on that node (ping,
python3: both exist wherever Ansible runs), and returns a typed result that keeps the
argv and raw output so a report can show what was actually seen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from boothnet.status import Status
from boothnet.validate.perf.runner import (
    Background,
    CommandResult,
    Runner,
    pidfile_for,
    start_background,
    stop_background,
)

IPV4_ICMP_HEADERS = 28  # IPv4 20 + ICMP echo 8: a DF ping of MTU-28 bytes fills the MTU
IPV6_ICMP_HEADERS = 48  # IPv6 40 + ICMPv6 echo 8 (IPv6 routers never fragment: every ping is DF)

T = TypeVar("T")
PingCause = Literal["ok", "frag-needed", "timeout", "unreachable", "error"]

_TX_RX = re.compile(r"(\d+) packets transmitted, (\d+) (?:packets )?received")
_RTT = re.compile(r"= [\d.]+/([\d.]+)/[\d.]+/[\d.]+ ms")
# a router's "frag needed" (IPv4) or Packet Too Big (IPv6), and the MTU it names
_FRAG = re.compile(r"From (\S+) .*(?:Frag needed and DF set \(mtu = |Packet too big: mtu=)(\d+)")
# iputils says "mtu=1400" of an IPv4 socket and "mtu: 1400" of an IPv6 one
_LOCAL = re.compile(r"local error: message too long, mtu(?:=|: )(\d+)")
_UNREACH = re.compile(r"(Network is unreachable|Destination (?:Host|Net) Unreachable"
                      r"|No route to host|Destination Port Unreachable)")


@dataclass(frozen=True)
class PingResult:
    node: str
    destination: str
    payload: int | None  # ICMP payload bytes (-s); None = ping's default
    df: bool
    transmitted: int
    received: int
    rtt_avg_ms: float | None
    cause: PingCause
    reported_mtu: int | None  # from "Frag needed (mtu = N)" or "message too long, mtu=N"
    reporter: str | None  # who said so: a router's address, or "local"
    argv: tuple[str, ...]
    returncode: int
    raw: str

    @property
    def ok(self) -> bool:
        return self.cause == "ok"

    def describe(self) -> str:
        what = f"ping {self.payload} bytes DF" if self.df else "ping"
        if self.cause == "ok":
            return f"{what} {self.node} -> {self.destination}: {self.received}/{self.transmitted}"
        detail = {
            "frag-needed": f"frag needed (mtu = {self.reported_mtu}, from {self.reporter})",
            "timeout": "timeout / black hole (no reply, no ICMP error)",
            "unreachable": "unreachable",
            "error": f"error: {self.raw.strip().splitlines()[-1] if self.raw.strip() else '?'}",
        }[self.cause]
        return f"{what} {self.node} -> {self.destination}: {detail}"


def parse_ping(
    output: str, returncode: int, *, node: str = "", destination: str = "",
    payload: int | None = None, df: bool = False, argv: Sequence[str] = (),
) -> PingResult:
    """Classify iputils ping output (stdout and stderr together)."""
    tx, rx = 0, 0
    if m := _TX_RX.search(output):
        tx, rx = int(m.group(1)), int(m.group(2))
    rtt = float(m.group(1)) if (m := _RTT.search(output)) else None
    cause: PingCause
    mtu: int | None = None
    reporter: str | None = None
    if rx > 0:
        cause = "ok"
    elif m := _FRAG.search(output):
        cause, reporter, mtu = "frag-needed", m.group(1), int(m.group(2))
    elif m := _LOCAL.search(output):
        cause, reporter, mtu = "frag-needed", "local", int(m.group(1))
    elif _UNREACH.search(output):
        cause = "unreachable"
    elif tx > 0:
        cause = "timeout"
    else:
        cause = "error"
    return PingResult(node, destination, payload, df, tx, rx, rtt, cause, mtu, reporter,
                      tuple(argv), returncode, output)


def ping_argv(destination: str, *, count: int = 3, wait_s: float = 1.0,
              interval: float = 0.2, payload: int | None = None, df: bool = False) -> list[str]:
    argv = ["ping", "-n", "-c", str(count), "-i", f"{interval:g}", "-W", f"{wait_s:g}"]
    if df:
        argv += ["-M", "do"]
    if payload is not None:
        argv += ["-s", str(payload)]
    return [*argv, destination]


def ping(runner: Runner, node: str, destination: str, *, count: int = 3, wait_s: float = 1.0,
         payload: int | None = None, df: bool = False) -> PingResult:
    """Reachability (or, with ``payload`` and ``df``, one DF size) from ``node``."""
    argv = ping_argv(destination, count=count, wait_s=wait_s, payload=payload, df=df)
    res = runner(node, argv, count * (wait_s + 0.5) + 5)
    return parse_ping(res.output, res.returncode, node=node, destination=destination,
                      payload=payload, df=df, argv=argv)


@dataclass(frozen=True)
class MtuProbeResult:
    link: str  # the link or path the intent names
    node: str
    destination: str
    mtu: int
    at_mtu: PingResult  # payload MTU-28: must pass
    above_mtu: PingResult  # payload MTU-27: must fail
    verdict: Status  # PASS or FAIL
    cause: str | None  # why it failed, None on PASS

    @property
    def message(self) -> str:
        if self.verdict == "PASS":
            return f"{self.link}: MTU {self.mtu} ok ({self.node} -> {self.destination})"
        return f"{self.link}: MTU {self.mtu} {self.node} -> {self.destination}: {self.cause}"


def _frag_text(res: PingResult) -> str:
    if res.reporter == "local":
        # the sender's own interface or its cached path MTU refused the size
        return f"frag needed, MTU {res.reported_mtu} known at the sender"
    return f"frag needed, path MTU {res.reported_mtu} (reported by {res.reporter})"


def forget_path_mtus(runner: Runner, node: str) -> None:
    """Drop the path MTUs ``node`` learned from earlier "frag needed" and Packet Too Big answers: a
    probe judges the path as it is now, not as it was ten minutes ago."""
    runner(node, ["ip", "route", "flush", "cache"], 10)
    runner(node, ["ip", "-6", "route", "flush", "cache"], 10)


def mtu_probe(runner: Runner, node: str, destination: str, mtu: int, *, link: str = "",
              count: int = 3, wait_s: float = 1.0, headers: int = IPV4_ICMP_HEADERS) -> MtuProbeResult:
    """DF ping at exactly ``mtu`` (must pass) and one byte more (must fail); ``headers``: the
    family's (IPV6_ICMP_HEADERS for an IPv6 destination)."""
    forget_path_mtus(runner, node)
    size = mtu - headers
    at = ping(runner, node, destination, count=count, wait_s=wait_s, payload=size, df=True)
    above = ping(runner, node, destination, count=count, wait_s=wait_s,
                 payload=size + 1, df=True)
    cause: str | None = None
    if not at.ok:
        cause = f"DF ping of {mtu} bytes failed: " + {
            "frag-needed": _frag_text(at),
            "timeout": "timeout, black hole (packets of this size vanish without an ICMP error)",
            "unreachable": "destination unreachable",
            "error": "ping error",
        }[at.cause]
    elif above.ok:
        cause = f"DF ping of {mtu + 1} bytes passed: the path MTU is larger than declared"
    return MtuProbeResult(link or f"{node} -> {destination}", node, destination, mtu, at, above,
                          Status.of(cause is None), cause)


# ------------------------------------------------------------------------------- TCP

# A sink: reads each connection to EOF and answers with the byte count. Run detached,
# bounded by ``timeout`` from start_background.
_LISTENER = """\
import socket, sys
s = socket.socket(socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(64)
while True:
    c, _ = s.accept()
    c.settimeout(30)
    n = 0
    try:
        while True:
            b = c.recv(262144)
            if not b:
                break
            n += len(b)
        c.sendall(str(n).encode())
    except OSError:
        pass
    c.close()
"""

# Connects, optionally sends N bytes and waits for the sink's count. One status word
# first on stdout so the parent can classify without tracebacks.
_CLIENT = """\
import socket, sys, time
host, port, timeout, nbytes = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
t0 = time.monotonic()
try:
    s = socket.create_connection((host, port), timeout=timeout)
except ConnectionRefusedError:
    print('refused'); sys.exit(2)
except (socket.timeout, TimeoutError):
    print('timeout'); sys.exit(3)
except OSError as e:
    print('error', e.errno, e.strerror); sys.exit(4)
ms = (time.monotonic() - t0) * 1000
if nbytes == 0:
    print('open', round(ms, 3)); sys.exit(0)
buf = bytes(262144)
sent = 0
try:
    while sent < nbytes:
        sent += s.send(buf[:min(len(buf), nbytes - sent)])
    s.shutdown(socket.SHUT_WR)
    got = s.recv(64).decode().strip()
except (socket.timeout, TimeoutError):
    print('stalled', round(ms, 3), sent); sys.exit(5)
except OSError as e:
    print('reset', round(ms, 3), sent, e.strerror); sys.exit(6)
print('transferred', round(ms, 3), sent, got, round(time.monotonic() - t0, 3))
"""

TcpState = Literal["open", "refused", "timeout", "error"]
TransferState = Literal["ok", "black-hole", "short", "refused", "timeout", "error"]


@dataclass(frozen=True)
class TcpResult:
    node: str
    destination: str
    port: int
    state: TcpState
    connect_ms: float | None
    argv: tuple[str, ...]
    raw: str

    @property
    def ok(self) -> bool:
        return self.state == "open"


@dataclass(frozen=True)
class TransferResult:
    node: str
    destination: str
    port: int
    nbytes: int
    state: TransferState
    received: int | None  # bytes the sink counted
    seconds: float | None
    argv: tuple[str, ...]
    raw: str

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    def describe(self) -> str:
        if self.state == "black-hole":
            return (f"TCP {self.node} -> {self.destination}:{self.port}: connection opens but a "
                    f"{self.nbytes}-byte transfer stalls: MTU black hole")
        return f"TCP transfer {self.node} -> {self.destination}:{self.port}: {self.state}"


def listener_argv(port: int, bind: str = "0.0.0.0") -> list[str]:
    return ["python3", "-c", _LISTENER, bind, str(port)]


def start_listener(runner: Runner, node: str, port: int, *, bind: str = "0.0.0.0",
                   limit_s: float = 300) -> Background:
    """A TCP sink on ``node``:``port``; stop it with ``stop_background``."""
    return start_background(runner, node, listener_argv(port, bind),
                            pidfile_for(runner, node, "listener", port), limit_s=limit_s, port=port)


def stop_listener(runner: Runner, handle: Background) -> None:
    stop_background(runner, handle)


def _client(runner: Runner, node: str, destination: str, port: int, timeout_s: float,
            nbytes: int) -> tuple[list[str], CommandResult, list[str]]:
    argv = ["python3", "-c", _CLIENT, destination, str(port), f"{timeout_s:g}", str(nbytes)]
    res = runner(node, argv, timeout_s * 2 + 10)
    words = res.stdout.split()
    return argv, res, words


def tcp_connect(runner: Runner, node: str, destination: str, port: int, *,
                timeout_s: float = 3.0) -> TcpResult:
    """Open (and close) a TCP connection from ``node``: open, refused or timeout."""
    argv, res, words = _client(runner, node, destination, port, timeout_s, 0)
    first = words[0] if words else ""
    state: TcpState = ("open" if first == "open" else "refused" if first == "refused"
                       else "timeout" if first == "timeout" else "error")
    ms = float(words[1]) if state == "open" and len(words) > 1 else None
    return TcpResult(node, destination, port, state, ms, tuple(argv), res.output)


def tcp_transfer(runner: Runner, node: str, destination: str, port: int, *,
                 nbytes: int = 16 * 1024 * 1024, timeout_s: float = 5.0) -> TransferResult:
    """Send ``nbytes`` to a sink: a connection that opens and then stalls is a black hole
    (small SYN/ACK packets pass, full-size segments vanish)."""
    argv, res, words = _client(runner, node, destination, port, timeout_s, nbytes)
    head = words[0] if words else ""
    state: TransferState
    received: int | None = None
    seconds: float | None = None
    if head == "transferred":
        received = int(words[3]) if len(words) > 3 and words[3].isdigit() else None
        seconds = float(words[4]) if len(words) > 4 else None
        state = "ok" if received == nbytes else "short"
    elif head == "stalled":
        state = "black-hole"
    elif head in ("refused", "timeout"):
        state = "refused" if head == "refused" else "timeout"
    else:
        state = "error"
    return TransferResult(node, destination, port, nbytes, state, received, seconds,
                          tuple(argv), res.output)


# What this machine's own software did not read in time, as the kernel counts it: UDP sockets'
# full receive buffers (both families; a host without IPv6 has no snmp6) and TUN/TAP devices'
# full queues (a reader in userspace: charon's ESP, the lab's delay lines; tun_flags marks them)
SOFTWARE_DROPS_SH = ('cat /proc/net/snmp /proc/net/snmp6 2>/dev/null; for dev in /sys/class/net/*; do [ -e '
                     '"$dev/tun_flags" ] && echo "TunTapTxDropped $(cat "$dev/statistics/tx_dropped")"; done; true')


def parse_software_drops(text: str) -> int | None:
    """UDP's RcvbufErrors (/proc/net/snmp), Udp6RcvbufErrors (/proc/net/snmp6) and each TUN/TAP
    device's tx drops, added: packets the kernel dropped because a reader on this machine did not
    keep up; None when the text has no IPv4 UDP field (nothing was read)."""
    rows = [line.split()[1:] for line in text.splitlines() if line.startswith("Udp:")]
    if len(rows) < 2 or "RcvbufErrors" not in rows[0]:
        return None
    more = re.findall(r"^(?:Udp6RcvbufErrors\s+|TunTapTxDropped )(\d+)$", text, flags=re.M)
    try:
        return int(rows[1][rows[0].index("RcvbufErrors")]) + sum(int(count) for count in more)
    except (IndexError, ValueError):
        return None


def software_drops(runner: Runner, node: str) -> int | None:
    """``node``'s count so far (parse_software_drops; its network namespace's, in the lab); None
    when unread."""
    return parse_software_drops(runner(node, ["sh", "-c", SOFTWARE_DROPS_SH], 10).stdout)


# TCP's D-SACKs received: each a segment the receiver reports it got twice, so the retransmit that
# sent it again was spurious (a timer that fired while a starved core held the ACK), not a loss
DUPLICATES_SH = "cat /proc/net/netstat"


def parse_duplicates(text: str) -> int | None:
    """TcpExt's TCPDSACKRecv + TCPDSACKOfoRecv from /proc/net/netstat; None when unread."""
    rows = [line.split()[1:] for line in text.splitlines() if line.startswith("TcpExt:")]
    if len(rows) < 2:
        return None
    names, values = rows[0], rows[1]
    try:
        return sum(int(values[names.index(key)]) for key in ("TCPDSACKRecv", "TCPDSACKOfoRecv") if key in names)
    except (IndexError, ValueError):
        return None


def duplicates_meanwhile(runner: Runner, nodes: list[str], measure: Callable[[], T]) -> tuple[T, int | None]:
    """``measure()``, and the D-SACKs ``nodes`` (the test's senders) received meanwhile; None when
    one of them could not be read (a floor host without /proc: its retransmits stay as counted)."""
    def read() -> list[int | None]:
        return [parse_duplicates(runner(node, ["sh", "-c", DUPLICATES_SH], 10).stdout) for node in nodes]

    before = read()
    result = measure()
    counts = [(start, end) for start, end in zip(before, read(), strict=True)
              if start is not None and end is not None]
    return result, sum(end - start for start, end in counts) if len(counts) == len(nodes) else None


def drops_meanwhile(runner: Runner, nodes: dict[str, str], measure: Callable[[], T]) -> tuple[T, dict[str, int]]:
    """``measure()``, and the packets each of ``nodes`` (name: the runner's node) dropped in its
    own software meanwhile (software_drops), where any; a node whose counts cannot be read is left out."""
    before = {name: software_drops(runner, node) for name, node in nodes.items()}
    result = measure()
    after = {name: software_drops(runner, node) for name, node in nodes.items()}
    return result, {name: count for name in nodes
                    if (start := before[name]) is not None and (end := after[name]) is not None
                    and (count := end - start) > 0}
