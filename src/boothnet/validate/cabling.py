"""The cabling stage in the lab: each device's lldpd (``boothnet.lab.lldp``) asked what its ports
hear, judged against the intent's cables (``boothnet.booth.lldp``)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from boothnet.booth.lldp import CablePlan, CablingRow, Heard, Observed, judge_cabling, wait_heard
from boothnet.intent.model import Network
from boothnet.lab.lldp import lab_ifnames, neighbours
from boothnet.lab.names import ns_name
from boothnet.status import Status


def run_cabling(net: Network, vlan_mode: str, progress: Callable[[str], None], timeout: float = 10
                ) -> list[CablingRow]:
    """Every lab device's lldpd asked what each port hears, against the intent's cables. Hosts
    only announce themselves: on the floor too it is the switches that are asked."""
    plan = CablePlan(net, lab_ifnames(net, vlan_mode))
    devices = sorted(net.devices)
    unreadable: dict[str, str] = {}  # device -> why its LLDP could not be read

    def ask(device: str) -> dict[str, list[Heard]]:
        try:
            heard = neighbours(ns_name(net.name, device))
        except RuntimeError as exc:  # lldpd dead or not answering: that device's rows, not the run
            unreadable[device] = str(exc)
            return {}
        unreadable.pop(device, None)
        return heard

    def read() -> Observed:
        with ThreadPoolExecutor(max_workers=8) as pool:
            heard = dict(zip(devices, pool.map(ask, devices), strict=True))
        return {(device, ifname): found for device, per_port in heard.items() for ifname, found in per_port.items()}

    observed = wait_heard(read, {key for key in plan.plugs if key[0] in net.devices}, timeout, progress)
    rows = judge_cabling(plan, observed, set(devices) - set(unreadable))
    rows += [CablingRow(label="-", cable=f"every cable of {device}", verdict=Status.ERROR, device=device,
                        cause=f"{device}'s LLDP neighbours could not be read: {why}")
             for device, why in sorted(unreadable.items())]
    failed = sum(r.verdict != Status.PASS for r in rows)
    progress(f"cabling: {len(rows) - failed} of {len(rows)} cables where the intent says")
    return rows
