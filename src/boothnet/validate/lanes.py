"""Measurements that share no link run at the same time: a test loads its links, so two tests
on one link would each see the other's traffic as the network's fault."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def run_disjoint(items: Sequence[Item], loads: Callable[[Item], frozenset[str]], work: Callable[[Item], Result],
                 lanes: int, admit: Callable[[int], bool] | None = None) -> list[Result]:
    """``work(item)`` for every item, at most ``lanes`` at once and never two whose ``loads``
    intersect; the results in the items' order. The first pending item that fits starts next,
    so items sharing a load run in the order given. ``admit(running)``: whether the machine has
    room for one more beside that many (asked before each but the first): a machine the items
    overload runs fewer lanes rather than starve them all."""
    results: dict[int, Result] = {}
    pending = list(range(len(items)))
    running: dict[Future[Result], int] = {}
    with ThreadPoolExecutor(max_workers=max(1, lanes)) as pool:
        while pending or running:
            busy = frozenset().union(*(loads(items[i]) for i in running.values()))
            for i in list(pending):
                if len(running) >= lanes:
                    break
                if running and admit is not None and not admit(len(running)):
                    break
                if busy.isdisjoint(loads(items[i])):
                    pending.remove(i)
                    busy |= loads(items[i])
                    running[pool.submit(work, items[i])] = i
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                results[running.pop(future)] = future.result()
    return [results[i] for i in range(len(items))]
