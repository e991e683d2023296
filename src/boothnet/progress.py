"""Progress: every long step says what it is doing through one sink, and a run passes one
``Observer`` (as nornir's processors) that every line and every stage's end go through, to each of
its sinks: the terminal, a watch round's record of where its time went."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None]  # a line for the user, e.g. "[throughput] lab: h3 -> h4 iperf3: ..."


def stage_line(name: str, status: str, seconds: float | None, why: str | None = None) -> str:
    """``[stage] isolation PASS in 3.2 s``, and why when it did not pass."""
    took = f" in {seconds:g} s" if seconds is not None else ""
    return f"[stage] {name} {status}{took}" + (f": {why}" if why and status != "PASS" else "")


class Observer:
    """One run's progress, given once: a line goes to every sink; a stage's end goes to each sink
    that has a ``stage`` method as it is, and to the others as its line."""

    def __init__(self, *sinks: Progress) -> None:
        self.sinks = sinks

    def __call__(self, line: str) -> None:
        for sink in self.sinks:
            sink(line)

    def stage(self, name: str, status: str, seconds: float | None, why: str | None = None) -> None:
        for sink in self.sinks:
            hear = getattr(sink, "stage", None)
            if callable(hear):
                hear(name, status, seconds, why)
            else:
                sink(stage_line(name, status, seconds, why))


def observed(progress: Progress) -> Observer:
    """``progress`` as an observer (a plain function becomes its one sink)."""
    return progress if isinstance(progress, Observer) else Observer(progress)


class StageTimes:
    """A sink that keeps each stage's time, and hears no lines."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __call__(self, line: str) -> None:
        pass

    def stage(self, name: str, status: str, seconds: float | None, why: str | None = None) -> None:
        if seconds is not None:
            self.seconds[name] = seconds

    def slowest(self, count: int = 3) -> str:
        """``isolation 5.1 s, mtu 2.0 s, ospf 0.8 s``: where the time went."""
        ranked = sorted(self.seconds.items(), key=lambda item: -item[1])[:count]
        return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in ranked)
