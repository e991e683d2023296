"""Clients of one test run over the same seconds: each waits until every server listens.
A client whose server cannot start releases the others instead of leaving them waiting."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from boothnet.validate.perf.ports import PortBlock
from boothnet.validate.perf.run import ToolRequest, run_throughput
from boothnet.validate.perf.runner import CommandResult

RECORDED = (Path(__file__).parent / "cases" / "iperf3" / "single_stream_1500" / "output.json").read_text()


class FakeLab:
    """Servers start after ``start_delay[node]`` seconds (or fail to start); clients print a
    recorded iperf3 result. Records when each server listens and each client starts."""

    def __init__(self, start_delay: dict[str, float], broken: frozenset[str] = frozenset()) -> None:
        self.start_delay = start_delay
        self.broken = broken
        self.listening: dict[str, int] = {}
        self.events: list[tuple[float, str, str]] = []
        self.lock = threading.Lock()

    def __call__(self, node: str, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
        def done(rc: int = 0, out: str = "") -> CommandResult:
            return CommandResult(node, tuple(argv), rc, out, "")

        if argv[0] == "setsid":  # a detached server
            if node in self.broken:
                return done(1)
            time.sleep(self.start_delay.get(node, 0))
            port = int(argv[argv.index("-p") + 1])
            with self.lock:
                self.listening[node] = port
                self.events.append((time.monotonic(), "listen", node))
            return done()
        if argv[0] == "ss":
            port = self.listening.get(node)
            return done(out=f"LISTEN 0 5 0.0.0.0:{port} 0.0.0.0:*\n" if port else "")
        if argv[0] == "timeout" and argv[6] == "iperf3":  # a client, stopped at its bound with SIGINT
            with self.lock:
                self.events.append((time.monotonic(), "client", node))
            return done(out=RECORDED)
        if argv[0] == "pkill":
            with self.lock:
                self.listening.pop(node, None)
            return done()
        if argv[0] == "cat":  # the pidfile
            return done(out="4242\n")
        if argv[0] == "ps":  # still running: only until stopped
            return done(0, "S\n") if node in self.listening else done(1)
        return done()  # rm


def run_two(lab: FakeLab) -> list[CommandResult | Exception]:
    together = threading.Barrier(2)

    def measure(i: int) -> CommandResult | Exception:
        try:
            return run_throughput(  # type: ignore[return-value]
                lab, ToolRequest("iperf3", f"fs{i}", f"cn{i}", "10.0.0.1", PortBlock(f"t{i}", f"fs{i}", 5201 + i, 1),
                                 duration=1), start_together=together)
        except Exception as exc:  # the test looks at what each thread ended with
            return exc

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(measure, [0, 1]))


def test_no_client_starts_before_every_server_listens() -> None:
    lab = FakeLab(start_delay={"fs0": 0.0, "fs1": 0.4})
    results = run_two(lab)
    assert all(getattr(r, "succeeded", False) for r in results), results
    last_listen = max(t for t, kind, _ in lab.events if kind == "listen")
    first_client = min(t for t, kind, _ in lab.events if kind == "client")
    assert first_client >= last_listen, lab.events


def test_a_server_that_cannot_start_releases_the_other_client() -> None:
    lab = FakeLab(start_delay={}, broken=frozenset({"fs1"}))
    started = time.monotonic()
    results = run_two(lab)
    assert time.monotonic() - started < 5
    assert isinstance(results[1], RuntimeError) and "fs1: could not start iperf3" in str(results[1])
    assert isinstance(results[0], threading.BrokenBarrierError)
    assert not [e for e in lab.events if e[1] == "client"]


def test_a_udp_client_hung_on_its_opening_datagram_is_measured_again_and_says_so() -> None:
    """iperf3 3.12 waits without end for the reply to the datagram that opens a UDP test (one lost
    datagram hangs it, run by hand in the lab); its first run is not the path's verdict."""
    cases = Path(__file__).parent / "cases" / "iperf3"
    recorded = (cases / "udp_20M_loopback" / "output.json").read_text()
    clients: list[float | None] = []

    class HangsOnce(FakeLab):
        """The first client stopped at its bound by timeout(1), printing the recorded ``hung``."""

        def __init__(self, hung: str) -> None:
            super().__init__({})
            self.hung = (cases / hung / "output.json").read_text()

        def __call__(self, node: str, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
            if argv[0] != "timeout":
                return super().__call__(node, argv, timeout)
            clients.append(timeout)
            hung = len(clients) == 1
            return CommandResult(node, tuple(argv), 124 if hung else 0, self.hung if hung else recorded, "")

    def measure(lab: FakeLab, rate: float | None) -> object:
        return run_throughput(lab, ToolRequest("iperf3", "fs0", "cn0", "10.0.0.1", PortBlock("t", "fs0", 5201, 1),
                                               duration=1, udp_rate_bps=rate))

    result = measure(HangsOnce("udp_handshake_unanswered"), 20e6)
    assert clients == [21 + 5, 21 + 5]  # its bound, and the grace the runner gives it to print
    assert result.succeeded and result.protocol == "udp", result
    assert result.retried and result.retried.startswith("its first run hung until its timeout")
    clients.clear()
    tcp = measure(HangsOnce("udp_handshake_unanswered"), None)  # a TCP client that hangs: its path is the answer
    assert len(clients) == 1 and not tcp.succeeded and tcp.retried is None
    clients.clear()
    # a client whose control connection never opened is not run again, and says where it stopped
    unconnected = measure(HangsOnce("control_unconnected"), 20e6)
    assert len(clients) == 1 and unconnected.retried is None
    assert unconnected.error == ("iperf3 client timed out after 21 s before its control connection to the server "
                                 "opened")
