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
from dataclasses import dataclass
from typing import Any, TypeVar

from boothnet.deploy.results import DeviceResult
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
