"""One light round: validate without throughput (no Batfish, no VPN outage, another isolation
sample each round), every WAN link's and path's RTT and loss, every cable's counters."""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Callable

from boothnet.intent.model import Network
from boothnet.progress import Observer, Progress, StageTimes
from boothnet.report.summary import stage_subject, summarize
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks import catalog
from boothnet.validate.profile import WATCH_ROUND
from boothnet.validate.results import Stage, ValidationResults
from boothnet.validate.stage import run_validate
from boothnet.validate.verdicts import guarded
from boothnet.watch.alarms import attributed, causes
from boothnet.watch.links import ERRORS, LINK, LINKS, link_checks, sample_cables, with_rates
from boothnet.watch.model import Check, PathRtt, RoundRecord, WireSample

CONVERGED_WITHIN_S = 5  # a round says routing is down; it does not wait for it to come back
ROTATION = 6  # each host pair, host, VLAN and MTU path is probed every ROTATION rounds


def checked_this_round(results: ValidationResults) -> set[str]:
    """What a failing check must have been checked by to clear: its section, for the checks that
    ran whole; its own key, for those a round takes a share of (isolation pairs, MTU probes, a
    spot check). A row that could not be made (ERROR) checked nothing."""
    stages_run = [s for s in results.stages if s.status in (Status.PASS, Status.FAIL)]
    ran = {s.name for s in stages_run}
    # a stage's own alarm clears only on a round that ran it (not one whose share left it NOT RUN)
    checked = {f"stage: {stage_subject(s)}" for s in stages_run}
    checked |= {check.section for check in catalog() if check.has_rows and not check.rotates and check.name in ran}
    checked |= {f"{check.section}: {check.subject(row)}" for check in catalog() if check.rotates
                for row in check.rows(results) if check.verdict(row) != Status.ERROR}
    if LINKS in ran:
        checked |= {LINK, ERRORS}
    return checked


def _links(net: Network, access: Access, previous: dict[str, WireSample], stages: list[Stage]
           ) -> tuple[list[WireSample], list[Check]]:
    started = time.monotonic()
    wires = with_rates(sample_cables(net, access), previous)
    checks = link_checks(wires)
    stages.append(Stage(name=LINKS, status=Status.of(not checks), duration_s=round(time.monotonic() - started, 1)))
    return wires, checks


def nodes_of(net: Network, wires: list[WireSample]) -> Callable[[Check], set[str]]:
    """The devices and hosts a check's subject names (a cable's, through its label). A cause
    that names a host is that host's alone: a host's cable out is not its router's fault."""
    hosts_of_net = set(net.endpoints)
    names = set(net.devices) | hosts_of_net
    cable_text = {w.cable: w.text for w in wires}

    def nodes(check: Check) -> set[str]:
        text = check.subject
        if label := re.fullmatch(r"cable (\S+)", text):
            text += " " + cable_text.get(label[1], "")
        found = names & set(re.split(r"[^\w.-]+", text))
        hosts = found & hosts_of_net
        return hosts if check.section in causes() and hosts else found

    return nodes


def run_round(run: Run, access: Access, number: int, previous: dict[str, WireSample],
              progress: Progress, first: bool = False, spot_s: int | None = None,
              everything: bool = False) -> RoundRecord:
    """``first``: the watch's first round waits for routing as validate does (a lab just started).
    ``spot_s``: a throughput spot check of that many seconds (it loads the path it measures).
    ``everything``: every host, pair, VLAN and path, not this round's share (a cause cleared)."""
    started = time.time()
    net = run.net
    profile = WATCH_ROUND.edit(
        isolation_seed=number, convergence_timeout_s=60 if first else CONVERGED_WITHIN_S, spot_s=spot_s,
        spot_index=number, share=lambda key: everything or zlib.crc32(key.encode()) % ROTATION == number % ROTATION)
    times = StageTimes()
    observer = Observer(progress, times)
    results = run_validate(run, profile, access, observer)
    stages = results.stages
    unread: tuple[list[WireSample], list[Check]] = ([], [])
    wires, links = guarded(stages, LINKS, lambda: _links(net, access, previous, stages), unread)
    observer.stage(stages[-1].name, stages[-1].status, stages[-1].duration_s, stages[-1].reason)
    summary = summarize(results)
    said_by_rows = {check.name for check in catalog() if check.has_rows}  # a stage's FAIL would repeat its rows
    failing = [Check(f"{f.section}: {f.subject}", f.section, f.subject, f.kind, f.message, f.action)
               for f in summary.failures
               if not (f.section == "stage" and f.kind == "FAIL" and f.subject.removeprefix("stage ") in said_by_rows)]
    failing = attributed(failing + links, nodes_of(net, wires))
    counted = sum(c["PASS"] + c["FAIL"] for c in summary.counts.values()) + len({w.cable for w in wires})
    rtt = [PathRtt(r.path, r.avg_ms, r.loss_pct, r.declared_ms, r.verdict) for r in results.rtt]
    return RoundRecord(number=number, started=started, finished=time.time(), seed=number,
                       verdict="FAIL" if failing else "PASS", headline="", checks=counted, wires=wires, rtt=rtt,
                       failing=failing, checked=checked_this_round(results), slowest=times.slowest())
