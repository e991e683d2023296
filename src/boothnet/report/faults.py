"""Which cables a validation found at fault, for the diagram: cable label -> why it is red."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from boothnet.booth.cables import Cable, cable_plan
from boothnet.intent.model import Network
from boothnet.report.summary import throughput_message, throughput_status, throughput_subject
from boothnet.validate.results import ValidationResults


class _Cables:
    def __init__(self, net: Network) -> None:
        self.net = net
        self.cables = cable_plan(net)
        self.by_link = {frozenset((c.a.ref, c.b.ref)): c for c in self.cables if c.kind == "link"}
        self.by_host = {c.b.device: c for c in self.cables if c.kind == "endpoint"}
        self.names = {str(e.address): name for name, e in net.endpoints.items()}  # tools may name an address

    def between(self, source: str, destination: str) -> list[Cable]:
        """The cables a test from one endpoint or device to another crosses."""
        source, destination = (self.names.get(n, n) for n in (source, destination))
        ends = [self.net.endpoints.get(n) for n in (source, destination)]
        devices = [e.attach.split(":", 1)[0] if e else n for e, n in zip(ends, (source, destination), strict=True)]
        if not all(d in self.net.devices for d in devices):
            return []
        hops = self.net.links_between(*devices)
        cables = [self.by_link[frozenset((link.a, link.b))] for link in hops]
        return [self.by_host[e.name] for e in ends if e] + cables

    def named(self, text: str) -> Cable | None:
        """The cable a row names as ``a -- b`` (a link, or a host and its port)."""
        a, sep, b = text.removeprefix("link ").partition(" -- ")
        if not sep:
            return None
        return self.by_link.get(frozenset((a.strip(), b.strip()))) or self.by_host.get(a.strip())


def cable_faults(net: Network, res: ValidationResults) -> dict[str, list[str]]:
    """Cable label -> why each failed row suspects it (a cable named by its path, else those
    between the row's two ends)."""
    cables = _Cables(net)
    faults: dict[str, list[str]] = defaultdict(list)
    for found, why in _suspects(cables, res):
        for cable in found:
            if why not in faults[cable.label]:
                faults[cable.label].append(why)
    return dict(faults)


def _on_path(cables: _Cables, path: str, source: str, destination: str) -> list[Cable]:
    named = cables.named(path)
    return [named] if named else cables.between(source, destination)


def _suspects(cables: _Cables, res: ValidationResults) -> Iterator[tuple[list[Cable], str]]:
    yield from (([c for c in cables.cables if c.label == row.label], f"cabling: {row.cause}")
                for row in res.cabling if row.verdict != "PASS" and row.label != "-")
    yield from (([cables.by_host[e.host]], f"endpoint {e.host}: {e.cause}")
                for e in res.endpoints if e.verdict == "FAIL" and e.host in cables.by_host)
    yield from ((_on_path(cables, m.path, m.source, m.destination), f"MTU {m.mtu} {m.path}: {m.cause}")
                for m in res.mtu if m.verdict == "FAIL")
    yield from ((cables.between(r.source, r.destination), f"{throughput_subject(r)}: {throughput_message(r)}")
                for r in res.throughput if throughput_status(r) == "FAIL")
    yield from ((_on_path(cables, p.path, p.source, p.destination), f"RTT {p.path}: {p.cause}")
                for p in res.rtt if p.verdict == "FAIL")
