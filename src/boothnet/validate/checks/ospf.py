"""OSPF adjacencies: every adjacency the intent implies (two routers on a routed link or a shared
VLAN, neither side passive) is up at both ends, and so is each OSPFv3 one beside it (by router ID):
Full, or 2-Way toward another DROther on a LAN where the device is Full with its DR. Routing can
converge over another path with one adjacency down; this check names it. Adjacencies still forming
(a lab just up) get the profile's convergence time to come up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from boothnet.deploy.batch import in_parallel
from boothnet.deploy.health import intended_neighbors
from boothnet.deploy.steps import model_or_empty
from boothnet.family import Family
from boothnet.poll import poll
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.drift import DriftTarget, lab_targets

TWO_WAY = ("2-Way", "2Way")  # FRR's word, and NAPALM's
GETTER = "get_ospf_neighbors"
GETTER6 = "get_ospf6_neighbors"  # boothnet's frr_linux driver; NAPALM's IOS and EOS drivers have none


class AdjacencyRow(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    device: str
    interface: str  # as the device names it
    neighbour: str  # the router the intent puts at the other end
    address: str  # the neighbour's address on that interface (OSPFv3: its router ID)
    state: str | None = None  # what the device reports (None: no such neighbour, or not read)
    verdict: Status
    cause: str | None = None
    family: int = 4  # 6: OSPFv3


def _neighbours(access: Access, target: DriftTarget, getter: str = GETTER) -> dict[str, list[dict[str, str]]] | str:
    """The device's OSPF (``getter``: OSPFv3) neighbours by interface, or why they could not be read."""
    if access.devices is not None:
        driver, why = access.devices.driver(target.device)
        if driver is None:
            return why
        opened = None
    else:
        try:
            driver = opened = target.target.open()
        except Exception as exc:  # every driver has its own errors
            return f"could not be reached: {type(exc).__name__}: {exc}"
    try:
        if not hasattr(driver, getter):
            return f"its driver reads no {_PROTOCOL[getter]} neighbours ({type(driver).__name__} has no {getter})"
        found: dict[str, list[dict[str, str]]] = getattr(driver, getter)()
        return found
    except Exception as exc:
        return f"{getter} failed: {type(exc).__name__}: {exc}"
    finally:
        if opened is not None:
            opened.close()


_PROTOCOL = {GETTER: "OSPF", GETTER6: "OSPFv3"}


def adjacency_rows(device: str, intended: dict[str, dict[str, str]],
                   read: dict[str, list[dict[str, str]]] | str, getter: str = GETTER) -> list[AdjacencyRow]:
    """Each adjacency ``intended`` (interface -> address -> neighbour) against what was ``read``."""
    protocol = _PROTOCOL[getter]
    rows = []
    for interface, peers in sorted(intended.items()):
        found = {} if isinstance(read, str) else {n.get("address"): n.get("state") for n in read.get(interface, [])}
        # 2-Way is a LAN's steady state between two DROthers only: each is Full with its DR; on a
        # link of two routers it is an adjacency still forming, or stuck (both priority 0)
        up = ("Full", *TWO_WAY) if "Full" in found.values() else ("Full",)
        for address, neighbour in sorted(peers.items()):
            state = found.get(address)
            verdict, cause = Status.PASS, None
            if isinstance(read, str):
                verdict = Status.NOT_RUN if f"has no {getter}" in read else Status.ERROR
                cause = f"{device}'s {protocol} neighbours not read: {read}"
            elif state not in up:
                verdict = Status.FAIL
                what = "adjacency" if getter == GETTER else "OSPFv3 adjacency"
                cause = (f"{device} {interface}: no {what} with {neighbour} ({address}): "
                         + (f"stuck in {state}" if state else "no such neighbour"))
            rows.append(AdjacencyRow(device=device, interface=interface, neighbour=neighbour, address=address,
                                     state=state, verdict=verdict, cause=cause, family=6 if getter == GETTER6 else 4))
    return rows


class OspfAdjacencies(LiveCheck):
    name = "ospf"
    section = "ospf"
    order = 25
    row_type = AdjacencyRow
    title = "OSPF adjacencies (each the intent implies, at both ends)"
    header = ("verdict", "device", "interface", "neighbour", "state", "why")
    empty = "no OSPF adjacency in the intent"
    alarm = "cause"
    alarm_rank = 25

    def measure(self, ctx: Context) -> list[AdjacencyRow]:
        routers: Path | list[DriftTarget] = ctx.access.routers()
        targets = lab_targets(routers) if isinstance(routers, Path) else routers
        models = {t.device: model_or_empty(t.config_dir) for t in targets}
        asked = [(t, [(getter, found) for getter, found in (
            (GETTER, intended_neighbors(models[t.device])),
            (GETTER6, intended_neighbors(models[t.device], models, Family.V6))) if found]) for t in targets]

        def read_device(target: DriftTarget, getters: list[tuple[str, Any]]) -> list[AdjacencyRow]:
            # one device's getters one after another: a floor's NAPALM session is not shared between
            # threads (OSPF and OSPFv3 read at once on r2 left its shell out of step: "sudo: not found")
            return [row for getter, intended in getters
                    for row in adjacency_rows(target.device, intended, _neighbours(ctx.access, target, getter), getter)]

        def read_all() -> list[AdjacencyRow]:
            return [row for rows in in_parallel(asked, lambda one: read_device(*one)) for row in rows]

        rows = poll(read_all, lambda rows: all(row.verdict != Status.FAIL for row in rows), ctx.settle_wait())
        ctx.progress(f"[ospf] {sum(r.verdict == Status.PASS for r in rows)} of {len(rows)} adjacencies up")
        return rows

    def subject(self, row: AdjacencyRow) -> str:
        protocol = "OSPFv3 " if row.family == 6 else ""
        return f"{protocol}adjacency {row.device} {row.interface} -> {row.neighbour} ({row.address})"

    def action(self, row: AdjacencyRow) -> str:
        show = "ipv6 ospf" if row.family == 6 else "ip ospf"
        return (f"on {row.device} and {row.neighbour}: `show {show} neighbor`, `show {show} interface "
                f"{row.interface}`: hello and dead timers, area, MTU, authentication and passive must match")

    def cells(self, row: AdjacencyRow) -> list[str]:
        return [row.verdict, row.device, row.interface, f"{row.neighbour} ({row.address})", row.state or "-",
                row.cause or ""]


CHECK = OspfAdjacencies()
