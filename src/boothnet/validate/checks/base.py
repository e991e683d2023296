"""What a live check is: one module under ``validate/checks/`` holding its run, its rows' verdict,
subject and cause, its report table, its key for history and how a watch round takes a share of
it. The report and watch iterate over the catalog (``CATALOG``) and name no check."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel

from boothnet.intent.model import Network
from boothnet.progress import Observer
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.plan import Flow
from boothnet.validate.profile import Profile
from boothnet.validate.results import Failure, Stage, ValidationResults
from boothnet.validate.verdicts import timed_stage
from boothnet.validate.vpn import LabVpn

if TYPE_CHECKING:
    from boothnet.validate.run import LaneJob, Lanes


@dataclass
class Context:
    """What every check of one validate run shares: the run, how it reaches the network, its
    profile and progress, the results filled so far, and what several checks use."""

    run: Run
    access: Access
    profile: Profile
    progress: Observer  # lines, and each stage's end (run_validate says them)
    results: ValidationResults
    load_before: tuple[float, ...] = ()
    flows: list[Flow] = field(default_factory=list)  # the isolation sample: convergence waits on its pings
    coverage: str = ""  # what share of the isolation matrix the sample is
    vpn: LabVpn | None = None
    # when routing should have settled (time.monotonic()): the convergence wait's deadline, which
    # the later waits for routing share rather than wait their own timeout again after it
    settle_by: float | None = None

    @property
    def net(self) -> Network:
        return self.run.net

    @property
    def stages(self) -> list[Stage]:
        return self.results.stages

    @property
    def tunnel_mtu(self) -> int | None:
        return self.vpn.inner_mtu if self.vpn else None

    def settle_wait(self) -> float:
        """How long a check may still wait for routing to settle: what is left of the convergence
        wait's time, or the profile's whole timeout where no convergence wait ran."""
        if self.settle_by is None:
            return self.profile.convergence_timeout_s
        return max(0.0, self.settle_by - time.monotonic())

    def in_share(self, key: str) -> bool:
        """Whether a watch round's share takes ``key`` (a host, VLAN or "src>dst"); always outside watch."""
        return self.profile.share is None or self.profile.share(key)


class Moved(BaseModel):
    """A measured figure that moved between two runs beyond its own noise."""

    subject: str  # "path r110: node1 -> fs1 (iperf3, 1 stream)"
    before: float
    after: float
    unit: str  # "Mb/s", "ms"
    noise: float  # the change that would still be noise, in the unit
    limit: str  # what the row is judged against: "expected 900.0 Mb/s (physical)"

    @property
    def line(self) -> str:
        change = self.after - self.before
        pct = f" ({change / self.before:+.0%})" if self.before else ""
        return (f"{self.subject}: {self.before:.1f} -> {self.after:.1f} {self.unit}, {change:+.1f} {self.unit}"
                f"{pct}, beyond its noise of {self.noise:.1f} {self.unit}; {self.limit}")


@dataclass(frozen=True)
class Suspect:
    """Where a failed row points on the wiring diagram: a cable by its label, a host's own cable,
    a link or host port named ``a -- b``, else the cables between ``source`` and ``destination``."""

    why: str
    label: str | None = None
    host: str | None = None
    path: str = ""
    source: str = ""
    destination: str = ""


AlarmRole = Literal["cause", "effect"]


class LiveCheck:
    """One live check. Subclasses set the class attributes and ``measure``; the rest has defaults
    that fit a check whose rows carry a ``verdict``.

    ``name``: its stage. ``order``: its place in a run and in the report. ``section``: what its
    failures and counts are filed under (checks may share one). ``field``: the results' list its
    rows go to; None: ``results.more[name]`` (a check added after the results' schema, which needs
    no change to it). ``measures``: it loads the network, so it runs only when the profile measures,
    in this machine's measurement turn. ``rotates``: a watch round probes a share of its rows, so a
    failing row clears only when probed again; else a round that ran the check clears its section.
    ``alarm``: in watch, a cause (its failure explains dependent ones on the same nodes) or an
    effect. ``alarm_rank``: lower is announced first. ``rides``: the check whose lanes measure it
    (``validate/run.py``): it runs no stage of its own, and puts its measurements in those lanes
    through ``lane_jobs``, its rows stored with the host check's."""

    name: ClassVar[str]
    order: ClassVar[int]
    section: ClassVar[str] = ""
    field: ClassVar[str | None] = None
    row_type: ClassVar[type[BaseModel] | None] = None
    title: ClassVar[str] = ""
    header: ClassVar[tuple[str, ...]] = ()
    empty: ClassVar[str] = "nothing to check"
    measures: ClassVar[bool] = False
    rotates: ClassVar[bool] = False
    alarm: ClassVar[AlarmRole | None] = None
    alarm_rank: ClassVar[int] = 50
    rides: ClassVar[str | None] = None
    stage_action: ClassVar[str] = "see the stage's section below"
    rows_first: ClassVar[Literal["not passed", "failed", None]] = "not passed"  # the table's order; None: as run

    # --- running
    def skip(self, ctx: Context) -> str | None:
        """Why this run leaves the check out (a SKIPPED stage says so); None: it runs. A check that
        does not apply to this network at all returns None from ``applies`` instead."""
        return None

    def applies(self, ctx: Context) -> bool:
        """False: nothing of this check exists in this network or run, and no stage is shown."""
        return True

    def measure(self, ctx: Context) -> list[Any]:
        """Probe the network; its rows (appended to the results by ``execute``)."""
        raise NotImplementedError

    def lane_jobs(self, lanes: Lanes) -> list[LaneJob]:
        """Its measurements in the shared lanes (a check that ``rides`` another's, or hosts them):
        each a test, a tool, a direction, and its own measure-and-judge."""
        return []

    def execute(self, ctx: Context) -> None:
        """Run it as one timed stage (an exception makes the stage ERROR, never loses the others)."""
        if self.rides is not None:
            return  # measured in the lanes of the check it rides, through ``lane_jobs``
        if not self.applies(ctx) or self.measures and not ctx.profile.throughput:
            return  # a profile that does not measure says so once, for every measuring check
        if (why := self.skip(ctx)) is not None:
            ctx.stages.append(Stage(name=self.name, status=Status.SKIPPED, reason=why))
            return
        rows = timed_stage(ctx.stages, self.name, lambda: self.measure(ctx), self.empty)
        self.store(ctx.results, rows)

    # --- its rows in the results
    def rows(self, results: ValidationResults) -> list[Any]:
        if self.field is not None:
            return [row for row in getattr(results, self.field) if self.owns(row)]
        if self.row_type is None:
            return []
        return [self.row_type.model_validate(row) for row in results.more.get(self.name, [])]

    def owns(self, row: Any) -> bool:  # a row of the field it shares
        """Of a field several checks share (throughput), whether ``row`` is this check's."""
        return True

    def store(self, results: ValidationResults, rows: Sequence[Any]) -> None:
        if self.field is not None:
            getattr(results, self.field).extend(rows)
        elif rows:
            results.more.setdefault(self.name, []).extend(row.model_dump(mode="json") for row in rows)

    @property
    def has_rows(self) -> bool:
        return self.field is not None or self.row_type is not None

    # --- judging, for the report, history and watch
    def verdict(self, row: Any) -> Status:
        return Status(row.verdict) if row.verdict is not None else Status.SKIPPED

    def subject(self, row: Any) -> str:
        raise NotImplementedError

    def message(self, row: Any) -> str:
        return getattr(row, "cause", None) or "failed"

    def action(self, row: Any) -> str:
        return ""

    def failure(self, row: Any) -> Failure | None:
        kind = self.verdict(row)
        if kind not in (Status.FAIL, Status.ERROR):
            return None
        return Failure(section=self.section, subject=self.subject(row), message=self.message(row), kind=kind,
                       action=self.action(row))

    def key(self, row: Any) -> str:
        """The row's name in history: the same row of the next run has the same key."""
        return f"{self.section} {self.subject(row)}"

    def moved(self, before: Any, after: Any) -> Moved | None:
        """A measured figure that moved beyond its noise between two runs (None: not measured)."""
        return None

    def suspect(self, row: Any) -> Suspect | None:
        """The cables a failed row points at, for the wiring diagram."""
        return None

    # --- the report
    def cells(self, row: Any) -> list[str]:
        raise NotImplementedError

    def table(self, results: ValidationResults) -> list[list[str]]:
        """The report's rows: those not passed (or failed) first, else as run."""
        rows = self.rows(results)
        if self.rows_first == "not passed":
            rows = sorted(rows, key=lambda r: self.verdict(r) == Status.PASS)
        elif self.rows_first == "failed":
            rows = sorted(rows, key=lambda r: self.verdict(r) != Status.FAIL)
        return [self.cells(row) for row in rows]

    def plot(self, results: ValidationResults, folder: Path) -> Path | None:
        """A chart drawn above the table (None: none)."""
        return None

    def first_screen(self, results: ValidationResults) -> str | None:
        """A line for the report's first screen (None: none)."""
        return None

