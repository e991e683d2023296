"""Isolation: the matrix of flows between VLANs (a sample of host pairs, each rule's own ports),
probed live with responders on the destinations, and asked of Batfish beside: a row passes when
the network does what the intent says and Batfish agrees."""

from __future__ import annotations

from pathlib import Path

from boothnet.lab import lab_models, read_state
from boothnet.status import Status
from boothnet.validate.checks._plots import reachability_heatmap
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.isolation import run_isolation
from boothnet.validate.replies import ReplyPaths
from boothnet.validate.results import IsolationRow, Stage, ValidationResults
from boothnet.validate.run import batfish_answers, offline_answers
from boothnet.validate.verdicts import guarded, judge_batfish_agreement, timed_stage
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
