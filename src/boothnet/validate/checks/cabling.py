"""Cabling: what each device's ports hear by LLDP, judged against the intent's cables
(``boothnet.booth.lldp``). In the lab each device's lldpd is asked (``boothnet.lab.lldp``); on a
floor each device's NAPALM ``get_lldp_neighbors``, as cabling-check reads it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from boothnet.booth.lldp import CablePlan, CablingRow, Heard, Observed, judge_cabling, wait_heard
from boothnet.intent.model import Network
from boothnet.lab import lab_ifnames, neighbours, ns_name, read_state
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks.base import Context, LiveCheck, Suspect


class Cabling(LiveCheck):
    name = section = field = "cabling"
    row_type = CablingRow
    order = 30
    title = "Cabling (LLDP)"
    header = ("verdict", "cable", "what the ends hear")
    empty = "no cables"
    alarm = "cause"
    alarm_rank = 20

    def measure(self, ctx: Context) -> list[CablingRow]:
        return run_cabling(ctx.net, ctx.access, ctx.progress)

    def subject(self, row: CablingRow) -> str:
        return f"cable {row.cable}"

    def message(self, row: CablingRow) -> str:
        return row.cause or "not where the intent says"

    def action(self, row: CablingRow) -> str:
        return (f"re-plug {row.label} as its label says ({row.cable.partition(' ')[2]})" if row.label != "-"
                else "unplug it, or add the cable to the intent")

    def key(self, row: CablingRow) -> str:
        return f"cabling {row.cable}"

    def cells(self, row: CablingRow) -> list[str]:
        return [row.verdict, row.cable, row.cause or "both ends see each other"]

    def suspect(self, row: CablingRow) -> Suspect | None:
        return None if row.verdict == "PASS" or row.label == "-" else Suspect(f"cabling: {row.cause}", label=row.label)


CHECK = Cabling()


def run_cabling(net: Network, access: Access, progress: Progress, timeout: float = 10
                ) -> list[CablingRow]:
    """Every device asked what each port hears, against the intent's cables. Hosts only announce
    themselves: it is the switches and routers that are asked."""
    if access.devices is not None:
        return _floor_cabling(net, access, progress)
    state = read_state(access.lab_dir) if access.lab_dir else None
    vlan_mode = state.vlan_mode if state else "segment"
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


def _floor_cabling(net: Network, access: Access, progress: Progress) -> list[CablingRow]:
    """Each device's NAPALM session asked, as cabling-check asks it; a device whose session did
    not open, or that cannot be read, gets an ERROR row naming it and why."""
    from boothnet.deploy.lldp import check_sessions

    devices = access.devices
    assert devices is not None
    opened = {name: devices.driver(name) for name in sorted(devices.sessions)}
    drivers = {d: driver for d, (driver, _) in opened.items() if driver is not None}
    rows = check_sessions(net, drivers, devices.port_names,
                          unreachable={d: why for d, (driver, why) in opened.items() if driver is None})
    rows = [row.model_copy(update={"verdict": Status.ERROR}) if row.label == "-" else row for row in rows]
    failed = sum(r.verdict != Status.PASS for r in rows)
    progress(f"cabling: {len(rows) - failed} of {len(rows)} cables where the intent says (NAPALM get_lldp_neighbors)")
    return rows
