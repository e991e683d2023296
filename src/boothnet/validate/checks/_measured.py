"""What the checks whose rows are measurements (``ThroughputResult``) share: one row's subject,
message, action, key, history figure and suspect cables, and the LAN tests' two-way table row."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import ClassVar

from boothnet.status import Status
from boothnet.validate.checks.base import LiveCheck, Moved, Suspect
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.results import ValidationResults

NOISE_SIGMAS = 3  # a throughput row moved when the change exceeds 3 combined interval deviations
# ... and 5 % of its limit: a test's few one-second intervals (2-3 in the lab) can be steady
# while two clean runs differ more (CI: 987.9 then 953.4 Mb/s, -3.5 %, both passing, against a
# spread of 23 Mb/s); a fault worth reporting moves a row far more (the planted 600 Mb/s: -40 %)
NOISE_FLOOR = 0.05


def throughput_subject(r: ThroughputResult) -> str:
    name = r.path or f"{r.source} -> {r.destination}"
    test = "" if r.kind == "path" else f"{r.kind}{f' -w {r.window}' if r.window else ''}, "
    way = f"reverse, {r.source} -> {r.destination}, " if r.reverse else ""
    return f"path {name} ({way}{test}{r.tool}, {r.streams} stream{'s' if r.streams != 1 else ''})"


def throughput_message(r: ThroughputResult) -> str:
    if r.explanation:
        return r.explanation
    if not r.succeeded:
        return f"{r.tool} failed: {r.error}"
    if r.expected is None:
        return f"{r.throughput / 1e6:.1f} Mb/s measured, no expectation"
    return (f"{r.throughput / 1e6:.1f} Mb/s measured, {r.throughput / r.expected:.0%} of "
            f"expected {r.expected / 1e6:.1f} Mb/s (needs >= {r.pass_ratio or 0:.0%})")


def why_cell(r: ThroughputResult) -> str:
    """A UDP row's "why": its verdict's sentence, or its error, and a run measured again says so."""
    return "; ".join(filter(None, [r.explanation or r.error, r.retried]))


def throughput_key(r: ThroughputResult) -> str:
    window = f" -w {r.window}" if r.window else ""
    streams = f"{r.streams} stream{'s' * (r.streams != 1)}"
    way = "reverse, " if r.reverse else ""
    return f"throughput {r.path or r.source + ' -> ' + r.destination} ({way}{r.kind}{window}, {r.tool}, {streams})"


def both_ways(results: list[ThroughputResult]) -> list[tuple[ThroughputResult | None, ThroughputResult | None]]:
    """The LAN tests as (forward, reverse) pairs, in the order measured."""
    pairs: dict[tuple[str, str, int], list[ThroughputResult | None]] = {}
    for r in results:
        pairs.setdefault((r.path, r.tool, r.streams), [None, None])[r.reverse] = r
    return [(forward, reverse) for forward, reverse in pairs.values()]


def mbps(bps: float | None) -> str:
    return "-" if bps is None else f"{bps / 1e6:.1f}"


def _spread(r: ThroughputResult) -> float:
    samples = [i.throughput for i in r.intervals]
    return statistics.stdev(samples) if len(samples) > 1 else 0.0


class MeasuredCheck(LiveCheck):
    """A check over measurements: its ``kinds`` of the results' throughput rows."""

    section = field = "throughput"
    row_type = ThroughputResult
    kinds: ClassVar[frozenset[str]]
    measures = True
    rotates = True
    alarm = "effect"
    alarm_rank = 100

    def owns(self, row: ThroughputResult) -> bool:
        return row.kind in self.kinds

    def verdict(self, row: ThroughputResult) -> Status:
        return row.status

    def subject(self, row: ThroughputResult) -> str:
        return throughput_subject(row)

    def message(self, row: ThroughputResult) -> str:
        return throughput_message(row)

    def action(self, row: ThroughputResult) -> str:
        if row.expected and row.succeeded and row.throughput > row.expected:
            return "shape the path's links to their speed (or correct the speed in the intent)"
        if not row.succeeded:
            return f"make {row.tool} run between {row.source} and {row.destination} (is its port open?)"
        return "find the slow hop: a link below its speed, drops (retransmits), or a window too small for the RTT"

    def key(self, row: ThroughputResult) -> str:
        return throughput_key(row)

    def moved(self, before: ThroughputResult, after: ThroughputResult) -> Moved | None:
        if not (before.succeeded and after.succeeded):
            return None
        limit = after.expected or before.expected or max(before.throughput, after.throughput)
        noise = max(NOISE_SIGMAS * (_spread(before) ** 2 + _spread(after) ** 2) ** 0.5, NOISE_FLOOR * limit)
        if abs(after.throughput - before.throughput) <= noise:
            return None
        against = f"expected {limit / 1e6:.1f} Mb/s" + (f" ({after.limit})" if after.limit else "")
        return Moved(subject=throughput_key(after).removeprefix("throughput "), before=before.throughput / 1e6,
                     after=after.throughput / 1e6, unit="Mb/s", noise=noise / 1e6, limit=against)

    def suspect(self, row: ThroughputResult) -> Suspect | None:
        if row.status != Status.FAIL:
            return None
        return Suspect(f"{throughput_subject(row)}: {throughput_message(row)}", source=row.source,
                       destination=row.destination)


class PairedCheck(MeasuredCheck):
    """LAN tests, each measured both ways: one table row holds both directions."""

    header = ("verdict", "path", "tool", "streams", "-> Mb/s (as named)", "<- Mb/s (reverse)", "expected Mb/s",
              "ratio -> / <-", "retransmits -> / <-", "RTT ms", "MSS", "CPU % sender/receiver -> / <-",
              "window advice / error")

    def table(self, results: ValidationResults) -> list[list[str]]:
        return [pair_row(forward, reverse) for forward, reverse in both_ways(self.rows(results))]


def pair_row(forward: ThroughputResult | None, reverse: ThroughputResult | None) -> list[str]:
    """One LAN test's two directions on one row."""
    pair = [r for r in (forward, reverse) if r is not None]
    first = pair[0]

    def each(figure: Callable[[ThroughputResult], str]) -> str:
        return " / ".join("-" if r is None else figure(r) for r in (forward, reverse))

    def why(r: ThroughputResult) -> str:
        return (r.error or "") if not r.succeeded else r.explanation or r.advice or ""

    notes = [f"{'<-' if r.reverse else '->'} {text}" for r in pair
             if (r.verdict != "PASS" or r.link_loads) and (text := why(r))]
    return [Status.of_rows(r.status for r in pair), first.path, first.tool, str(first.streams),
            mbps(forward.throughput if forward and forward.succeeded else None),
            mbps(reverse.throughput if reverse and reverse.succeeded else None), mbps(first.expected),
            each(lambda r: f"{r.ratio:.3f}" if r.ratio and r.succeeded else "-"),
            each(lambda r: "-" if r.retransmits is None else str(r.retransmits)),
            "-" if first.rtt_ms is None else f"{first.rtt_ms:.3f}", "-" if first.mss is None else str(first.mss),
            each(lambda r: "/".join("-" if pct is None else f"{pct:.0f}"
                                    for pct in (r.sender_cpu_pct, r.receiver_cpu_pct))),
            "; ".join(notes) or why(first)]
