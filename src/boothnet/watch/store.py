"""Watch's history: one SQLite file under build/<network>/watch/. A round is written in one
transaction (WAL, synchronous FULL), so a kill or a full disk loses at most the round in progress
and a restarted watch continues the same series."""

from __future__ import annotations

import sqlite3
from dataclasses import astuple, fields, replace
from pathlib import Path

from boothnet.watch.model import Check, Event, PathRtt, RoundRecord, WireSample


def _columns(kind: type) -> str:
    return ", ".join(f.name for f in fields(kind))


_ROUND = "round INTEGER REFERENCES rounds(number)"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS rounds (number INTEGER PRIMARY KEY, started REAL, finished REAL, seed INTEGER,
    verdict TEXT, headline TEXT, checks INTEGER);
CREATE TABLE IF NOT EXISTS wires ({_ROUND}, {_columns(WireSample)}, PRIMARY KEY (round, wire));
CREATE TABLE IF NOT EXISTS rtt ({_ROUND}, {_columns(PathRtt)});
CREATE TABLE IF NOT EXISTS failing ({_ROUND}, {_columns(Check)});
CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, {_columns(Event)});
"""


def _insert(db: sqlite3.Connection, table: str, rows: list, round_number: int | None) -> None:
    if not rows:
        return
    names = [f.name for f in fields(rows[0])]
    lead = ["round"] if round_number is not None else []
    marks = ", ".join("?" * (len(names) + len(lead)))
    db.executemany(f"INSERT INTO {table} ({', '.join(lead + names)}) VALUES ({marks})",  # our names
                   [((round_number,) if lead else ()) + astuple(r) for r in rows])


class Store:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        self.db.close()

    def append(self, record: RoundRecord, events: list[Event]) -> None:
        """The round and its events, all or nothing."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("INSERT INTO rounds VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (record.number, record.started, record.finished, record.seed, record.verdict,
                        record.headline, record.checks))
            _insert(db, "wires", record.wires, record.number)
            _insert(db, "rtt", record.rtt, record.number)
            _insert(db, "failing", record.failing, record.number)
            _insert(db, "events", events, None)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def last_round(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(number), 0) FROM rounds").fetchone()[0]

    def rounds(self, last: int) -> list[tuple]:
        """(number, started, finished, seed, verdict, headline, checks) of the last ``last`` rounds, oldest first."""
        return self.db.execute("SELECT * FROM (SELECT * FROM rounds ORDER BY number DESC LIMIT ?) ORDER BY number",
                               (last,)).fetchall()

    def wires(self, since_round: int = 0) -> list[tuple[int, WireSample]]:
        rows = self.db.execute(f"SELECT round, {_columns(WireSample)} FROM wires WHERE round > ? "
                               "ORDER BY round, wire", (since_round,)).fetchall()
        # SQLite keeps a bool as 0 or 1
        return [(r[0], replace(w, up=None if w.up is None else bool(w.up))) for r in rows for w in [WireSample(*r[1:])]]

    def latest_wires(self) -> dict[str, WireSample]:
        return {w.wire: w for _, w in self.wires(self.last_round() - 1)}

    def rtt(self, since_round: int = 0) -> list[tuple[int, PathRtt]]:
        rows = self.db.execute(f"SELECT round, {_columns(PathRtt)} FROM rtt WHERE round > ? "
                               "ORDER BY round", (since_round,)).fetchall()
        return [(r[0], PathRtt(*r[1:])) for r in rows]

    def failing(self, round_number: int) -> list[Check]:
        rows = self.db.execute(f"SELECT {_columns(Check)} FROM failing WHERE round = ?",
                               (round_number,)).fetchall()
        return [Check(*r) for r in rows]

    def events(self, last: int = 200) -> list[Event]:
        rows = self.db.execute(f"SELECT {_columns(Event)} FROM events ORDER BY id DESC LIMIT ?",
                               (last,)).fetchall()
        return [Event(*r) for r in reversed(rows)]

    def since(self, key: str) -> float | None:
        """When the open alarm on ``key`` was raised."""
        row = self.db.execute("SELECT time FROM events WHERE key = ? AND state = 'ALARM' ORDER BY id DESC LIMIT 1",
                              (key,)).fetchone()
        return row[0] if row else None
