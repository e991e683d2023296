"""Input of the report: what post-deploy validation observed, section by section.

Verdicts are derived where the data allows it (isolation: observed vs expected; VPN:
state and recovery time) so a producer cannot mark a mismatch as passed by mistake.
Anything not measured is SKIPPED, which is never shown as PASS.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from boothnet.booth.lldp import CablingRow
from boothnet.status import Status
from boothnet.validate.perf.schema import RttRow, ThroughputResult

STATUSES: tuple[Status, ...] = tuple(Status)
Overall = Literal["PASS", "PASS_WITH_SKIPS", "FAIL", "SKIPPED"]
Action = Literal["permit", "deny"]
REPORT_SCHEMA_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=True)  # a Status is stored as its str


class Stage(_Model):
    """One pipeline stage (build, verify, batfish, deploy, isolation, mtu, throughput...)."""

    name: str
    status: Status
    reason: str | None = None  # why it failed or was skipped, e.g. "BATFISH_HOST not set"
    note: str | None = None  # what it covered, e.g. how many ports per host pair were probed
    device: str | None = None  # the device concerned, when one is
    duration_s: float | None = None


class IsolationRow(_Model):
    src: str  # host or node that sent, e.g. "r110-node1"
    dst: str
    src_zone: str  # zone or VLAN, rows and columns of the heatmap
    dst_zone: str
    flow: str  # e.g. "icmp", "tcp/22", "tcp/445"
    expected: Action
    observed: Action | None = None  # None: not measured
    rule: str | None = None  # the policy rule that decides, e.g. "research->prod deny any"
    device: str | None = None  # where that rule lives
    detail: str | None = None  # probe output summary
    batfish: Action | None = None  # Batfish's answer to the same flow (None: not asked)
    batfish_detail: str | None = None  # its trace's disposition and the ACL that decided
    engine: str = "Batfish"  # what gave `batfish`: Batfish, or the offline evaluator (IPv6: Batfish 0.36 has no trace)
    family: int = 4  # the IP version probed
    error: str | None = None  # why no verdict could be had (the responder did not start)
    verdict: Status | None = None  # derived when omitted

    @model_validator(mode="after")
    def _derive(self) -> IsolationRow:
        # A row passes when the live network does what the intent says and, where Batfish was
        # asked, Batfish agrees: the configs and the lab then tell one story.
        derived = (Status.ERROR if self.error is not None
                   else Status.SKIPPED if self.observed is None
                   else Status.FAIL if self.batfish is not None and self.batfish != self.observed
                   else Status.of(self.observed == self.expected))
        if self.verdict is None:
            self.verdict = derived
        elif self.verdict != derived:
            raise ValueError(f"isolation {self.src} -> {self.dst} {self.flow}: verdict "
                             f"{self.verdict} contradicts expected {self.expected} / "
                             f"observed {self.observed} / Batfish {self.batfish}")
        return self


class MtuRow(_Model):
    path: str  # the link or declared path, e.g. "core1:Gi1/0/49 -- rsw1:Ethernet49"
    mtu: int
    source: str = ""
    destination: str = ""
    verdict: Status
    cause: str | None = None  # "frag needed ...", "timeout, black hole ..."
    device: str | None = None
    kind: Literal["df-ping", "tcp-transfer"] = "df-ping"
    family: int = 4  # the IP version probed


class ProductionRow(_Model):
    """A production probe on the idle network and under research load (validate/checks/production.py)."""

    probe: Literal["ping", "tcp"]
    source: str
    destination: str  # the host, or "<device> (gateway)"
    idle: float | None  # ping: mean RTT ms; tcp: Mb/s
    loaded: float | None
    sent: int | None = None  # pings sent under load
    lost: int | None = None
    verdict: Status
    cause: str
    # structured: "cpu_bound" where this machine's load, not the network, decided it; "outlasted": the
    # probe ended after the load did (a slow machine), not judged
    causes: list[str] = []
    family: int = 4  # the IP version probed


class EndpointRow(_Model):
    """An endpoint where the intent puts it: address, gateway, switch port (MAC learned there)."""

    host: str
    vlan: str
    address: str  # the intent's address/prefix
    attach: str  # the intent's "device:port"
    verdict: Status
    cause: str | None = None  # what was seen instead
    device: str | None = None
    # the class of what is wrong: a host off its port, VLAN or address; its address answered by
    # another MAC too; an address the intent does not list, answering in a secured VLAN
    finding: Literal["placement", "duplicate", "unlisted"] | None = None
    family: int = 4  # the IP version of its address (a dual-stack host has a row in each)


class DriftRow(_Model):
    """A device's running state against what was deployed to it."""

    device: str
    verdict: Status
    cause: str | None = None  # the changed lines, or why the state could not be read
    diff: str | None = None  # the whole unified diff


class VpnTunnel(_Model):
    name: str  # e.g. "booth-gw <-> home-gw"
    state: str  # what swanctl says, e.g. "ESTABLISHED", "CONNECTING", "down"
    expected_state: str = "ESTABLISHED"
    recovery_time_s: float | None = None  # tunnel back after a forced failure
    max_recovery_s: float | None = None
    devices: list[str] = Field(default_factory=list)
    detail: str | None = None
    verdict: Status | None = None  # derived when omitted

    @model_validator(mode="after")
    def _derive(self) -> VpnTunnel:
        if self.verdict is None:
            ok = self.state.upper() == self.expected_state.upper()
            if ok and self.max_recovery_s is not None:
                ok = self.recovery_time_s is not None and \
                    self.recovery_time_s <= self.max_recovery_s
            self.verdict = Status.of(ok)
        return self


class Conditions(_Model):
    """What the measurements ran on: load, kernel and tool versions move the figures."""

    reached: Literal["lab", "floor"] = "lab"
    kernel: str = ""
    cpus: int = 0
    load_before: list[float] = Field(default_factory=list)  # 1, 5, 15-minute load averages
    load_after: list[float] = Field(default_factory=list)
    tools: dict[str, str] = Field(default_factory=dict)  # tool -> its version line, as a tested host has it
    busy: bool = False  # the lab's machine loaded beyond its cores while measuring: its figures are suspect


class ValidationResults(_Model):
    """What the validate playbook writes and the report reads."""

    schema_version: int = REPORT_SCHEMA_VERSION
    network: str
    generated: str | None = None  # ISO 8601 time of the run
    stages: list[Stage] = Field(default_factory=list)
    zones: list[str] = Field(default_factory=list)  # heatmap order; default: first seen
    endpoints: list[EndpointRow] = Field(default_factory=list)
    isolation: list[IsolationRow] = Field(default_factory=list)
    mtu: list[MtuRow] = Field(default_factory=list)
    throughput: list[ThroughputResult] = Field(default_factory=list)  # kind: path, WAN tests, sweep
    rtt: list[RttRow] = Field(default_factory=list)  # WAN paths' RTT probes
    production: list[ProductionRow] = Field(default_factory=list)  # production under research load
    vpn: list[VpnTunnel] = Field(default_factory=list)
    drift: list[DriftRow] = Field(default_factory=list)
    cabling: list[CablingRow] = Field(default_factory=list)
    conditions: Conditions | None = None
    # worth a look, failing nothing: an address no intent host holds, answering on an open VLAN
    warnings: list[str] = Field(default_factory=list)
    # the rows of a check added after this schema (validate/checks/), by its name: no field to add
    more: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)

    def for_report(self) -> dict[str, Any]:
        """As report.json keeps it: without the tools' raw output."""
        return self.model_dump(mode="json", exclude={"throughput": {"__all__": {"raw"}}})


class Failure(_Model):
    section: str  # "stage", or a check's section: "isolation", "mtu", "throughput", ...
    subject: str  # the device, link, flow or path it concerns, as the intent names it
    message: str
    kind: Status = Status.FAIL  # FAIL or ERROR
    action: str = ""  # what to do about it, for the booth lead


class Summary(_Model):
    network: str
    overall: Overall
    headline: str  # one line: "FAIL: 3 failures" / "PASS, but 1 stage SKIPPED: batfish"
    failures: list[Failure]
    skipped: list[str]  # "stage batfish: BATFISH_HOST not set", "12 isolation rows"...
    counts: dict[str, dict[str, int]]  # section -> {"PASS": n, "FAIL": n, "ERROR": n, "SKIPPED": n, ...}
    errors: int = 0  # checks that could not be made: never counted as passed or failed
    # on a dual-stack network, the checks made in one family (isolation, MTU, OSPF): "IPv6" -> counts
    families: dict[str, dict[str, int]] = Field(default_factory=dict)

    def family_line(self) -> str | None:
        """"IPv4: 40 passed, 0 failed · IPv6: 38 passed, 2 failed", or None for IPv4 alone."""
        if "IPv6" not in self.families:
            return None
        return " · ".join(f"{name}: {c.get('PASS', 0)} passed, {c.get('FAIL', 0)} failed"
                          + (f", {c['ERROR']} not made" if c.get("ERROR") else "")
                          for name, c in sorted(self.families.items()))
