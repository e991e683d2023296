"""Isolation: the matrix of flows between VLANs (a sample of host pairs, each rule's own ports),
probed live with responders on the destinations, and asked of Batfish beside: a row passes when
the network does what the intent says and Batfish agrees."""

from __future__ import annotations

import time
from pathlib import Path

from boothnet.lab import lab_models, read_state
from boothnet.progress import Progress
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.checks._plots import reachability_heatmap
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.isolation import run_isolation
from boothnet.validate.plan import Flow
from boothnet.validate.replies import ReplyPaths
from boothnet.validate.results import IsolationRow, Stage, ValidationResults
from boothnet.validate.verdicts import guarded, judge_batfish_agreement, timed_stage
from boothnet.verify.batfish.from_intent import batfish_view, vlan_entries, vpn_tunnel_ends
from boothnet.verify.batfish.service import find_host, probe
from boothnet.verify.batfish.snapshot import snapshot_name
from boothnet.verify.batfish.traces import FlowAnswer


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
    paths = PolicyPaths(run.net, run.models("hardware"), family=6)
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
