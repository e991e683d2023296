"""Ask again until the answer is the one wanted or the time is up: one loop for every wait of a
run (OSPF Full after a commit, LLDP settled, a server listening, routing converged)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def poll(
    probe: Callable[[], T],
    done: Callable[[T], bool],
    timeout: float,
    interval: float = 1.0,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    waiting: Callable[[T], None] | None = None,
) -> T:
    """*probe*'s last answer: the first that is *done*, or the one when *timeout* ran out.
    *waiting* hears every answer that is not done while there is time to ask again; *clock* and
    *sleep* are the caller's (a test's simulated clock)."""
    deadline = clock() + timeout
    while True:
        answer = probe()
        if done(answer) or clock() >= deadline:
            return answer
        if waiting is not None:
            waiting(answer)
        sleep(interval)
