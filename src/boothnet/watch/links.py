"""Each cable's counters from its devices' interfaces, its rate since the previous round against its
declared speed, and the checks they feed: a link down, errors growing."""

from __future__ import annotations

import time
from dataclasses import replace

from boothnet.booth.cables import cable_plan
from boothnet.deploy.batch import in_parallel
from boothnet.deploy.counters import PortCounters
from boothnet.intent.model import Network
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.counters import cable_wires, read_ports
from boothnet.watch.model import Check, WireSample

# watch's own check (every round, beside the catalog's): its stage, and its two alarm sections
LINKS, LINK, ERRORS = "links", "link", "errors"


def sample_cables(net: Network, access: Access) -> list[WireSample]:
    """Every wire of every cable, read once from each device (a host's end is never read: its
    switch port says the same)."""
    cables = cable_plan(net)
    wires = {c.label: cable_wires(net, access, c) for c in cables}
    devices = sorted({d for ws in wires.values() for w in ws for d, _ in (w.a, w.b) if d in net.devices})
    read = dict(zip(devices, in_parallel(devices, lambda d: read_ports(access, d, link_state=True)), strict=True))
    read_at = time.time()
    samples = []
    for cable in cables:
        for w in wires[cable.label]:
            ends: list[tuple[str, str, PortCounters]] = []
            why = []
            for device, ifname in (w.a, w.b):
                if device not in net.devices:
                    continue
                ports = read[device]
                if isinstance(ports, str):
                    why.append(ports)
                elif ifname not in ports:
                    why.append(f"{device} has no interface {ifname}")
                else:
                    ends.append((device, ifname, ports[ifname]))
            sample = WireSample(cable.label, cable.text, w.name, cable.speed * 1e6, read_at=read_at)
            if not ends:
                samples.append(replace(sample, error="; ".join(why)))
                continue
            device, _, c = ends[0]
            a_side = device == w.a[0]
            states = [e for e in ends if e[2].up is not None]
            samples.append(replace(
                sample,
                a_to_b_octets=c.tx_octets if a_side else c.rx_octets,
                b_to_a_octets=c.rx_octets if a_side else c.tx_octets,
                errors=sum(e[2].rx_errors + e[2].tx_errors for e in ends),
                discards=sum(e[2].rx_discards + e[2].tx_discards for e in ends),
                up=all(e[2].up for e in states) if states else None,
                down_at=", ".join(f"{d} {i}" for d, i, p in states if not p.up)))
    return samples


def _delta(now: int | None, before: int | None) -> int | None:
    """None across a counter reset (a device rebooted) or a missing reading."""
    return None if now is None or before is None or now < before else now - before


def with_rates(samples: list[WireSample], previous: dict[str, WireSample]) -> list[WireSample]:
    """Each wire's rates and new errors since its sample of the previous round."""
    out = []
    for s in samples:
        before = previous.get(s.wire)
        span = s.read_at - before.read_at if before else 0.0
        if before is None or span <= 0:
            out.append(s)
            continue
        sent, received = _delta(s.a_to_b_octets, before.a_to_b_octets), _delta(s.b_to_a_octets, before.b_to_a_octets)
        out.append(replace(s, a_to_b_bps=None if sent is None else sent * 8 / span,
                           b_to_a_bps=None if received is None else received * 8 / span,
                           new_errors=_delta(s.errors, before.errors),
                           new_discards=_delta(s.discards, before.discards)))
    return out


def link_checks(samples: list[WireSample]) -> list[Check]:
    """Per cable: its link down (FAIL), its counters unreadable (ERROR), errors counted since the
    previous round (FAIL)."""
    checks = []
    by_cable: dict[str, list[WireSample]] = {}
    for s in samples:
        by_cable.setdefault(s.cable, []).append(s)
    for label, wires in by_cable.items():
        text = wires[0].text
        ends = text.partition(" ")[2]
        subject = f"cable {text}"
        if unread := [w for w in wires if w.error]:
            checks.append(Check(f"{LINK}: {subject}", LINK, subject, Status.ERROR,
                                f"counters not read: {unread[0].error}",
                                "reach the devices of this cable (is the management network up?)"))
        elif down := [w for w in wires if w.up is False]:
            checks.append(Check(f"{LINK}: {subject}", LINK, subject, Status.FAIL,
                                f"link down at {', '.join(sorted({w.down_at for w in down}))}",
                                f"plug {label} back in as its label says ({ends}); if it is in, change the "
                                "cable or the optic"))
        if errors := sum(w.new_errors or 0 for w in wires):
            checks.append(Check(f"{ERRORS}: {subject}", ERRORS, subject, Status.FAIL,
                                f"{errors} frame errors since the previous round",
                                f"change the cable or optic of {label}; check both ends' speed and duplex"))
    return checks
