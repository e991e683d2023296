"""Cabling on the booth's own switches, read-only: NAPALM's ``get_lldp_neighbors`` (ios: ``show lldp
neighbors detail``; eos: eAPI ``show lldp neighbors``) against the intent's cables."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from boothnet.booth.cables import Cable, CableEnd, same_port
from boothnet.booth.lldp import CablePlan, CablingRow, Heard, Observed, judge_cabling
from boothnet.deploy.batch import in_parallel
from boothnet.intent.model import Network
from boothnet.status import Status


def intent_ports(end: CableEnd, _cable: Cable) -> list[str]:
    """On hardware a port is called what the intent calls it."""
    return [end.port] if end.port else []


def read_neighbours(plan: CablePlan, device: str, driver) -> Observed:  # a NAPALM driver
    """What each port of ``device`` hears, keyed by the plan's name for the port (a switch may
    print ``Gi1/0/1`` for ``GigabitEthernet1/0/1``)."""
    names = [ifname for dev, ifname in plan.plugs if dev == device]
    observed: dict[tuple[str, str], list[Heard]] = {}
    for local, found in driver.get_lldp_neighbors().items():
        port = local if local in names else next((n for n in names if same_port(n, local)), local)
        observed[(device, port)] = [Heard(n["hostname"], n["port"]) for n in found]
    return observed


def check_sessions(net: Network, drivers: Mapping[str, Any],
                   ifnames_of: Callable[[CableEnd, Cable], list[str]] = intent_ports,
                   unreachable: Mapping[str, str] | None = None) -> list[CablingRow]:
    """The cables of every device in ``drivers`` (open sessions, read in parallel) against what
    their ports hear; nothing is changed on them. ``ifnames_of``: how the devices name a cable's
    ports (the lab's stand-ins: eth<N>). A device that cannot be read (or, in ``unreachable``,
    reached: device -> why) gets a failed row of its own; the others are judged all the same."""
    plan = CablePlan(net, ifnames_of)

    def read(item: tuple[str, Any]) -> Observed | str:
        device, driver = item
        try:
            return read_neighbours(plan, device, driver)
        except Exception as exc:  # every driver has its own errors
            return f"{type(exc).__name__}: {exc}"

    observed: dict[tuple[str, str], list[Heard]] = {}
    unread = dict(unreachable or {})
    for device, got in zip(drivers, in_parallel(drivers.items(), read), strict=True):
        if isinstance(got, str):
            unread[device] = got
        else:
            observed.update(got)
    rows = judge_cabling(plan, observed, set(drivers) - set(unread))
    return rows + [CablingRow(label="-", cable=device, verdict=Status.FAIL, device=device,
                              cause=f"{device}: cannot read LLDP neighbours: {why}")
                   for device, why in sorted(unread.items())]


def misplaced(rows: list[CablingRow]) -> str:
    """What is wrong with the cables, for a person: empty when every cable is where it belongs."""
    bad = [f"{r.label}: {r.cause}" for r in rows if r.verdict != Status.PASS]
    if not bad:
        return ""
    return f"{len(bad)} of {len(rows)} cables not where the intent says: " + "; ".join(bad)
