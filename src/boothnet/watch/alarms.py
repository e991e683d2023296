"""Alarms: a check that fails now and passed before raises one line; once it passes again, one
clear line. A check still failing says nothing more, so a long fault does not flood the output.
A check this round did not make (another isolation sample, a stage that could not run) stays as
it was."""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import cache

from boothnet.validate.checks import catalog, sections
from boothnet.watch.links import ERRORS, LINK
from boothnet.watch.model import Check, Event, RoundRecord


def changes(previous: list[Check], record: RoundRecord, since: Callable[[str], float | None]) -> list[Event]:
    """The alarms and clears between the previous round's failing checks and ``record``'s; a
    check not made this round is carried into ``record.failing`` as still open."""
    now = record.finished
    before = {c.key: c for c in previous}
    current = {c.key for c in record.failing}
    events = [Event(now, record.number, "ALARM", c.key, c.section, c.subject, c.message, c.action, now)
              for c in record.failing if c.key not in before]
    for key, c in before.items():
        if key in current:
            continue
        if c.section in record.checked or key in record.checked:
            events.append(Event(now, record.number, "CLEAR", key, c.section, c.subject, c.message, c.action,
                                since(key) or now))
        else:
            record.failing.append(c)
    return events


# A check of a dependent section failing beside an open cause on one of its nodes is that cause's
# effect: an MTU probe through a pulled cable is no MTU black hole (each check says which it is).
# Asked of the catalog on first use, not at import: the catalog imports every check module.
@cache
def causes() -> tuple[str, ...]:
    """The sections whose failure can be the cause of others' (a link first)."""
    return (LINK, *dict.fromkeys(c.section for c in catalog() if c.alarm == "cause"))


@cache
def dependents() -> tuple[str, ...]:
    """The sections whose failure may be the effect of a cause's."""
    return tuple(dict.fromkeys(c.section for c in catalog() if c.alarm == "effect"))


def attributed(failing: list[Check], nodes_of: Callable[[Check], set[str]]) -> list[Check]:
    """``failing`` with each dependent check behind an open cause said as that cause's effect."""
    open_causes = [(c, nodes_of(c)) for c in failing if c.section in causes()]
    out = []
    for c in failing:
        nodes = nodes_of(c) if open_causes and c.section in dependents() else set()
        cause = next((k for k, on in open_causes if nodes & on), None)
        out.append(c if cause is None else replace(
            c, message=f"behind the open alarm {cause.key} ({c.message})",
            action=f"clear {cause.key} first; this check is probed again the round after it clears"))
    return out


def cause_cleared(events: Iterable[Event]) -> bool:
    """A cause cleared: the checks behind it were not probed since, so the next round probes all."""
    return any(e.state == "CLEAR" and e.section in causes() for e in events)


# a round whose share holds no permitted ping does not run the convergence stage: its alarm
# would stay open for up to ROTATION rounds after routing came back
CONVERGENCE = "stage convergence"


def still_behind(failing: Iterable[Check]) -> bool:
    """After a cause cleared, rounds probe all while a check behind it still fails: one of a
    dependent section, or routing's convergence (a cable plugged back in, OSPF's SPF backoff may
    take longer than a round's wait: ci121)."""
    return any(c.section in dependents() or c.subject == CONVERGENCE for c in failing)


SHOWN_PER_ROUND = 5  # alarms (and clears) printed one by one each round; the rest in one line


@cache
def priority() -> tuple[str, ...]:
    """Sections, the most telling first: one unplugged cable fails its link, its LLDP, drift, then
    the isolation pairs and MTU probes behind it; the cause first (each check's alarm_rank)."""
    ranks = {LINK: 0, ERRORS: 10, "stage": 30} | {section: check.alarm_rank for section, check in sections().items()}
    return tuple(sorted(ranks, key=lambda section: ranks[section]))


def announced(events: list[Event]) -> list[Event]:
    """What a round says: per state, its SHOWN_PER_ROUND most telling events, then one event
    counting the rest by section, so that one fault does not flood the crew (or its pager)."""
    out = []
    for state in ("ALARM", "CLEAR"):
        order = priority()
        these = sorted((e for e in events if e.state == state),
                       key=lambda e: order.index(e.section) if e.section in order else len(order))
        out += these[:SHOWN_PER_ROUND]
        if rest := these[SHOWN_PER_ROUND:]:
            sections = Counter(e.section for e in rest)
            first = rest[0]
            out.append(Event(first.time, first.round, first.state, "more", "more", f"{len(rest)} more checks",
                             ", ".join(f"{section} {n}" for section, n in sections.most_common()),
                             "see the open alarms on the page", first.since))
    return out


def _clock(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))


def _span(seconds: float) -> str:
    minutes, s = divmod(int(seconds), 60)
    hours, m = divmod(minutes, 60)
    return f"{hours} h {m} min" if hours else f"{m} min {s} s" if m else f"{s} s"


def line(event: Event) -> str:
    """``2026-11-25 05:01:02 ALARM link: cable C01 r1 eth3 <-> r2 eth3: link down at r1 eth3. Do: ...``"""
    head = f"{_clock(event.time)} {event.state} {event.section}: {event.subject}"
    if event.key == "more":
        return f"{head} {'fail' if event.state == 'ALARM' else 'pass again'} ({event.message}): {event.action}"
    if event.state == "ALARM":
        return f"{head}: {event.message}. Do: {event.action}"
    return f"{head}: passes again, {_span(event.time - event.since)} after its alarm at {_clock(event.since)}"


def call_hook(command: str, event: Event, network: str, warn: Callable[[str], None]) -> None:
    """``command`` (a shell line) with the event as JSON on its stdin; a hook that fails is said, never fatal."""
    try:
        done = subprocess.run(["sh", "-c", command], input=json.dumps(event.as_json(network)) + "\n", text=True,
                              capture_output=True, timeout=30, check=False)
    except subprocess.TimeoutExpired:
        warn(f"--on-alarm {command!r}: still running after 30 s, stopped")
        return
    if done.returncode:
        warn(f"--on-alarm {command!r}: exit {done.returncode}: {(done.stderr or done.stdout).strip()[:200]}")
