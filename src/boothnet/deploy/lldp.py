"""Cabling on the booth's own switches, read-only: NAPALM's ``get_lldp_neighbors`` (ios: ``show lldp
neighbors detail``; eos: eAPI ``show lldp neighbors``) against the intent's cables."""

from __future__ import annotations

from collections.abc import Callable

from boothnet.booth.cables import Cable, CableEnd, same_port
from boothnet.booth.lldp import CablePlan, CablingRow, Heard, Observed, judge_cabling
from boothnet.deploy.steps import Target
from boothnet.intent.model import Network


def intent_ports(end: CableEnd, _cable: Cable) -> list[str]:
    """On hardware a port is called what the intent calls it."""
    return [end.port] if end.port else []


def read_neighbours(plan: CablePlan, device: str, driver) -> Observed:  # noqa: ANN001 - a NAPALM driver
    """What each port of ``device`` hears, keyed by the plan's name for the port (a switch may
    print ``Gi1/0/1`` for ``GigabitEthernet1/0/1``)."""
    names = [ifname for dev, ifname in plan.plugs if dev == device]
    observed: dict[tuple[str, str], list[Heard]] = {}
    for local, found in driver.get_lldp_neighbors().items():
        port = local if local in names else next((n for n in names if same_port(n, local)), local)
        observed[(device, port)] = [Heard(n["hostname"], n["port"]) for n in found]
    return observed


def check_device(net: Network, device: str, target: Target,
                 ifnames_of: Callable[[CableEnd, Cable], list[str]] = intent_ports) -> list[CablingRow]:
    """The cables of ``device`` against what its ports hear; nothing is changed on it.
    ``ifnames_of``: how the devices name a cable's ports (the lab's stand-ins: eth<N>)."""
    plan = CablePlan(net, ifnames_of)
    driver = target.open()
    try:
        observed = read_neighbours(plan, device, driver)
    finally:
        driver.close()
    return judge_cabling(plan, observed, {device})
