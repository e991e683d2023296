"""The history as the page and the exporter read it: per cable, per round, what it carried each
way in bits per second against its speed, and its errors; per WAN path its RTT and loss."""

from __future__ import annotations

from dataclasses import dataclass, field

from boothnet.watch.model import PathRtt, WireSample
from boothnet.watch.store import Store


@dataclass
class CableSeries:
    cable: str
    text: str
    speed_bps: float
    rounds: list[int] = field(default_factory=list)
    a_to_b: list[float | None] = field(default_factory=list)  # b/s, a cable's wires summed
    b_to_a: list[float | None] = field(default_factory=list)
    errors: int = 0  # counted over the rounds shown
    discards: int = 0
    up: bool | None = None  # now
    octets: tuple[int | None, int | None] = (None, None)  # a -> b, b -> a: the counters now

    @property
    def ends(self) -> tuple[str, str]:
        a, _, b = self.text.partition(" ")[2].partition(" <-> ")
        return a, b

    def stats(self, direction: str) -> tuple[float, float, float | None]:
        """(max, average, current) b/s of ``direction`` ("a_to_b", "b_to_a") over the rounds shown."""
        values = [v for v in getattr(self, direction) if v is not None]
        if not values:
            return 0.0, 0.0, None
        return max(values), sum(values) / len(values), getattr(self, direction)[-1]


def _sum(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def cable_series(store: Store, rounds: int) -> list[CableSeries]:
    first = max(0, store.last_round() - rounds)
    by_round: dict[tuple[str, int], list[WireSample]] = {}
    for number, w in store.wires(first):
        by_round.setdefault((w.cable, number), []).append(w)
    series: dict[str, CableSeries] = {}
    for (cable, number), wires in by_round.items():
        s = series.setdefault(cable, CableSeries(cable, wires[0].text, wires[0].speed_bps))
        s.rounds.append(number)
        s.a_to_b.append(_sum([w.a_to_b_bps for w in wires]))
        s.b_to_a.append(_sum([w.b_to_a_bps for w in wires]))
        s.errors += sum(w.new_errors or 0 for w in wires)
        s.discards += sum(w.new_discards or 0 for w in wires)
        states = [w.up for w in wires if w.up is not None]
        s.up = all(states) if states else None
        s.octets = (_sum([w.a_to_b_octets for w in wires]), _sum([w.b_to_a_octets for w in wires]))  # type: ignore[assignment]  # _sum: None when a side was not read
    return sorted(series.values(), key=lambda s: s.cable)


def rtt_series(store: Store, rounds: int) -> dict[str, list[tuple[int, PathRtt]]]:
    out: dict[str, list[tuple[int, PathRtt]]] = {}
    for number, row in store.rtt(max(0, store.last_round() - rounds)):
        out.setdefault(row.path, []).append((number, row))
    return out
