"""Isolation: the matrix of flows between VLANs (a sample of host pairs, each rule's own ports),
probed live with responders on the destinations, and asked of Batfish beside: a row passes when
the network does what the intent says and Batfish agrees.

In the lab: a responder on every destination host answers every probed
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
from pathlib import Path

from boothnet.family import Family
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.lab import lab_models, read_state
from boothnet.progress import Progress
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks._plots import reachability_heatmap
from boothnet.validate.checks.base import Context, LiveCheck
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
from boothnet.validate.results import IsolationRow, Stage, ValidationResults
from boothnet.validate.verdicts import guarded, timed_stage
from boothnet.verify.batfish.from_intent import batfish_view, vlan_entries, vpn_tunnel_ends
from boothnet.verify.batfish.service import find_host, probe
from boothnet.verify.batfish.snapshot import snapshot_name
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


def judge_batfish_agreement(stage: Stage, rows: list[IsolationRow]) -> Stage:
    """The isolation (Batfish) stage fails when the configs (Batfish's reading, or the offline
    evaluator's for IPv6) and the live lab disagree on any row
    (each such row fails on its own too: IsolationRow derives its verdict)."""
    disagree = [r for r in rows if r.batfish is not None and r.batfish != r.observed]
    if disagree:
        first = disagree[0]
        stage.status = Status.FAIL
        stage.reason = (f"{len(disagree)} flow(s) where the configs and the live lab disagree, first: "
                        f"{first.src} -> {first.dst} {first.flow}: lab {first.observed}, {first.engine} "
                        f"{first.batfish} ({first.batfish_detail})")
    return stage


def reply_paths(ctx: Context) -> ReplyPaths:
    """The reverse paths in the ACLs the network runs: the lab's (each stand-in's entries as its
    config reads), or on the floor the intent's (the lab's stand-ins when the floor is the lab)."""
    floor = ctx.access.devices
    if floor is not None:
        mode = floor.stand_in_vlan_mode
    else:
        state = read_state(ctx.access.lab_dir) if ctx.access.lab_dir is not None else None
        mode = state.vlan_mode if state is not None else None
    models = lab_models(ctx.run, mode) if mode else ctx.run.models("hardware")  # type: ignore[arg-type]  # a VLAN mode
    return ReplyPaths(ctx.net, models)


class Isolation(LiveCheck):
    name = section = field = "isolation"
    row_type = IsolationRow
    order = 50
    title = "Isolation matrix"
    rows_first = "failed"
    header = ("verdict", "src (zone)", "dst (zone)", "flow", "expected", "observed", "the configs say", "rule")
    rotates = True
    alarm = "effect"
    alarm_rank = 90

    def execute(self, ctx: Context) -> None:
        answers, batfish = self._batfish(ctx)
        # IPv6: Batfish 0.36 traces none, so the offline evaluator reads the same configs' ACLs
        offline = offline_answers(ctx.run, ctx.flows)
        answers = [mine or theirs for theirs, mine in zip(answers, offline, strict=True)]
        if decided := sum(a is not None for a in offline):
            batfish.note = "; ".join(filter(None, [batfish.note, f"{decided} IPv6 flows decided by the offline "
                                                   "evaluator (Batfish 0.36 traces no IPv6)"]))
        replies = reply_paths(ctx)
        rows = timed_stage(ctx.stages, self.name,
                           lambda: run_isolation(ctx.net, ctx.access, ctx.flows, ctx.progress, answers, replies))
        ctx.stages[-1].note = ctx.coverage
        judge_batfish_agreement(batfish, rows)
        ctx.stages.append(batfish)
        self.store(ctx.results, rows)

    def _batfish(self, ctx: Context) -> tuple[list[FlowAnswer | None], Stage]:
        """Batfish's answer to each flow of the sample, and its stage (said after the live one)."""
        none: list[FlowAnswer | None] = [None] * len(ctx.flows)
        name = f"{self.name} (Batfish)"
        if not ctx.profile.ask_batfish:
            return none, Stage(name=name, status=Status.SKIPPED, reason=f"not asked ({ctx.profile.name})")
        unanswered: list[Stage] = []
        return guarded(unanswered, name,
                       lambda: batfish_answers(ctx.run, ctx.flows, ctx.profile.batfish_host, ctx.progress),
                       None) or (none, unanswered[0])

    def subject(self, row: IsolationRow) -> str:
        return f"flow {row.src_zone} -> {row.dst_zone} {row.flow} ({row.src} -> {row.dst})"

    def message(self, row: IsolationRow) -> str:
        if row.verdict == Status.ERROR:
            return f"not probed: {row.error}"
        at = (f" (rule {row.rule!r} on {row.device})" if row.rule and row.device
              else f" (on {row.device})" if row.device else "")
        if row.batfish is not None and row.batfish != row.observed:
            return (f"live lab {row.observed}, {row.engine} {row.batfish} ({row.batfish_detail}): the configs and "
                    f"the lab disagree{at}")
        return f"expected {row.expected}, observed {row.observed}{at}" + (f": {row.detail}" if row.detail else "")

    def action(self, row: IsolationRow) -> str:
        if row.verdict == Status.ERROR:
            return "free the port on the destination host and run validate again"
        where = f" on {row.device}" if row.device else ""
        if row.batfish is not None and row.batfish != row.observed:
            return f"the running config{where} is not what was built: redeploy, then look for drift"
        if row.observed == "permit":
            return f"close it{where}: the rule {row.rule!r} must drop it; redeploy" if row.rule else \
                f"close it{where}; redeploy"
        return f"open it{where}: the intent permits it" + (f" (rule {row.rule!r})" if row.rule else "")

    def key(self, row: IsolationRow) -> str:
        return f"isolation {row.src} -> {row.dst} {row.flow}"

    def cells(self, row: IsolationRow) -> list[str]:
        return [row.verdict or "SKIPPED", f"{row.src} ({row.src_zone})", f"{row.dst} ({row.dst_zone})",
                row.flow, row.expected, row.observed or "not measured",
                f"{row.batfish} ({row.engine}: {row.batfish_detail})" if row.batfish else "not asked",
                f"{row.rule or ''}{' @ ' + row.device if row.device else ''}"]

    def plot(self, results: ValidationResults, folder: Path) -> Path | None:
        zones = list(results.zones)
        for row in results.isolation:
            zones += [z for z in (row.src_zone, row.dst_zone) if z not in zones]
        return reachability_heatmap(results.isolation, zones, folder / "reachability.png")


CHECK = Isolation()


def batfish_answers(
    run: Run, flows: list[Flow], host: str | None, progress: Progress
) -> tuple[list[FlowAnswer | None], Stage]:
    """Batfish's answer to every flow of the matrix, asked of the Batfish view of the intent's
    configs (the snapshot verify loaded in this run, when it did on this service); SKIPPED
    (answers None) when no service answers."""
    # here, not at the top: they bring pandas and pybatfish (0.75 s) into every process that imports validate
    from boothnet.verify.batfish.traces import FlowQuery, ask_flows, load_view
    from boothnet.verify.batfish.verify import LoadedSnapshot

    started = time.monotonic()
    net = run.net
    status = probe(find_host(host, run.layout.batfish_service))
    if not status.reachable:
        return [None] * len(flows), Stage(name="isolation (Batfish)", status=Status.SKIPPED, reason=status.skip_reason)
    asked = [i for i, f in enumerate(flows) if f.ask_batfish]
    view = batfish_view(run)
    entries = vlan_entries(net, view.models)
    progress(f"Batfish at {status.host}: {len(asked)} of the {len(flows)} isolation flows (icmp and each rule's "
             "own ports), asked of the configs")
    loaded = run.batfish_snapshot
    if loaded is None or loaded.host != status.host:
        name = snapshot_name("validate", run.layout.validate_snapshot)
        bf = load_view(status, net.name, view.configs.out_dir, view.intent.links, run.layout.validate_snapshot, name)
        loaded = run.batfish_snapshot = LoadedSnapshot(status.host, bf, name)
    tunnels = vpn_tunnel_ends(net, view.models)
    answers: list[FlowAnswer | None] = [None] * len(flows)
    for i, answer in zip(asked, ask_flows(loaded.session, loaded.name, [
            FlowQuery(entries[f.src.vlan], str(f.src.address), str(f.dst.address), f.proto, f.port,
                      tunnels.get((f.src.vlan, f.dst.vlan)),
                      # a permit works only when its replies come back (both directions asked)
                      entries.get(f.dst.vlan) if f.expected == "permit" else None)
            for f in (flows[i] for i in asked)]), strict=True):
        answers[i] = answer
    return answers, Stage(name="isolation (Batfish)", status=Status.PASS,
                          duration_s=round(time.monotonic() - started, 1), note=f"{len(asked)} flows traced")


def offline_answers(run: Run, flows: list[Flow]) -> list[FlowAnswer | None]:
    """The configs' answer to each IPv6 flow, where Batfish 0.36 traces none: the compiled IPv6 ACLs
    on its path (verify's PolicyPaths: the source VLAN's gateway in, the secured network's out),
    evaluated as the devices evaluate them. IPv4 flows: None (Batfish answers those)."""
    from boothnet.verify.batfish.traces import FlowAnswer
    from boothnet.verify.flows import Probe, port_acl_views
    from boothnet.verify.policy import PolicyPaths

    if not any(f.family == 6 for f in flows):
        return [None] * len(flows)
    paths = PolicyPaths(run.net, run.models("hardware"), family=Family.V6)
    ports = port_acl_views(run.models("hardware"))  # a bound host's IPv6 meets its port's ACL first

    def decide(flow: Flow, port: int | None) -> tuple[str, str]:
        assert flow.addresses6 is not None
        probe = Probe(*flow.addresses6, flow.proto, port)
        device, port_name = flow.src.attach.split(":", 1)
        at_port = ports.get((device, port_name))
        met = [*([at_port] if at_port else []), *(view for view, _ in paths.on_path(probe))]
        for view in met:
            action, line, _ = view.decide(probe, via_tunnel=False)
            if action == "deny":
                return "deny", f"{view.acl.name} on {view.device}: {line}"
        return "permit", f"permitted by {', '.join(f'{v.acl.name} on {v.device}' for v in met) or 'no IPv6 ACL'}"

    def answer(flow: Flow) -> FlowAnswer | None:
        if flow.family != 6:
            return None
        said = {port: decide(flow, port) for port in flow.ports() or (None,)}
        differ = [p for p, (action, _) in said.items() if action != flow.expected]
        if not differ or len(differ) == len(said):
            return FlowAnswer(*next(iter(said.values())), "offline evaluator")
        action, why = said[differ[0]]
        return FlowAnswer(action, f"{len(differ)} of {len(said)} ports {action}: {', '.join(map(str, differ))} "
                                  f"({why})", "offline evaluator")

    return [answer(f) for f in flows]
