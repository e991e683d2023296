"""Batfish stops answering in the middle of verify: a clear error within a bound, never a hang,
and the demo deploys nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from boothnet.verify.batfish import verify as verify_module
from boothnet.verify.batfish.service import BatfishUnavailable, _split_port
from boothnet.verify.stage import run_verify_stage
from tests.helpers import ROOT

BOUND_S = 120  # two questions' worth of bounded retries, far from pybatfish's own several minutes
# A relay of the service in a process of its own, on a free localhost port: stopping it stops the
# answers of this test's session only (the live tier's other worker asks the same service).
RELAY = ("import socket, sys\n"
         "from boothnet.lab.controller import _serve\n"
         "listener = socket.create_server(('127.0.0.1', 0))\n"
         "print(listener.getsockname()[1], flush=True)\n"
         "_serve(listener, int(sys.argv[1]))\n")


@pytest.fixture
def relay(host: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """`host:port` of a relay to the live service, and its process."""
    name, port = _split_port(host)
    if name not in ("localhost", "127.0.0.1"):
        pytest.skip(f"the relay reaches a service on this machine, not {host}")
    proc = subprocess.Popen([sys.executable, "-c", RELAY, str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield f"127.0.0.1:{proc.stdout.readline().strip()}", proc
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.kill()
        proc.wait()


@pytest.mark.batfish
def test_a_service_that_stops_answering_mid_verify_fails_within_a_bound(relay, monkeypatch, tmp_path) -> None:
    address, proc = relay
    collect = verify_module.collect

    def stop_then_collect(*args, **kwargs):  # the snapshot is loaded: the questions are next
        os.kill(proc.pid, signal.SIGSTOP)
        return collect(*args, **kwargs)

    monkeypatch.setattr(verify_module, "collect", stop_then_collect)
    began = time.monotonic()
    with pytest.raises(BatfishUnavailable) as caught:
        run_verify_stage(ROOT / "inventories" / "lab-mini", tmp_path, host=address)
    took = time.monotonic() - began
    assert took < BOUND_S, took
    assert str(caught.value).startswith(f"Batfish at {address} stopped answering during verify: ")
    assert str(caught.value).endswith("the configs are not verified and nothing was deployed")
