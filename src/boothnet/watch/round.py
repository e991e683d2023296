"""One light round: validate without throughput (no Batfish, no VPN outage, another isolation
sample each round), every WAN link's and path's RTT and loss, every cable's counters."""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Callable
from functools import partial

from boothnet.deploy.batch import in_parallel
from boothnet.intent.model import Network
from boothnet.progress import Progress
from boothnet.report.summary import isolation_subject, mtu_subject, summarize, throughput_subject
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.perf.schema import RttRow, ThroughputResult
from boothnet.validate.perf.wan import link_rtt_probe, path_rtt_probe, wan_links, wan_paths
from boothnet.validate.plan import path_mtu
from boothnet.validate.profile import WATCH_ROUND
from boothnet.validate.results import Stage, ValidationResults
from boothnet.validate.run import run_throughput_tests
from boothnet.validate.stage import run_validate
from boothnet.validate.verdicts import guarded, timed_stage
from boothnet.watch.alarms import CAUSES, attributed
from boothnet.watch.links import link_checks, sample_cables, with_rates
from boothnet.watch.model import Check, PathRtt, RoundRecord, WireSample

# the stages whose rows carry their own failures (the stage's own FAIL line would repeat them)
ROW_STAGES = {"cabling": "cabling", "endpoints": "endpoints", "isolation": "isolation", "mtu": "mtu", "vpn": "vpn",
              "drift": "drift", "wan rtt": "rtt", "links": "link", "spot check": "throughput"}
CONVERGED_WITHIN_S = 5  # a round says routing is down; it does not wait for it to come back
PINGS = 10
ROTATION = 6  # each host pair, host, VLAN and MTU path is probed every ROTATION rounds


def wan_rtt(net: Network, access: Access) -> list[RttRow]:
    """One small DF ping series per WAN link (its first end's router) and per declared WAN path
    (its source host), all at once."""
    runner, node = access.runner, access.node
    probes: list[Callable[[], RttRow]] = [
        partial(link_rtt_probe, runner, node(router), link, 56, PINGS)
        for link in wan_links(net) if access.has_shell(router := link.a.split(":", 1)[0])]
    probes += [partial(path_rtt_probe, runner, node(path.source.name), path, 56, f"path {path.name}", PINGS)
               for path in wan_paths(net, lambda src, dst: path_mtu(net, src, dst, None))
               if not access.why_not(path.source.name, "ping")]
    return in_parallel(probes, lambda probe: probe())


def checked_this_round(results: ValidationResults) -> set[str]:
    """What a failing check must have been checked by to clear: its section, for the stages that
    ran whole; its own key, for the rotating shares (isolation pairs, MTU probes, a spot check)."""
    ran = {s.name for s in results.stages if s.status in (Status.PASS, Status.FAIL)}
    checked = {"stage", *(section for stage, section in ROW_STAGES.items() if stage in ran)}
    if "link" in checked:
        checked.add("errors")
    checked -= {"isolation", "mtu", "throughput"}
    checked |= {f"isolation: {isolation_subject(row)}" for row in results.isolation if row.verdict != "ERROR"}
    checked |= {f"mtu: {mtu_subject(row)}" for row in results.mtu if row.verdict != "ERROR"}
    checked |= {f"throughput: {throughput_subject(r)}" for r in results.throughput}
    return checked


def _links(net: Network, access: Access, previous: dict[str, WireSample], stages: list[Stage]
           ) -> tuple[list[WireSample], list[Check]]:
    started = time.monotonic()
    wires = with_rates(sample_cables(net, access), previous)
    checks = link_checks(wires)
    stages.append(Stage(name="links", status=Status.of(not checks), duration_s=round(time.monotonic() - started, 1)))
    return wires, checks


def spot_check(net: Network, access: Access, number: int, seconds: int,
               progress: Progress) -> list[ThroughputResult]:
    """One throughput measurement of ``seconds``, the next path, tool and direction each round."""
    short = net.model_copy(update={"throughput": net.throughput.model_copy(update={"duration_s": seconds})})
    return run_throughput_tests(short, access, progress, spot=number)


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
        return hosts if check.section in CAUSES and hosts else found

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
        isolation_seed=number, convergence_timeout_s=60 if first else CONVERGED_WITHIN_S,
        share=lambda key: everything or zlib.crc32(key.encode()) % ROTATION == number % ROTATION)
    results = run_validate(run, profile, access, progress)
    stages = results.stages
    results.rtt = timed_stage(stages, "wan rtt", lambda: wan_rtt(net, access), "no WAN link")
    if spot_s:
        results.throughput = timed_stage(stages, "spot check",
                                         lambda: spot_check(net, access, number, spot_s, progress), "no path")
    unread: tuple[list[WireSample], list[Check]] = ([], [])
    wires, links = guarded(stages, "links", lambda: _links(net, access, previous, stages), unread)
    summary = summarize(results)
    failing = [Check(f"{f.section}: {f.subject}", f.section, f.subject, f.kind, f.message, f.action)
               for f in summary.failures
               if not (f.section == "stage" and f.kind == "FAIL" and f.subject.removeprefix("stage ") in ROW_STAGES)]
    failing = attributed(failing + links, nodes_of(net, wires))
    counted = sum(c["PASS"] + c["FAIL"] for c in summary.counts.values()) + len({w.cable for w in wires})
    rtt = [PathRtt(r.path, r.avg_ms, r.loss_pct, r.declared_ms, r.verdict) for r in results.rtt]
    return RoundRecord(number=number, started=started, finished=time.time(), seed=number,
                       verdict="FAIL" if failing else "PASS", headline="", checks=counted, wires=wires, rtt=rtt,
                       failing=failing, checked=checked_this_round(results))
