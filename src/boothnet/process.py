"""A shared helper below every stage: whether a process we started or recorded still runs."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while `pid` runs; a zombie (or our own child that has exited) counts as gone."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False  # our own child, now reaped
    except ChildProcessError:
        pass  # not our child
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie still answers kill(0); it is dead for our purposes
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
