"""One run per network: a second run is refused at once naming the holder; a killed run's lock
is taken over, saying so; a run's own children are not refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boothnet.locks import HELD_ENV, Busy, build_lock, hold, run_locks
from tests.helpers import ROOT

HOLDER = """
import sys, time
from pathlib import Path
from boothnet.locks import hold
with hold(Path(sys.argv[1]), "build/x", command="boothnet demo --network x"):
    print("held", flush=True)
    time.sleep(60)
"""


def _holder(lock: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_run_is_refused_at_once_naming_the_holder(tmp_path: Path) -> None:
    lock = build_lock(tmp_path, "x")
    proc = _holder(lock)
    try:
        started = time.monotonic()
        with pytest.raises(Busy) as caught, hold(lock, "build/x"):
            pass
        assert time.monotonic() - started < 1
        message = str(caught.value)
        assert message.startswith(f"build/x is in use by `boothnet demo --network x` (pid {proc.pid}, started ")
        assert message.endswith("wait for it to finish, or stop it and run again")
    finally:
        proc.kill()
        proc.wait()


def test_a_killed_runs_lock_is_taken_over_and_said(tmp_path: Path) -> None:
    lock = build_lock(tmp_path, "x")
    proc = _holder(lock)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    said: list[str] = []
    with hold(lock, "build/x", progress=said.append):
        pass
    assert said == [f"build/x: took over the lock of `boothnet demo --network x` (pid {proc.pid}, started "
                    f"{said[0].split('started ')[1].split(',')[0]}, from {os.getcwd()}), which was killed"]


def test_children_of_the_holder_are_not_refused(tmp_path: Path) -> None:
    with run_locks(tmp_path, "x", lab=False):
        assert str(build_lock(tmp_path, "x").resolve()) in os.environ[HELD_ENV]
        child = subprocess.run([sys.executable, "-c", HOLDER.replace("time.sleep(60)", "pass"),
                                str(build_lock(tmp_path, "x"))], capture_output=True, text=True)
        assert child.returncode == 0 and child.stdout.strip() == "held"
    assert HELD_ENV not in os.environ


def test_shared_holders_run_side_by_side_but_not_beside_an_exclusive_one(tmp_path: Path) -> None:
    lock = build_lock(tmp_path, "x")
    with hold(lock, "build/x", shared=True):
        fd = os.open(lock, os.O_RDWR)
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # a second device of the same deploy
        finally:
            os.close(fd)
    proc = _holder(lock)
    try:
        with pytest.raises(Busy), hold(lock, "build/x", shared=True):
            pass
    finally:
        proc.kill()
        proc.wait()


def test_the_command_line_exits_75_with_one_line(tmp_path: Path) -> None:
    proc = _holder(build_lock(tmp_path, "lab-mini"))
    try:
        run = subprocess.run([str(Path(sys.executable).parent / "boothnet"), "build", "-n", "lab-mini",
                              "--build-dir", str(tmp_path), "--no-tools"], cwd=ROOT, capture_output=True, text=True)
    finally:
        proc.kill()
        proc.wait()
    assert run.returncode == 75
    assert run.stderr.strip().splitlines() == [
        f"boothnet build: {tmp_path}/lab-mini is in use by `boothnet demo --network x` (pid {proc.pid}, started "
        f"{run.stderr.split('started ')[1].split(',')[0]}, from {ROOT}): wait for it to finish, or stop it and run "
        "again"]



def test_a_measurement_waits_for_the_machines_turn_saying_whose_and_nests(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs on one machine never measure at once: the second waits (it is not refused), says
    for whom, and takes the turn when the first lets go; a turn inside a turn (a stage, then its
    calibration) does not wait for itself."""
    import boothnet.locks as locks

    monkeypatch.setattr(locks, "LAB_LOCK_DIR", tmp_path)
    one_second = HOLDER.replace("build/x", "this machine's measurement turn").replace("sleep(60)", "sleep(1)")
    proc = subprocess.Popen([sys.executable, "-c", one_second, str(locks.measure_lock())], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    said: list[str] = []
    started = time.monotonic()
    with locks.measurement_turn(said.append):
        assert time.monotonic() - started > 0.5  # the holder's second, waited out
        with locks.measurement_turn(said.append):
            pass
    assert proc.wait() == 0
    assert said == [f"this machine's measurement turn: waiting for `boothnet demo --network x` (pid {proc.pid}, "
                    f"started {said[0].split('started ')[1].split(',')[0]}, from {os.getcwd()})"]
