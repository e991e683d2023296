"""A WAN delay line for the netns lab: two TAP devices and a process that carries every
frame from one to the other after ``delay_ms`` (plus up to ``jitter_ms`` either way, never
reordering), dropping ``loss_pct`` of them at random, in each direction.

Why userspace: these kernels have no netem, fq or etf (htb, tbf, pfifo and cls_bpf only),
so nothing in the kernel can hold a packet for 25 ms. Debian's vde2 ``wirefilter`` was
tried first: it carries no frame above 1500 bytes (the show uplink runs 9100) and fell to
290 Mb/s with thousands of retransmits at 1500. This one reads whole frames from the TAPs
(the kernel segments GSO before a TAP), so its cost is per frame; bench/wan.py measures
its ceiling (docs/benchmarks.md).

Run inside the first end's namespace (``python -m boothnet.lab.delayline``): it creates
the first TAP there under its lab name and the second under a temporary name, which the
lab runner moves into the other namespace and renames. The process lives in a lab
namespace, so ``lab_down`` stops it with every other process there; the TAPs are not
persistent and vanish with it.

With ``--stats`` it keeps a JSON file of its counts current while it runs (at most every 0.1 s;
at once when it has just fallen behind), so a measurement can read how long this process, starved
of a CPU on a busy machine, held frames past their time (``behind_ms``): validate's lab rule.
"""

from __future__ import annotations

import argparse
import collections
import fcntl
import json
import os
import random
import select
import signal
import struct
import sys
import time
from pathlib import Path

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
FRAME_MAX = 65536
BATCH = 64  # frames read from one TAP before the other gets a turn
# epoll's millisecond rounding makes a frame up to 1 ms late by design; past this it is behind
LATE_S = 0.002
STATS_EVERY_S = 0.1


def open_tap(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


class Direction:
    """Frames read from one TAP, waiting to be written to the other."""

    def __init__(self, src: int, dst: int, delay_s: float, jitter_s: float, loss: float, rng: random.Random):
        self.src, self.dst = src, dst
        self.delay_s, self.jitter_s, self.loss, self.rng = delay_s, jitter_s, loss, rng
        self.queue: collections.deque[tuple[float, bytes]] = collections.deque()
        self.last_due = 0.0
        self.counts = {"carried": 0, "lost": 0, "write_errors": 0, "max_queued": 0}

    def take(self, now: float) -> None:
        for _ in range(BATCH):
            try:
                frame = os.read(self.src, FRAME_MAX)
            except BlockingIOError:
                return
            if self.loss and self.rng.random() < self.loss:
                self.counts["lost"] += 1
                continue
            due = now + self.delay_s + (self.rng.uniform(-self.jitter_s, self.jitter_s) if self.jitter_s else 0.0)
            self.last_due = max(due, self.last_due)  # jitter never reorders (like a real path)
            self.queue.append((self.last_due, frame))
        self.counts["max_queued"] = max(self.counts["max_queued"], len(self.queue))

    def give(self, now: float) -> float | None:
        """Write every frame that is due; seconds until the next one (None: empty)."""
        while self.queue and self.queue[0][0] <= now:
            _, frame = self.queue.popleft()
            try:
                os.write(self.dst, frame)
                self.counts["carried"] += 1
            except OSError:  # the far TAP is down or full: the wire drops it
                self.counts["write_errors"] += 1
        return self.queue[0][0] - now if self.queue else None


def overdue_ms(directions: tuple[Direction, ...], last_look: float, now: float) -> float:
    """How long, of the time since ``last_look``, the oldest frame waiting either way was over
    LATE_S past its time: the line was behind (a frame waiting now arrived ``delay_s`` before its
    time, so it was waiting through all of that)."""
    heads = [d.queue[0][0] + LATE_S for d in directions if d.queue]
    if not heads or (late_from := min(heads)) >= now:
        return 0.0
    return (now - max(late_from, last_look)) * 1000


def run(tap_a: str, tap_b: str, delay_ms: float, jitter_ms: float, loss_pct: float, seed: int,
        stats: Path | None) -> None:
    fd_a, fd_b = open_tap(tap_a), open_tap(tap_b)
    rng = random.Random(seed)
    # the delay is one way: each direction holds a frame delay_ms
    half = (delay_ms / 1000.0, jitter_ms / 1000.0, loss_pct / 100.0, rng)
    ab, ba = Direction(fd_a, fd_b, *half), Direction(fd_b, fd_a, *half)
    by_fd = {fd_a: ab, fd_b: ba}
    poll = select.epoll()
    poll.register(fd_a, select.EPOLLIN)
    poll.register(fd_b, select.EPOLLIN)
    stop = False
    behind_ms, last_look, written, written_behind = 0.0, 0.0, 0.0, 0.0

    def finish(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    print(f"delay line {tap_a} <-> {tap_b}: {delay_ms} ms one way, jitter {jitter_ms} ms, loss {loss_pct} %",
          flush=True)
    while not stop:
        now = time.monotonic()
        behind_ms += overdue_ms((ab, ba), last_look, now)
        last_look = now
        waits = [w for w in (ab.give(now), ba.give(now)) if w is not None]
        if stats is not None and (now - written >= STATS_EVERY_S or behind_ms - written_behind >= 10):
            write_stats(stats, ab, ba, behind_ms)
            written, written_behind = now, behind_ms
        try:
            # epoll rounds its timeout up to the next millisecond: frames leave at most 1 ms late
            events = poll.poll(min(waits) if waits else 1.0)
        except InterruptedError:
            continue
        now = time.monotonic()
        for fd, _ in events:
            by_fd[fd].take(now)
    if stats is not None:
        write_stats(stats, ab, ba, behind_ms)


def write_stats(path: Path, ab: Direction, ba: Direction, behind_ms: float) -> None:
    """Replaced whole, so a reader never sees half a file."""
    part = path.with_suffix(".part")
    part.write_text(json.dumps({"a_to_b": ab.counts, "b_to_a": ba.counts, "behind_ms": round(behind_ms, 3)}) + "\n")
    os.replace(part, path)


def read_behind_ms(stats: Path) -> float | None:
    """How long so far the delay line writing ``stats`` held frames over LATE_S past their time;
    None when unread."""
    try:
        return float(json.loads(stats.read_text())["behind_ms"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tap-a", required=True, help="name of the TAP in this namespace")
    p.add_argument("--tap-b", required=True, help="name of the second TAP (moved away by the runner)")
    p.add_argument("--delay-ms", type=float, default=0.0, help="one-way delay")
    p.add_argument("--jitter-ms", type=float, default=0.0)
    p.add_argument("--loss-pct", type=float, default=0.0, help="frames dropped in each direction, percent")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stats", type=Path, help="JSON file with the frame counts, kept current while it runs")
    a = p.parse_args(argv)
    run(a.tap_a, a.tap_b, a.delay_ms, a.jitter_ms, a.loss_pct, a.seed, a.stats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
