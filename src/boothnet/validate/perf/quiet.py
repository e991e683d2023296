"""Measurements this machine's load decided, told apart and taken again at a quieter moment.

The lab forwards in software on the cores that also run the tools: a test measured while those
cores were saturated measured the machine. One lane closes each time a test comes back decided
by the load, and one opens again after as many clean tests as lanes (``LaneControl``: the cores'
share alone cannot say it, since eight healthy lanes keep two cores busy too); a test the load
still decided (slower than its limit while the cores were saturated, or said CPU-bound) is
measured again alone, a bounded number of times, before its row says CPU-bound. A fault the
network holds (a shaped cable, a lossy port) fails again alone, so it keeps its verdict; a
starved run does not come back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from boothnet.poll import poll
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.perf.schema import CPU_SATURATED, ThroughputResult, busy_share, machine_cpu

Job = TypeVar("Job")

SAMPLE_S = 0.5  # the load is the cores' busy share over at least this long
QUIET_WAIT_S = 3.0  # a test measured again waits this long at most for the cores to have room
ROUNDS = 2  # times a test the load decided is measured again
MOST_PER_ROUND = 24  # tests measured again per round, failures first (3-5 s each)
# ... and all of it in at most this share of the time the lanes took (30 s at least): a machine
# busy with something else for the whole run is measured as it is, and its rows say so
BUDGET_SHARE, BUDGET_MIN_S = 0.5, 30.0
# a test that passes short of this share of its limit while the cores were saturated may be the
# load's too: two clean runs then differ beyond their noise (an idle lab measures >= 0.997)
FULL_RATE = 0.97


class MachineLoad:
    """This machine's cores' busy share over the last SAMPLE_S or more, read as asked."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._since, self._at = machine_cpu(), time.monotonic()
        self._busy: float | None = None

    def busy(self) -> float:
        with self._lock:
            if self._busy is None:  # the first answer waits for a whole sample
                time.sleep(max(0.0, SAMPLE_S - (time.monotonic() - self._at)))
            if time.monotonic() - self._at >= SAMPLE_S:
                now = machine_cpu()
                self._busy, self._since, self._at = busy_share(self._since, now), now, time.monotonic()
            return self._busy or 0.0


class LaneControl:
    """How many lanes this machine carries now: one fewer each time a test comes back decided by
    the load (the lanes that starved together come back together, so a burst closes several),
    one more after as many clean tests in a row as there are lanes."""

    def __init__(self, most: int) -> None:
        self._lock = threading.Lock()
        self.most = self.lanes = most
        self._clean = 0

    def done(self, result: ThroughputResult) -> ThroughputResult:
        with self._lock:
            if load_decided(result):
                self.lanes, self._clean = max(1, self.lanes - 1), 0
            else:
                self._clean += 1
                if self._clean >= self.lanes:
                    self.lanes, self._clean = min(self.most, self.lanes + 1), 0
        return result

    def has_room(self, running: int) -> bool:
        return running < self.lanes


def load_decided(result: ThroughputResult) -> bool:
    """Whether this machine's load, not the network, may have decided ``result``: said CPU-bound
    or at the lab's ceiling; or slower than its limit (failing, or passing short of FULL_RATE)
    while the cores were saturated. Faster than the link is never the load's."""
    if not result.succeeded or "too_fast" in result.causes:
        return False
    if {"cpu_bound", "lab_ceiling"} & set(result.causes):
        return True
    saturated = (result.machine_busy or 0) >= CPU_SATURATED
    return saturated and (result.verdict == Status.FAIL or (result.ratio or 1) < FULL_RATE)


def measure_again(jobs: list[Job], results: list[ThroughputResult], measure: Callable[[Job], ThroughputResult],
                  load: MachineLoad, progress: Progress, lanes_took_s: float) -> list[ThroughputResult]:
    """``results`` (one per job), with each the load decided measured again alone, up to ROUNDS
    times, at most MOST_PER_ROUND per round (failures first), within the time budget (BUDGET_SHARE
    of ``lanes_took_s``); a row measured again keeps its last run and says what the first was."""
    results = list(results)
    first = list(results)
    deadline = time.monotonic() + max(BUDGET_MIN_S, BUDGET_SHARE * lanes_took_s)
    for round_ in range(1, ROUNDS + 1):
        again = sorted((i for i, r in enumerate(results) if load_decided(r)),
                       key=lambda i: results[i].verdict != Status.FAIL)[:MOST_PER_ROUND]
        if not again:
            break
        progress(f"[throughput] {len(again)} test(s) this machine's load decided: measured again alone "
                 f"(round {round_} of {ROUNDS})")
        for done, i in enumerate(again):
            if time.monotonic() > deadline:
                progress(f"[throughput] out of time to measure again: {len(again) - done} test(s) keep their run")
                return results
            quiet_moment(load)
            results[i] = measure(jobs[i]).model_copy(update={"retried": _first_run(first[i], round_)})
    return results


def until_settled(measure: Callable[[], ThroughputResult], first: ThroughputResult,
                  load: MachineLoad) -> ThroughputResult:
    """``first``, or, where the load decided it, measured again at a quieter moment, up to ROUNDS
    times (a test that runs alone: a WAN stream)."""
    result = first
    for tries in range(1, ROUNDS + 1):
        if not load_decided(result):
            break
        quiet_moment(load)
        result = measure().model_copy(update={"retried": _first_run(first, tries)})
    return result


def quiet_moment(load: MachineLoad) -> None:
    """Until the cores have room, QUIET_WAIT_S at most (a machine busy with something else for
    longer is measured as it is, and said so)."""
    poll(load.busy, lambda busy: busy < CPU_SATURATED, QUIET_WAIT_S)


def _first_run(result: ThroughputResult, tries: int) -> str:
    busy = f"while this machine's cores were {result.machine_busy:.0%} busy" if result.machine_busy is not None else ""
    said = result.explanation or str(result.verdict)
    return (f"measured again alone ({tries} time{'s' * (tries != 1)}): its first run, "
            f"{result.throughput / 1e6:.1f} Mb/s, ran {busy or 'on a busy machine'} ({said})")


def proven_by_another_tool(results: list[ThroughputResult]) -> list[ThroughputResult]:
    """A path one tool proved at its rate is proven: another tool's CPU-bound row on it is that
    tool's ceiling on this machine, no verdict on the network, and not an error (SKIPPED, said)."""
    passed = {(r.path, r.reverse, r.family): r for r in results if r.kind == "path" and r.verdict == Status.PASS}

    def settled(r: ThroughputResult) -> ThroughputResult:
        proof = passed.get((r.path, r.reverse, r.family))
        if proof is None or r.kind != "path" or r.verdict != Status.ERROR or "cpu_bound" not in r.causes:
            return r
        return r.model_copy(update={"verdict": Status.SKIPPED, "explanation": (
            f"{r.explanation}; the path is proven by {proof.tool} at {proof.throughput / 1e6:.1f} Mb/s (PASS): "
            f"{r.tool}'s ceiling on this machine, not the network's")})

    return [settled(r) for r in results]
