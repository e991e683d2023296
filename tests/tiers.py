"""`make test`'s two tiers at once, no rate measured beside the first.

The linters and the offline tier only compute. They run beside the live tier's lab bring-ups,
convergence waits and Batfish parses, holding this machine's measurement turn
(boothnet.locks.measurement_turn) until they end: the live tier's measurements wait for them, as
for another run's, so no rate is measured while they load the cores. Since every measurement
waits for them, they run first in the CPU's queue (nice -10, where allowed: root). The first
tier's output is printed whole when it ends (the live tier's streams), and each tier's time at
the end.

Usage: tiers.py '<first tier's command>' '<live tier's command>'
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import tempfile
import time

from boothnet.locks import HELD_ENV, hold, measure_lock

FIRST = "the linters and the offline tier"
FIRST_NICE = -10  # a weight about 9 times a default process's: most of the cores, not all


def ahead_in_the_cpu_queue() -> None:
    """The first tier's priority, in its process before it starts (an unprivileged user keeps 0)."""
    with contextlib.suppress(PermissionError):
        os.setpriority(os.PRIO_PROCESS, 0, FIRST_NICE)


def say(text: str) -> None:
    print(f"\n[make test] {text}", flush=True)


def main(first_command: str, live_command: str) -> int:
    # the first tier's own lock tests use a folder of their own: they neither wait on nor hold the
    # machine's locks, which this process holds for them and the live tier's labs take
    with tempfile.TemporaryDirectory(prefix="boothnet-locks-") as own_locks, tempfile.TemporaryFile("w+") as log:
        env = {name: value for name, value in os.environ.items() if name != HELD_ENV}
        started = time.monotonic()
        with hold(measure_lock(), "this machine's measurement turn", command=f"make test: {FIRST}", wait=True,
                  progress=say):
            first = subprocess.Popen(shlex.split(first_command), stdout=log, stderr=subprocess.STDOUT,
                                     env=env | {"BOOTHNET_LOCK_DIR": own_locks}, preexec_fn=ahead_in_the_cpu_queue)
            say(f"{FIRST} run beside the live tier, holding this machine's measurement turn until they end")
            live = subprocess.Popen(shlex.split(live_command), env=env)
            try:
                first_code = first.wait()
            except KeyboardInterrupt:  # the terminal's Ctrl-C reached both tiers too
                first.wait()
                live.wait()
                return 130
        first_s = time.monotonic() - started
        log.seek(0)
        say(f"{FIRST}: {'passed' if first_code == 0 else f'FAILED (exit {first_code})'} in {first_s:.0f} s; "
            "their output:")
        print(log.read(), end="", flush=True)
        say("the live tier goes on; the measurement turn is free")
        try:
            live_code = live.wait()
        except KeyboardInterrupt:
            live.wait()
            return 130
        live_s = time.monotonic() - started
    say(f"{FIRST}: {'passed' if first_code == 0 else 'FAILED'} in {first_s:.0f} s; "
        f"the live tier: {'passed' if live_code == 0 else 'FAILED'} in {live_s:.0f} s")
    return first_code or live_code


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
