"""One run per network at a time: a lock on ``build/<network>/`` for every command that writes
there, and a machine-wide lock per lab name under /run/boothnet/ for every command that touches
the lab (namespaces are shared by every checkout on the machine). One rate measurement per
machine at a time: every run waits for the measurement turn (also under /run/boothnet/).

Locks are ``flock``s, so a killed run's lock is free at once; its record (pid, command, start)
stays in the file, which is how the next run says that it took over. A run's child processes
(ansible-playbook and its modules, started by ``boothnet demo``) inherit the locks it holds through
BOOTHNET_HELD_LOCKS and do not wait for their own parent.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from boothnet.layout import Layout
from boothnet.process import alive
from boothnet.progress import Progress

HELD_ENV = "BOOTHNET_HELD_LOCKS"
LAB_LOCK_DIR = Path(os.environ.get("BOOTHNET_LOCK_DIR", "/run/boothnet"))


class Busy(RuntimeError):
    """Another run holds the lock: the message names it."""


def build_lock(build_root: Path, network: str) -> Path:
    return Layout(build_root, network).lock


def lab_lock(network: str) -> Path:
    return LAB_LOCK_DIR / f"lab-{network}.lock"


def measure_lock() -> Path:
    """Beside the lab locks; a user who cannot write there (a floor run from a laptop) shares
    the temp folder's."""
    if os.access(LAB_LOCK_DIR if LAB_LOCK_DIR.exists() else LAB_LOCK_DIR.parent, os.W_OK):
        return LAB_LOCK_DIR / "measure.lock"
    return Path(tempfile.gettempdir()) / "boothnet-measure.lock"


def measurement_turn(progress: Progress = lambda _: None) -> contextlib.AbstractContextManager[None]:
    """This machine's turn to measure a rate, waited for. Every lab namespace, tool and delay
    line runs on this machine's cores: a rate measured while another run measures beside it is
    the two runs' share, not the path's. Nested turns (a stage, then its calibration) hold it once."""
    return hold(measure_lock(), "this machine's measurement turn", progress=progress, wait=True)


def _held() -> set[str]:
    return {p for p in os.environ.get(HELD_ENV, "").split(os.pathsep) if p}


def _describe(record: dict[str, object]) -> str:
    return (f"`{record.get('command', '?')}` (pid {record.get('pid', '?')}, started {record.get('started', '?')}"
            f"{', from ' + str(record['cwd']) if record.get('cwd') else ''})")


@contextlib.contextmanager
def hold(path: Path, what: str, command: str | None = None,
         progress: Progress = lambda _: None, shared: bool = False, wait: bool = False) -> Iterator[None]:
    """Hold the lock at ``path`` (``what``: "build/sc-booth", "lab sc-booth") for the block, or
    raise :class:`Busy` at once naming the command that holds it. ``shared``: many holders at
    once (one deploy's devices in parallel), none beside an exclusive one. ``wait``: wait for
    the holder instead, saying whom."""
    path.parent.mkdir(parents=True, exist_ok=True)
    key = str(path.resolve())
    if key in _held():
        yield  # a parent of this process holds it for us
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                raise Busy(f"{what} is in use by {_describe(_record(fd))}: wait for it to finish, or stop it "
                           "and run again") from None
            progress(f"{what}: waiting for {_describe(_record(fd))}")
            fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        left = _record(fd)
        if left.get("pid") and left.get("pid") != os.getpid() and not shared:
            state = "was killed" if not alive(int(str(left["pid"]))) else "ended without releasing it"
            progress(f"{what}: took over the lock of {_describe(left)}, which {state}")
        record = {"pid": os.getpid(), "command": command or " ".join(["boothnet", *sys.argv[1:]]),
                  "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "cwd": os.getcwd()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record).encode(), 0)
        before = os.environ.get(HELD_ENV)
        os.environ[HELD_ENV] = os.pathsep.join(sorted(_held() | {key}))
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(HELD_ENV, None)
            else:
                os.environ[HELD_ENV] = before
            if not shared:  # other holders of a shared lock may still run
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # closing releases the flock


def _record(fd: int) -> dict[str, object]:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@contextlib.contextmanager
def run_locks(build_root: Path, network: str, lab: bool, command: str | None = None,
              progress: Progress = lambda _: None) -> Iterator[None]:
    """The build lock of ``network`` and, for a command that touches the lab, its lab lock."""
    with contextlib.ExitStack() as stack:
        if lab:
            stack.enter_context(hold(lab_lock(network), f"lab {network}", command, progress))
        folder = Layout(build_root, network).root
        stack.enter_context(hold(build_lock(build_root, network), str(folder), command, progress))
        yield
