"""The isolation prober's wait for drops, run as validate runs it (the system python3) on loopback:
it stops early once answers show its paths answer fast, and waits its whole timeout with none."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

from boothnet.validate.checks.isolation import PROBER


@contextmanager
def silent_udp_port() -> Iterator[int]:
    """A bound UDP port that never answers: a datagram to it is a drop to the prober."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@contextmanager
def open_tcp_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def probe(targets: list[list[object]], timeout_s: float, *reference: str) -> tuple[list[str], float]:
    start = time.monotonic()
    done = subprocess.run(["python3", "-c", PROBER, json.dumps(targets), str(timeout_s), *reference],
                          capture_output=True, text=True, check=True, timeout=30)
    return json.loads(done.stdout), time.monotonic() - start


def test_an_answer_shortens_the_wait_for_the_drops() -> None:
    with open_tcp_port() as tcp, silent_udp_port() as udp:
        states, took = probe([["127.0.0.1", "tcp", tcp], ["127.0.0.1", "udp", udp]], 8)
    assert states == ["open", "timeout"]
    assert took < 8, took  # 1.5 s: the answer came in a few milliseconds


def test_the_gateway_s_answer_stands_in_when_no_probe_is_answered() -> None:
    with silent_udp_port() as udp:
        states, took = probe([["127.0.0.1", "udp", udp]], 8, "127.0.0.1")
    assert states == ["timeout"]
    assert took < 8, took


def test_with_no_answer_at_all_the_whole_timeout_is_waited() -> None:
    with silent_udp_port() as udp:
        states, took = probe([["127.0.0.1", "udp", udp]], 2)
    assert states == ["timeout"]
    assert took >= 2, took
