"""Which cables a validation found at fault, for the diagram: cable label -> why it is red."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from boothnet.booth.cables import Cable, cable_plan
from boothnet.intent.model import Network
from boothnet.validate.checks import catalog
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
    for check in catalog():
        for row in check.rows(res):
            if (suspect := check.suspect(row)) is None:
                continue
            if suspect.label is not None:
                yield [c for c in cables.cables if c.label == suspect.label], suspect.why
            elif suspect.host is not None:
                if suspect.host in cables.by_host:
                    yield [cables.by_host[suspect.host]], suspect.why
            elif suspect.path:
                yield _on_path(cables, suspect.path, suspect.source, suspect.destination), suspect.why
            else:
                yield cables.between(suspect.source, suspect.destination), suspect.why
