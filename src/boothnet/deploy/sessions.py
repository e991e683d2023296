"""Sessions a new policy denies, on the devices that track connections (frr_linux: nftables
with ``ct state established,related accept`` ahead of the ACLs): loading a stricter ruleset with
``nft -f`` leaves conntrack's entries in place, so a session the new policy denies goes on until it
ends by itself. After the deploy, each such device's conntrack table is read (``conntrack -L -o
extended``, Debian's ``conntrack`` package), every forwarded entry is judged against the new policy
by the project's offline end-to-end evaluator (``verify.acl_review.endtoend.EndToEnd``: the same
walk through every hop's ACLs that the ACL review makes), and the entries it denies are cut
(``conntrack -D`` with the entry's own tuple), or, with the ``list`` mode, left and listed.

Why end to end and on every device of the path, not one device's ACLs: conntrack picks up a TCP
session mid-stream (``nf_conntrack_tcp_loose``). A session cut only where the new ACL stands comes
back there from its other end, whose packets the next device still admits by its own entry and
that no ACL meets in that direction. Cut on every device that holds it, the first packet from
either end is a new flow, and the new policy decides it. Further rounds, a second apart, cut what
such a pick-up re-created while the devices were cut one after another, until a round finds none.
"""

from __future__ import annotations

import json
import re
import shlex
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from ipaddress import IPv4Address, IPv6Address, ip_address
from typing import TYPE_CHECKING, Any, Literal, Protocol

from boothnet.deploy.results import sessions_said
from boothnet.family import FAMILIES, Family
from boothnet.verify.flows import Probe

if TYPE_CHECKING:
    from boothnet.derive import DeviceModel
    from boothnet.intent.model import Network

Mode = Literal["cut", "list"]
MODES: tuple[Mode, ...] = ("cut", "list")
LIST = "conntrack -L -o extended"
ADDRESSES = "ip -j addr show"
# TCP states of a conversation already over: nothing of it is open any more
CLOSED_TCP = frozenset({"TIME_WAIT", "CLOSE"})
ICMP_ECHO = {4: "8", 6: "128"}  # the one ICMP query the evaluator models (ping); replies are the entry's other half
_FIELD = re.compile(r"(\w+)=(\S+)")
Address = IPv4Address | IPv6Address


class ConntrackError(Exception):
    """The device's conntrack table could not be read: the sessions were not checked."""


@dataclass(frozen=True)
class Entry:
    """One conntrack entry, its original direction (who opened it) as ``conntrack -L -o extended`` prints it."""

    family: int
    proto: str  # tcp, udp, icmp, icmpv6, or another name (gre, unknown)
    proto_number: int
    src: Address
    dst: Address
    sport: int | None = None
    dport: int | None = None
    state: str = ""  # TCP only: ESTABLISHED, CLOSE_WAIT, ...
    icmp: tuple[str, str, str] | None = None  # (type, code, id) of an ICMP entry
    line: str = ""

    @property
    def probe(self) -> Probe | None:
        """The flow as the evaluator takes a new conversation's first packet, or None for what it
        does not model (ICMP other than echo, protocols other than TCP, UDP and ICMP)."""
        if self.proto in ("tcp", "udp"):
            return Probe(self.src, self.dst, self.proto, self.dport)
        if self.proto in ("icmp", "icmpv6") and self.icmp is not None and self.icmp[0] == ICMP_ECHO[self.family]:
            return Probe(self.src, self.dst, "icmp", None)
        return None

    def said(self) -> dict[str, Any]:
        """Source, destination, protocol/port, as the record lists it."""
        service = self.proto + (f"/{self.dport}" if self.dport is not None else "")
        return {"src": str(self.src), "dst": str(self.dst), "proto": self.proto, "port": self.dport,
                "sport": self.sport, "service": service, "state": self.state,
                "flow": f"{_host(self.src, self.sport)} -> {_host(self.dst, self.dport)} {service}"}

    def delete_command(self) -> str:
        """``conntrack -D`` with exactly this entry's original tuple (family, protocol, addresses,
        ports or ICMP type/code/id): this entry, not the rest of the table."""
        args = ["conntrack", "-D", "-f", f"ipv{self.family}", "-p",
                self.proto if self.proto != "unknown" else str(self.proto_number),
                "-s", str(self.src), "-d", str(self.dst)]
        if self.sport is not None and self.dport is not None:
            args += ["--sport", str(self.sport), "--dport", str(self.dport)]
        if self.icmp is not None:
            kind = "icmpv6" if self.proto == "icmpv6" else "icmp"
            args += [f"--{kind}-type", self.icmp[0], f"--{kind}-code", self.icmp[1], f"--{kind}-id", self.icmp[2]]
        return " ".join(shlex.quote(a) for a in args)

    @property
    def session(self) -> tuple[object, ...]:
        """The conversation, whichever end conntrack saw first (a pick-up turns it round)."""
        ends = sorted([(str(self.src), self.sport or 0), (str(self.dst), self.dport or 0)])
        return (self.family, self.proto, *ends)


def _host(address: Address, port: int | None) -> str:
    text = f"[{address}]" if address.version == 6 and port is not None else str(address)
    return f"{text}:{port}" if port is not None else text


def parse_entry(line: str) -> Entry | None:
    """One line of ``conntrack -L -o extended`` (None for a line that is no entry: the tally
    conntrack prints last, a blank line). Raises ConntrackError for a line it cannot read."""
    words = line.split()
    if len(words) < 5 or words[0] not in ("ipv4", "ipv6"):
        return None
    family = 4 if words[0] == "ipv4" else 6
    proto = words[2]
    try:
        number = int(words[3])
    except ValueError as exc:
        raise ConntrackError(f"conntrack printed an entry without a protocol number: {line.strip()!r}") from exc
    state = words[5] if proto == "tcp" and len(words) > 5 and "=" not in words[5] else ""
    original: dict[str, str] = {}
    for key, value in _FIELD.findall(line):
        if key in original:  # the second src= begins the reply direction
            break
        original[key] = value
    try:
        src, dst = ip_address(original["src"]), ip_address(original["dst"])
        ports = (int(original["sport"]), int(original["dport"])) if "sport" in original else (None, None)
    except (KeyError, ValueError) as exc:
        raise ConntrackError(f"conntrack printed an entry without its addresses: {line.strip()!r}") from exc
    icmp = (original["type"], original["code"], original["id"]) if {"type", "code", "id"} <= original.keys() else None
    return Entry(family, proto, number, src, dst, ports[0], ports[1], state, icmp, line.strip())


def parse_table(text: str) -> list[Entry]:
    """Every entry of ``conntrack -L -o extended``'s output."""
    return [entry for line in text.splitlines() if (entry := parse_entry(line)) is not None]


def local_addresses(ip_json: str) -> set[Address]:
    """The device's own addresses (``ip -j addr show``): a conversation with the device itself
    (the deploy's SSH session, OSPF, the VPN's IKE) is no forwarded flow, and no ACL's."""
    return {ip_address(a["local"]) for link in json.loads(ip_json or "[]")
            for a in link.get("addr_info", []) if a.get("local")}


class Judge(Protocol):
    def __call__(self, probe: Probe) -> tuple[str, str] | None:
        """(permit or deny, in words where the new policy decides it) of a new flow's first packet;
        None for a flow that is not the booth's (neither end in a booth VLAN): no policy of its."""
        ...


@dataclass
class Verdict:
    entry: Entry
    action: str  # permit, deny
    why: str


def judged(entries: Iterable[Entry], judge: Judge, own: set[Address]) -> list[Verdict]:
    """What the new policy decides for each open forwarded session: entries to or from the device
    itself, to multicast or link-local addresses, TCP conversations already closed, what the
    evaluator does not model (see Entry.probe) and what is not the booth's traffic are left out."""
    out = []
    for entry in entries:
        probe = entry.probe
        if probe is None or entry.state in CLOSED_TCP or entry.src in own or entry.dst in own:
            continue
        if any(a.is_multicast or a.is_link_local or a.is_loopback for a in (entry.src, entry.dst)):
            continue
        decided = judge(probe)
        if decided is not None:
            out.append(Verdict(entry, *decided))
    return out


def denied(verdicts: Iterable[Verdict]) -> list[Verdict]:
    """The sessions the new policy denies: the ones to cut (or list)."""
    return [v for v in verdicts if v.action == "deny"]


class PolicyJudge:
    """The new policy as the offline end-to-end evaluator decides it (the ACL review's), from
    the intent and the models the deployed configs were rendered from."""

    def __init__(self, net: Network, models: Mapping[str, DeviceModel]) -> None:
        from boothnet.verify.acl_review.endtoend import EndToEnd

        self.models = dict(models)
        self._sides = {family: EndToEnd(net, self.models, family) for family in FAMILIES}

    def __call__(self, probe: Probe) -> tuple[str, str] | None:
        side = self._sides[Family(probe.src.version)]
        if side.paths.vlan_of(probe.src) is None and side.paths.vlan_of(probe.dst) is None:
            return None
        fate = side.fate(probe)
        return fate.action, fate.said()

    def tracks_connections(self, device: str) -> bool | None:
        """Whether the device's rendered ruleset admits established sessions ahead of its ACLs
        (None: the device is not in the models)."""
        model = self.models.get(device)
        return None if model is None else bool(model.stateful_acls)


@dataclass
class SessionRecord:
    """What the deploy did about one device's open sessions, for its record."""

    checked: bool
    mode: str = "cut"  # cut, list, or check (a --check run: what the deploy would cut)
    why: str = ""  # not checked: why; checked: a note (a second round, a session gone meanwhile)
    ended: list[dict[str, Any]] = field(default_factory=list)  # sessions the new policy denies that were cut
    left: list[dict[str, Any]] = field(default_factory=list)  # ... left open (list, check, a failed cut)
    judged: int = 0  # open forwarded sessions judged

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ended_count": len(self.ended), "left_count": len(self.left)}

    def summary(self) -> str:
        """One cell of the deploy table: ``1 ended``, ``2 left``, ``3 would end``, ``not checked``."""
        return sessions_said(self.as_dict())


def not_checked(why: str) -> SessionRecord:
    return SessionRecord(False, why=f"sessions not checked: {why}")


class ConntrackDevice(Protocol):
    """What the sessions step asks of a device (FrrLinuxDriver)."""

    def read_conntrack(self) -> tuple[str, str]: ...
    def delete_conntrack(self, commands: Mapping[str, str]) -> dict[str, tuple[int, str]]: ...


def _row(verdict: Verdict, outcome: str) -> dict[str, Any]:
    return {**verdict.entry.said(), "denied_at": verdict.why, "outcome": outcome}


@dataclass
class Cutter:
    """Lists, judges and cuts one device's sessions; ``rounds`` > 1 cuts again what conntrack
    picked up again meanwhile (module doc), ``pause`` seconds apart, until a round finds none
    (a CI run's routers, cut a little apart on busy cores, picked a session up again after two)."""

    judge: Judge
    mode: str = "cut"
    rounds: int = 5
    pause: float = 1.0
    sleep: Callable[[float], None] = time.sleep

    def run(self, device: str, dev: ConntrackDevice) -> SessionRecord:
        try:
            verdicts = self._read(dev)
        except ConntrackError as exc:
            return not_checked(str(exc))
        record = SessionRecord(True, self.mode, judged=len(verdicts))
        todo = denied(verdicts)
        if self.mode != "cut":
            record.left = [_row(v, "would end" if self.mode == "check" else "left open") for v in todo]
            return record
        ended: dict[tuple[object, ...], dict[str, Any]] = {}
        left: dict[tuple[object, ...], dict[str, Any]] = {}
        for round_ in range(self.rounds):
            if not todo:
                break
            self._cut(dev, todo, record, ended, left)
            if round_ + 1 < self.rounds:
                self.sleep(self.pause)
                try:
                    todo = denied(self._read(dev))
                except ConntrackError as exc:
                    record.why = f"after the cut: {exc}"
                    break
        record.ended, record.left = list(ended.values()), [row for key, row in left.items() if key not in ended]
        return record

    def _read(self, dev: ConntrackDevice) -> list[Verdict]:
        table, addresses = dev.read_conntrack()
        return judged(parse_table(table), self.judge, local_addresses(addresses))

    @staticmethod
    def _cut(dev: ConntrackDevice, todo: list[Verdict], record: SessionRecord,
             ended: dict[tuple[object, ...], dict[str, Any]], left: dict[tuple[object, ...], dict[str, Any]]) -> None:
        """``conntrack -D`` each entry; a session counts once, whichever way round conntrack held it
        (a pick-up of a session already ended is that session)."""
        answers = dev.delete_conntrack({str(i): v.entry.delete_command() for i, v in enumerate(todo)})
        for i, verdict in enumerate(todo):
            code, text = answers.get(str(i), (-1, "no answer"))
            key = verdict.entry.session
            if code == 0:
                ended.setdefault(key, _row(verdict, "ended"))
            elif "0 flow entries" in text:
                gone = f"{verdict.entry.said()['flow']} closed by itself before the cut"
                record.why = "; ".join(filter(None, [record.why, gone]))
            else:
                left[key] = _row(verdict, f"left open: conntrack -D failed: {text.strip()}")


def read_error(device: str, code: int, text: str, user: str) -> ConntrackError:
    """Why a device's conntrack table could not be read, in words a booth team acts on."""
    text = text.strip()
    if code == 127 or "not found" in text:
        return ConntrackError(f"{device} has no conntrack tool ({text or 'command not found'}): install Debian's "
                              "conntrack package on it (make setup does in the lab)")
    if "root" in text or "CAP_NET_ADMIN" in text or "Operation not permitted" in text:
        return ConntrackError(f"{device}: reading conntrack needs root (CAP_NET_ADMIN), the deploy runs as "
                              f"{user!r}: {text}")
    return ConntrackError(f"{device}: conntrack -L failed (exit {code}): {text or 'no message'}")
