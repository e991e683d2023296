"""The isolation matrix in the lab: a responder on every destination host answers every probed
TCP and UDP port, one prober per source host sends every probe at once, and each row's verdict
comes from what reached the responder, never from silence alone.

A refusal is "reached": the lab's firewalls drop and never reject, so a RST or an ICMP port
unreachable means the probe got through. A UDP datagram counts as delivered when the responder
echoed it or logged it. A responder that did not start, or a port it could not bind, makes the
row an ERROR, not a verdict.

A probe the responder saw whose reply never came back is a leak on a deny row (the request got
through) and a failure on a permit row (the service does not work): that row fails naming where
the reply died, where the offline evaluator can tell (boothnet.validate.replies).
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.resources import files

from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.progress import Progress
from boothnet.validate.access import Access
from boothnet.validate.perf.runner import (
    Background,
    Runner,
    json_list,
    pidfile_for,
    scratch_name,
    start_background,
    stop_background,
)
from boothnet.validate.plan import Flow
from boothnet.validate.replies import ReplyPaths
from boothnet.validate.results import IsolationRow
from boothnet.verify.batfish.traces import FlowAnswer

RESPONDER = (files("boothnet.validate") / "scripts" / "responder.py").read_text()
PROBER = (files("boothnet.validate") / "scripts" / "prober.py").read_text()
# the longest wait for a drop: a dropped SYN is sent twice (at 0 and 1 s), a datagram three times;
# the prober waits less once its answers, and its gateway's, show its paths answer fast
PROBE_TIMEOUT_S = 3.0
WORKERS = 8  # probers at once: each holds hundreds of sockets and mostly waits
REACHED = {"open": "open", "refused": "refused by the host (reached it)", "echo": "echoed by the responder",
           "answered": "answered", "reply": "echo reply"}
NOT_REACHED = {"timeout": "no answer (dropped)", "unreachable": "unreachable"}
# the responder saw the probe, its reply never reached the prober: a leak for a deny row, a service
# that does not work for a permit row
SEEN = "seen by the responder, its reply lost"


@dataclass
class Responder:
    host: str
    ns: str
    log: str
    handle: Background | None = None
    error: str | None = None  # the responder never became ready
    unbound: dict[tuple[str, int, int], str] = field(default_factory=dict)  # (proto, port, IP version) -> why
    seen: set[tuple[str, int, str]] = field(default_factory=set)  # (proto, port, peer address)


@dataclass
class Towards:
    """What a destination host's responder listens on: its addresses probed (either family), ports."""

    addresses: set[str] = field(default_factory=set)
    tcp: set[int] = field(default_factory=set)
    udp: set[int] = field(default_factory=set)


def _ports_towards(flows: list[Flow]) -> dict[str, Towards]:
    towards: dict[str, Towards] = {}
    for flow in flows:
        if flow.proto in ("tcp", "udp"):
            to = towards.setdefault(flow.dst.name, Towards())
            getattr(to, flow.proto).update(flow.ports())
            to.addresses.add(flow.dst_address)
    return towards


def _read_log(runner: Runner, responder: Responder) -> list[str]:
    return runner(responder.ns, ["cat", responder.log], 10).stdout.splitlines()


def start_responder(access: Access, host: Endpoint, ports: Towards) -> Responder:
    runner, ns = access.runner, access.node(host.name)
    responder = Responder(host.name, ns, f"/tmp/boothnet-{scratch_name(runner, ns)}-responder.log")
    if why := access.why_not(host.name, "python3", "setsid"):
        responder.error = f"no responder on {host.name}: {why}"
        return responder
    pidfile = pidfile_for(runner, ns, "responder", 0)
    # ours from a run that was killed before it could stop it still holds the ports: stop it by its pid
    stop_background(runner, Background(ns, (), pidfile))
    runner(ns, ["rm", "-f", responder.log], 10)
    argv = ["python3", "-c", RESPONDER, ",".join(sorted(ports.addresses)),
            ",".join(map(str, sorted(ports.tcp))), ",".join(map(str, sorted(ports.udp))), responder.log]
    try:
        responder.handle = start_background(runner, ns, argv, pidfile, limit_s=900)
    except RuntimeError as exc:
        responder.error = str(exc)
        return responder
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = _read_log(runner, responder)
        if lines and lines[0].startswith("ready"):
            for word in lines[0].split()[1:]:
                what, _, why = word.partition(":")
                proto, port, version = what.split("/")
                responder.unbound[(proto, int(port), int(version))] = why.replace("_", " ")
            return responder
        time.sleep(0.1)
    responder.error = f"the responder on {host.name} did not become ready within 10 s"
    return responder


def collect_and_stop(runner: Runner, responder: Responder) -> None:
    if responder.handle is not None:
        for line in _read_log(runner, responder)[1:]:
            words = line.split()
            if len(words) == 4 and words[0] == "seen":
                responder.seen.add((words[1], int(words[2]), words[3]))
        stop_background(runner, responder.handle)
    runner(responder.ns, ["rm", "-f", responder.log], 10)


def probe_from(access: Access, src: Endpoint, flows: list[Flow], gateway: str) -> list[list[str]]:
    """The states of every port of every flow from ``src``, as the prober saw them; ``gateway``
    (``src``'s) the reference whose answer shows how fast its paths answer."""
    targets = [[f.dst_address, f.proto, port] for f in flows for port in (f.ports() or (None,))]
    if why := access.why_not(src.name, "python3"):
        return [[f"error:no prober on {src.name}: {why}"] * (len(f.ports()) or 1) for f in flows]
    argv = ["python3", "-c", PROBER, json.dumps(targets), f"{PROBE_TIMEOUT_S:g}", gateway]
    result = access.runner(access.node(src.name), argv, PROBE_TIMEOUT_S + 30)
    try:
        states = json.loads(result.stdout)
        assert isinstance(states, list) and len(states) == len(targets)
    except (ValueError, AssertionError):
        why = (result.output.strip().splitlines() or ["no output"])[-1]
        states = [f"error:prober on {src.name} failed ({why})"] * len(targets)
    out, at = [], 0
    for flow in flows:
        width = len(flow.ports()) or 1
        out.append(states[at:at + width])
        at += width
    return out


def source_towards(access: Access, host: Endpoint, destination: str) -> str | None:
    """The source address ``host``'s kernel picks towards ``destination`` (None: unread)."""
    route = json_list(access.runner, access.node(host.name), ["ip", "-j", "route", "get", destination])
    return route[0].get("prefsrc") if route else None


def probe_twice(access: Access, host: Endpoint, flows: list[Flow], gateway: str
                ) -> tuple[list[list[str]], dict[int, str | None]]:
    """probe_from, and a permitted flow left unanswered probed again, alone: a drop is dropped
    twice; a first packet lost on a machine too busy to resolve a neighbour in time is not. Also,
    by position, each flow probed again: the source address its host picks towards it where it is
    still unanswered (a permit bound to the host's address fails when it sends from another)."""
    states = probe_from(access, host, flows, gateway)
    again = [at for at, flow in enumerate(flows) if flow.expected == "permit" and "timeout" in states[at]]
    if again:
        for at, got in zip(again, probe_from(access, host, [flows[at] for at in again], gateway), strict=True):
            states[at] = got
    return states, {at: source_towards(access, host, flows[at].dst_address) if "timeout" in states[at] else None
                    for at in again}


def _probed_twice(detail: str, flow: Flow, source: str | None) -> str:
    if detail:
        detail += " (probed twice: the first probe, sent with all the others, went unanswered)"
    if source and source != flow.src_address:
        detail += (f"; {flow.src.name} sends to {flow.dst_address} from {source}, not from its intent "
                   f"address {flow.src_address}")
    return detail


def _outcomes(flow: Flow, ports: tuple[int | None, ...], states: list[str], responder: Responder | None
              ) -> list[tuple[int | None, bool | None, str]]:
    """Per port: (port, reached (None: no verdict), words). A probe the responder saw arrive
    reached it, whatever the prober heard back, for a deny row (a leak is a leak); for a permit
    row it counts only when its reply came back (a reply lost is a service that does not work)."""
    outcomes: list[tuple[int | None, bool | None, str]] = []
    for port, state in zip(ports, states, strict=True):
        if responder is not None and port is not None and (flow.proto, port, flow.src_address) in responder.seen \
                and state not in REACHED:
            outcomes.append((port, flow.expected == "deny", SEEN))
        elif state in REACHED:
            outcomes.append((port, True, REACHED[state]))
        elif state in NOT_REACHED:
            outcomes.append((port, False, NOT_REACHED[state]))
        else:
            outcomes.append((port, None, state.removeprefix("error:")))
    return outcomes


def _reply_death(flow: Flow, ports: list[int | None], replies: ReplyPaths | None) -> str:
    """Where the reply of the first of ``ports`` whose reply the evaluator sees die dies ("": none)."""
    if replies is None:
        return ""
    for port in ports:
        try:
            where = replies.dies_at(flow, port)
        except (KeyError, ValueError):  # an address or ACL the evaluator does not know: it cannot tell
            return ""
        if where:
            return f"; {where}" + (f" ({flow.proto}/{port})" if len(ports) > 1 and port is not None else "")
    return ""


def _responder_failed(flow: Flow, ports: tuple[int | None, ...], responder: Responder | None) -> str | None:
    """Why the responder cannot tell a delivery from a drop on ``flow``'s ports (None: it can)."""
    if responder is None or flow.proto == "icmp":
        return None
    if responder.error:
        return responder.error
    unbound = [f"{flow.proto}/{p}: {responder.unbound[(flow.proto, p, flow.family)]}" for p in ports
               if p is not None and (flow.proto, p, flow.family) in responder.unbound]
    return f"the responder on {flow.dst.name} could not listen on " + ", ".join(unbound) if unbound else None


def judge(flow: Flow, states: list[str], responder: Responder | None, replies: ReplyPaths | None = None
          ) -> tuple[str | None, str, str | None]:
    """(observed action, detail, error) of one flow from its ports' states; a permit not met
    says where its reply died, where ``replies`` can tell."""
    ports = flow.ports() or (None,)
    outcomes = _outcomes(flow, ports, states, responder)
    if why := _responder_failed(flow, ports, responder):
        return None, "", why
    if broken := [f"{flow.proto}/{p}: {words}" if p else words for p, reached, words in outcomes if reached is None]:
        return None, "", "; ".join(broken)
    expect_reach = flow.expected == "permit"
    differ = [(p, words) for p, reached, words in outcomes if reached != expect_reach]
    died = _reply_death(flow, [p for p, _ in differ], replies) if expect_reach else ""
    if not flow.sample:
        reached = outcomes[0][1]
        return ("permit" if reached else "deny"), outcomes[0][2] + (died if not reached else ""), None
    if not differ:
        return flow.expected, f"all {len(ports)} ports {'reached' if expect_reach else 'dropped'} " \
                              f"({','.join(map(str, ports))})", None
    observed = "deny" if expect_reach else "permit"
    listed = ", ".join(f"{flow.proto}/{p} {words}" for p, words in differ)
    return observed, f"{len(differ)} of {len(ports)} sampled ports {'not reached' if expect_reach else 'reached'}: " \
                     f"{listed}{died}", None


def run_isolation(
    net: Network,
    access: Access,
    flows: list[Flow],
    progress: Progress,
    batfish: list[FlowAnswer | None] | None = None,
    replies: ReplyPaths | None = None,
) -> list[IsolationRow]:
    """``replies``: the reverse paths in the ACLs the network runs, to say where a permitted
    flow's reply died."""
    hosts = {e.name: e for e in net.endpoints.values()}
    vlans = net.vlan_by_name()
    towards = _ports_towards(flows)
    progress(f"[isolation] responders on {len(towards)} hosts, probers on "
             f"{len({f.src.name for f in flows})} hosts")
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        responders = {r.host: r for r in pool.map(lambda name: start_responder(access, hosts[name], towards[name]),
                                                   sorted(towards))}
    by_src: dict[str, list[int]] = {}
    for index, flow in enumerate(flows):
        by_src.setdefault(flow.src.name, []).append(index)
    states: list[list[str]] = [[] for _ in flows]
    probed_again: dict[int, str | None] = {}  # flow index: the source its host picks, still unanswered
    try:
        def probe(src: str) -> None:
            indexes = by_src[src]
            gateway = str(net.gateway_address(vlans[hosts[src].vlan]))
            got, again = probe_twice(access, hosts[src], [flows[i] for i in indexes], gateway)
            for i, flow_states in zip(indexes, got, strict=True):
                states[i] = flow_states
            probed_again.update({indexes[at]: source for at, source in again.items()})
            progress(f"[isolation] {src}: {len(indexes)} flows probed"
                     + (f", {len(again)} unanswered permit(s) probed again" if again else ""))

        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            list(pool.map(probe, sorted(by_src)))
    finally:
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            list(pool.map(lambda r: collect_and_stop(access.runner, r), responders.values()))
    rows = []
    for index, flow in enumerate(flows):
        observed, detail, error = judge(flow, states[index], responders.get(flow.dst.name), replies)
        if index in probed_again:
            detail = _probed_twice(detail, flow, probed_again[index])
        if unasked := access.why_not(flow.dst.name):  # its silence proves nothing: it may be down
            observed, detail, error = None, "", f"the destination could not be asked: {unasked}"
        answer = batfish[index] if batfish else None
        rows.append(IsolationRow(
            src=flow.src.name, dst=flow.dst.name, src_zone=flow.src.vlan, dst_zone=flow.dst.vlan,
            flow=flow.label(), expected=flow.expected, observed=observed, rule=flow.rule,
            device=vlans[flow.src.vlan].gateway, detail=detail or None, error=error,
            batfish=answer.action if answer else None, batfish_detail=answer.detail if answer else None,
            engine=answer.engine if answer else "Batfish", family=flow.family))
    return rows
