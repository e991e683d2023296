"""The WAN RTT probes: DF ping series across each WAN link (from its first end's router) and
along each declared WAN path (from its source host), small and at the MTU, each judged against
the round trip the intent declares (judge_rtt, a pure function of ping's output)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from boothnet.intent.model import Link, Network
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.perf.probes import IPV4_ICMP_HEADERS, IPV6_ICMP_HEADERS
from boothnet.validate.perf.runner import Runner
from boothnet.validate.perf.schema import RttRow
from boothnet.validate.perf.wan_path import RTT_TOLERANCE_MS, WanPath

_RTT_LINE = re.compile(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")
_LOSS_LINE = re.compile(r"([\d.]+)% packet loss")


@dataclass(frozen=True)
class RttProbe:
    """One DF ping series: its row's names (``what``: the link or path; its two ends), the address
    pinged with ``payload`` bytes, and the round trip declared with the tolerance it gets."""

    what: str
    source: str
    destination: str
    address: str
    payload: int
    declared_ms: float
    tolerance_ms: float
    count: int = 10

    @property
    def argv(self) -> list[str]:
        return ["ping", "-n", "-M", "do", "-c", str(self.count), "-i", "0.2", "-W", "2", "-s", str(self.payload),
                self.address]


def rtt_probe(runner: Runner, ns: str, probe: RttProbe) -> RttRow:
    """``probe``'s pings from ``ns``, judged (judge_rtt)."""
    return judge_rtt(probe, runner(ns, probe.argv, probe.count * 0.2 + 10).output)


def judge_rtt(probe: RttProbe, output: str) -> RttRow:
    """The verdict of a ping series (``output``: ping's) compares the fastest with the declared
    RTT. A delay line or a WAN only adds to a path's own delay (queues, a busy machine's late
    wakeups: 52.1 ms mean, 55.6 max on a 50 ms line beside two other workers), so the fastest is
    the path's delay; the mean and max are shown beside it."""
    m = _RTT_LINE.search(output)
    lost = _LOSS_LINE.search(output)
    declared_ms, tolerance_ms = probe.declared_ms, probe.tolerance_ms
    row = RttRow(path=probe.what, source=probe.source, destination=probe.destination, payload=probe.payload,
                 declared_ms=declared_ms, tolerance_ms=round(tolerance_ms, 2), verdict=Status.FAIL,
                 loss_pct=float(lost.group(1)) if lost else None)
    if m is None:
        return row.model_copy(update={"cause": f"no reply: {' '.join(output.strip().splitlines()[-1:])}"})
    low, mean, high = (float(m.group(i)) for i in (1, 2, 3))
    ok = abs(low - declared_ms) <= tolerance_ms
    return row.model_copy(update={
        "min_ms": low, "avg_ms": mean, "max_ms": high, "verdict": Status.of(ok),
        "cause": None if ok else
        f"fastest {low:.1f} ms (mean {mean:.1f}), declared {declared_ms:g} ms +- {tolerance_ms:.2f}"})


def wan_links(net: Network) -> list[Link]:
    """The WAN links a router pings across (its first end, to the second end's address)."""
    return [link for link in net.links if link.wan and link.addresses is not None]


def link_rtt_probe(runner: Runner, ns: str, link: Link, payload: int, count: int = 10, family: int = 4) -> RttRow:
    """``link``'s round trip from its first end, in ``family``: 2 x delay_ms within RTT_TOLERANCE_MS
    and twice the jitter."""
    addresses = link.addresses if family == 4 else link.addresses6
    assert addresses is not None
    row = rtt_probe(runner, ns, RttProbe(
        f"link {link.key}{' (IPv6)' if family == 6 else ''}", link.a, link.b, str(addresses.b.ip), payload,
        2 * link.delay_ms, RTT_TOLERANCE_MS + 2 * link.jitter_ms, count))
    return row.model_copy(update={"family": family})


def link_families(link: Link) -> list[int]:
    """The IP versions ``link``'s ends have addresses in."""
    return [family for family, addresses in ((4, link.addresses), (6, link.addresses6)) if addresses]


def path_rtt_probe(runner: Runner, ns: str, path: WanPath, payload: int, what: str = "", count: int = 10) -> RttRow:
    """``path``'s round trip from its source host (``what``: the row's name, default the path's)."""
    row = rtt_probe(runner, ns, RttProbe(what or path.name, path.source.name, path.destination.name, path.address,
                                         payload, path.rtt_ms, path.rtt_tolerance_ms, count))
    return row.model_copy(update={"family": path.family})


def probe_wan_links(net: Network, runner: Runner, ns: Callable[[str], str],
                    progress: Progress, has_shell: Callable[[str], bool] = lambda _: True
                    ) -> list[RttRow]:
    """Every WAN link on its own, end to end (the first end's router pings the second's address):
    the delay line's round trip, 2 x delay_ms within RTT_TOLERANCE_MS and twice the jitter. A
    router without a shell (IOS, EOS on a floor) is left out, said in the progress."""
    rows = []
    for link in wan_links(net):
        router = link.a.split(":", 1)[0]
        if not has_shell(router):
            progress(f"[wan] link {link.key}: not probed ({router} answers NAPALM only)")
            continue
        mtu = link.mtu or net.port_index[link.a].mtu or net.mtu_policy.default
        for family in link_families(link):
            for payload in (56, mtu - (IPV6_ICMP_HEADERS if family == 6 else IPV4_ICMP_HEADERS)):
                rows.append(link_rtt_probe(runner, ns(router), link, payload, family=family))
                progress(f"[wan] {rows[-1].path}: RTT {payload} B {rows[-1].avg_ms or 0:.1f} ms "
                         f"(declared {rows[-1].declared_ms:g}) {rows[-1].verdict}")
    return rows

