"""Every device of a deploy from one process: one session per device for the whole run (its
cables read first, then its deploy on the same session), devices in parallel threads.

One process instead of one per device saves each device's Python start and NAPALM import (the
controller has few cores), and one session saves each device's second SSH handshake. The steps
and their guarantees are :func:`boothnet.deploy.steps.deploy`'s, device by device.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from boothnet.deploy.results import DeviceResult
from boothnet.deploy.sessions import Cutter, SessionRecord, not_checked
from boothnet.deploy.steps import DeployRun, Job, Target, deploy

T = TypeVar("T")
R = TypeVar("R")


def in_parallel(items: Iterable[T], work: Callable[[T], R]) -> list[R]:
    """``work`` on every item at once (device I/O waits, it does not compute), results in order."""
    todo = list(items)
    if not todo:
        return []
    with ThreadPoolExecutor(max_workers=min(32, len(todo))) as pool:
        return list(pool.map(work, todo))


@dataclass
class Session:
    """A device's open NAPALM session, or why it could not be opened."""

    driver: Any = None
    error: str = ""


@contextmanager
def sessions(targets: Mapping[str, Target]) -> Iterator[dict[str, Session]]:
    """One session per device, opened in parallel, all closed on the way out."""
    for target in targets.values():
        # NAPALM imports a driver on first use: once each, here, not in racing threads
        target.identity()

    def open_one(target: Target) -> Session:
        try:
            return Session(driver=target.open())
        except Exception as exc:  # every driver has its own connect errors
            return Session(error=f"{type(exc).__name__}: {exc}")

    opened = dict(zip(targets, in_parallel(targets.values(), open_one), strict=True))
    try:
        yield opened
    finally:
        for session in opened.values():
            if session.driver is not None:
                with suppress(Exception):  # a session the deploy's revert cut fails to close
                    session.driver.close()


@dataclass
class Deployed:
    run: DeployRun
    record: DeviceResult


def deploy_all(jobs: list[Job], open_sessions: Mapping[str, Session], *, check: bool) -> dict[str, Deployed]:
    """Every job's deploy on its device's open session (a device that could not be opened gets a
    fresh try, which names the error), all at once; the records say which config is in force."""

    def one(job: Job) -> Deployed:
        started = time.monotonic()
        session = open_sessions.get(job.device, Session())
        run = deploy(job, check=check, session=session.driver)
        return Deployed(run, run.result(job.device, check, round(time.monotonic() - started, 2), job.target))

    return dict(zip((j.device for j in jobs), in_parallel(jobs, one), strict=True))


# after these outcomes the new policy is in force (or, in a --check run, would be)
_NEW_POLICY = ("new-confirmed", "unchanged", "check-only")


def end_sessions(done: dict[str, Deployed], jobs: list[Job], open_sessions: Mapping[str, Session],
                 cutter: Cutter | None, why_not: str = "") -> None:
    """After every device of the batch is deployed: on each device that tracks connections and runs
    the new policy (new-confirmed, unchanged; check-only in --check), the open sessions that policy
    denies cut (or listed: ``cutter.mode``), all devices at once; each device's record says which
    (deploy.sessions). An unchanged device too: it may hold a session a changed one denies, and would
    admit it again (the module doc of deploy.sessions), or one a ``list`` run left. *cutter* None: the
    new policy could not be evaluated (*why_not*), and every such device's record says the sessions
    were not checked."""
    todo = [j for j in jobs if done[j.device].record.outcome in _NEW_POLICY and _tracks(j, cutter)]

    def fresh(job: Job) -> SessionRecord:
        assert cutter is not None
        dev = job.target.open()
        try:
            return cutter.run(job.device, dev)
        finally:
            with suppress(Exception):  # closing a session that already died
                dev.close()

    def one(job: Job) -> SessionRecord:
        if cutter is None:
            return not_checked(why_not)
        session = open_sessions.get(job.device, Session())
        try:
            return cutter.run(job.device, session.driver) if session.driver is not None else fresh(job)
        except Exception as exc:  # a session lost meanwhile, in each driver's own words
            try:
                return fresh(job)
            except Exception:  # still unreachable: say the first error
                return not_checked(f"{job.device} could not be reached for it: {type(exc).__name__}: {exc}")

    for job, record in zip(todo, in_parallel(todo, one), strict=True):
        deployed = done[job.device]
        deployed.record = replace(deployed.record, sessions=record.as_dict())


def _tracks(job: Job, cutter: Cutter | None) -> bool:
    """A device whose driver reads conntrack (frr_linux) and whose new ruleset admits established
    sessions ahead of its ACLs (a stateless stand-in's ruleset ends them itself)."""
    if not reads_conntrack(job.target):
        return False
    tracks = getattr(getattr(cutter, "judge", None), "tracks_connections", None)
    return tracks is None or tracks(job.device) is not False


def reads_conntrack(target: Target) -> bool:
    """The target's NAPALM driver can read and cut conntrack entries (``ConntrackDevice``)."""
    from napalm.base import get_network_driver

    cls = get_network_driver(target.driver)
    return all(callable(getattr(cls, name, None)) for name in ("read_conntrack", "delete_conntrack"))
