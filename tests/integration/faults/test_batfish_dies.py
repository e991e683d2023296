"""Batfish stops answering in the middle of verify: a clear error within a bound, never a hang,
and the demo deploys nothing."""

from __future__ import annotations

import os
import signal
import time

import pytest

from boothnet.verify.batfish import local
from boothnet.verify.batfish import verify as verify_module
from boothnet.verify.batfish.service import BatfishUnavailable, read_started
from boothnet.verify.stage import run_verify_stage
from tests.helpers import ROOT

BOUND_S = 120  # two questions' worth of bounded retries, far from pybatfish's own several minutes


@pytest.mark.batfish
def test_a_service_that_stops_answering_mid_verify_fails_within_a_bound(host, monkeypatch, tmp_path) -> None:
    started = read_started(local.service.STATE_DIR)
    if started is None or started.kind != "java" or not started.pid:
        pytest.skip("needs the Batfish service `boothnet batfish up` started with BATFISH_JAR (as CI does)")
    collect = verify_module.collect

    def stop_then_collect(*args, **kwargs):  # the snapshot is loaded: the questions are next
        os.kill(started.pid, signal.SIGSTOP)
        return collect(*args, **kwargs)

    monkeypatch.setattr(verify_module, "collect", stop_then_collect)
    began = time.monotonic()
    try:
        with pytest.raises(BatfishUnavailable) as caught:
            run_verify_stage(ROOT / "inventories" / "lab-mini", tmp_path, host=host)
    finally:
        os.kill(started.pid, signal.SIGCONT)
    took = time.monotonic() - began
    assert took < BOUND_S, took
    assert str(caught.value).startswith(f"Batfish at {host} stopped answering during verify: ")
    assert str(caught.value).endswith("the configs are not verified and nothing was deployed")
