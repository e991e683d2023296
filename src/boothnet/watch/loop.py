"""The watch loop: a round every ``every`` seconds until stopped (SIGINT, SIGTERM) or ``rounds``
are done; each round appended to the history, its alarms printed and passed to the hook, the
page rewritten; the page and the metrics served on 127.0.0.1."""

from __future__ import annotations

import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from boothnet.progress import Progress
from boothnet.run import Run
from boothnet.validate.access import Access
from boothnet.validate.drift import DriftTarget
from boothnet.validate.floor import reach_floor
from boothnet.watch.alarms import announced, call_hook, cause_cleared, changes, line, still_behind
from boothnet.watch.metrics import exposition
from boothnet.watch.model import DEFAULT_EVERY_S, DEFAULT_PORT, Event, RoundRecord
from boothnet.watch.page import write_page
from boothnet.watch.round import run_round
from boothnet.watch.store import Store


@dataclass
class WatchOptions:
    every: float = DEFAULT_EVERY_S
    rounds: int | None = None  # None: until stopped
    on_alarm: str | None = None
    port: int | None = DEFAULT_PORT  # None: no server (the page is still written)
    spot_check_s: int | None = None  # a throughput measurement of this many seconds each round; None: none


def _handler(db: Path, page: Path, network: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # http.server's name
            if self.path in ("/", "/index.html"):
                body, kind = (page.read_bytes() if page.exists() else b"no round yet"), "text/html; charset=utf-8"
            elif self.path == "/metrics":
                store = Store(db)  # a connection of this thread's own
                try:
                    body, kind = exposition(store, network), "text/plain; version=0.0.4; charset=utf-8"
                finally:
                    store.close()
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:  # Prometheus scrapes every few seconds: no log line each
            pass

    return Handler


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line, not socketserver's traceback: a scraper that gave up waiting (Prometheus's
        scrape timeout, while a round kept this machine busy) hung up before the answer."""
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            print(f"watch: a request from {client_address[0]} failed: {type(error).__name__}: {error}",
                  file=sys.stderr)


@contextmanager
def serving(port: int | None, db: Path, page: Path, network: str) -> Iterator[str | None]:
    """The page and /metrics on 127.0.0.1:``port`` for the block (never on every interface)."""
    if port is None:
        yield None
        return
    server = _Server(("127.0.0.1", port), _handler(db, page, network))
    thread = threading.Thread(target=server.serve_forever, name="watch-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def watch(run: Run, access: Access, options: WatchOptions, out: Callable[[str], None],
          progress: Progress) -> int:
    """Rounds until stopped (a round under way is not kept: the signal reached its probes too);
    exit status 1 when the last round kept ended with alarms open."""
    network = run.net.name
    folder = run.layout.watch
    store = Store(folder / "watch.sqlite")
    page = folder / "index.html"
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
    number = store.last_round()
    failing, wires = store.failing(number), store.latest_wires()
    if number:
        out(f"watch: continuing {network}'s series after round {number} ({len(failing)} alarm(s) open)")
    verdict = "PASS"
    try:
        with serving(options.port, store.path, page, network) as url:
            out(f"watch: {network} every {options.every:g} s; history {store.path}; "
                f"page {url or page}{f', metrics {url}metrics' if url else ''}")
            done, recheck = 0, False
            while not stop.is_set():
                record = run_round(run, access, number + 1, wires, progress, first=not done,
                                   spot_s=options.spot_check_s, everything=recheck)
                if stop.is_set():  # Ctrl-C reaches the round's probes too: what they saw is not the network's
                    out(f"watch: round {record.number} interrupted, not kept")
                    break
                events = changes(failing, record, store.since)
                record.verdict = verdict = "FAIL" if record.failing else "PASS"
                record.headline = (f"{len(record.failing)} check(s) failing" if record.failing
                                   else f"all {record.checks} checks passed")
                try:
                    store.append(record, events)
                except sqlite3.Error as exc:  # a full disk: this round is lost, the series goes on
                    out(f"watch: round {record.number} not kept ({exc}); its alarms are raised again next round")
                else:
                    number, failing, wires = record.number, record.failing, {w.wire: w for w in record.wires}
                    recheck = cause_cleared(events) or recheck and still_behind(failing)
                    _announce(events, options, network, out)
                write_page(store, network, page, int(options.every))
                out(_round_line(record))
                done += 1
                if options.rounds is not None and done >= options.rounds:
                    break
                stop.wait(max(0.0, record.started + options.every - time.time()))
            out(f"watch: stopped after round {number}; `boothnet watch -n {network} --report` draws its history")
    finally:
        store.close()
    return 0 if verdict == "PASS" else 1


def _announce(events: list[Event], options: WatchOptions, network: str, out: Callable[[str], None]) -> None:
    """The round's alarms raised and cleared, each a line and a call of the on-alarm hook."""
    for event in announced(events):
        out(line(event))
        if options.on_alarm:
            call_hook(options.on_alarm, event, network, lambda text: out(f"watch: {text}"))


def _round_line(record: RoundRecord) -> str:
    """The round's one line: its verdict, time (and where it went) and busiest cable."""
    busiest = max(record.wires, key=lambda w: max(w.a_to_b_bps or 0, w.b_to_a_bps or 0) / w.speed_bps, default=None)
    hot = "" if busiest is None or busiest.a_to_b_bps is None else \
        f"; busiest {busiest.wire} {max(busiest.a_to_b_bps, busiest.b_to_a_bps or 0) / 1e6:.1f} Mb/s"
    slowest = f" ({record.slowest})" if record.slowest else ""
    return (f"{time.strftime('%H:%M:%S')} round {record.number}: {record.verdict}, {record.headline}, "
            f"{record.finished - record.started:.1f} s{slowest}{hot}")


def watch_floor(inventory: Path, build_root: Path, devices: list[DriftTarget], hosts: Mapping[str, Mapping[str, Any]],
                stand_in_vlan_mode: str | None, options: Mapping[str, Any], out: Callable[[str], None]
                ) -> tuple[int, Path]:
    """The floor as validate-hw reaches it (playbooks/validate_hw.yml with validate_watch), watched.
    It holds no build lock: a week of watching must not stop a deploy or a validate. (its exit
    status, its page)."""
    run = Run(inventory, build_root)
    with reach_floor(run.net, devices, hosts, stand_in_vlan_mode) as access:
        return watch(run, access, WatchOptions(**options), out, lambda _: None), run.layout.watch / "index.html"
