"""What one watch round saw: each cable's counters, each WAN path's RTT and loss, the checks that
failed, and the alarms raised or cleared."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from boothnet.status import Status

# The command line's defaults live here, not in the loop: building `boothnet`'s parser must not
# import the loop (validate, matplotlib, NAPALM: seconds on every command).
DEFAULT_EVERY_S = 300
DEFAULT_PORT = 9477


@dataclass(frozen=True)
class WireSample:
    """One wire of a cable (a trunk the lab wires per VLAN has several), read from its ``a`` end:
    what ``a`` sent is a -> b, what it received b -> a."""

    cable: str  # the label, "C05"
    text: str  # what is printed on it, "C05 core1 Te1/1/1 <-> rsw1 Et49"
    wire: str  # the cable's text, with " VLAN <id>" for one VLAN of a trunk
    speed_bps: float
    a_to_b_octets: int | None = None
    b_to_a_octets: int | None = None
    errors: int | None = None  # both read ends, in and out
    discards: int | None = None
    up: bool | None = None  # every read end's link up; None: no end reported its state
    down_at: str = ""  # the end(s) whose link is down, "r1 eth3"
    read_at: float = 0.0
    error: str | None = None  # why it could not be read
    a_to_b_bps: float | None = None  # since the previous round's sample
    b_to_a_bps: float | None = None
    new_errors: int | None = None
    new_discards: int | None = None


@dataclass(frozen=True)
class PathRtt:
    path: str
    avg_ms: float | None
    loss_pct: float | None
    declared_ms: float
    verdict: str


@dataclass(frozen=True)
class Check:
    """A check that did not pass this round."""

    key: str  # "<section>: <subject>", the same across rounds
    section: str
    subject: str
    status: Status  # FAIL or ERROR
    message: str
    action: str


@dataclass(frozen=True)
class Event:
    """An alarm raised (a check that passed now fails) or cleared."""

    time: float
    round: int
    state: Literal["ALARM", "CLEAR"]
    key: str
    section: str
    subject: str
    message: str
    action: str
    since: float  # when the check started failing

    def as_json(self, network: str) -> dict:
        return {"network": network, **asdict(self)}


@dataclass
class RoundRecord:
    number: int
    started: float
    finished: float
    seed: int
    verdict: str  # PASS, FAIL
    headline: str
    checks: int  # how many checks passed or failed
    wires: list[WireSample] = field(default_factory=list)
    rtt: list[PathRtt] = field(default_factory=list)
    failing: list[Check] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)  # keys' sections (or keys) this round could clear
    slowest: str = ""  # where the round's time went: "isolation 5.1 s, mtu 2.0 s, ospf 0.8 s" (not kept)
