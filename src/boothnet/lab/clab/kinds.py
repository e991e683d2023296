"""containerlab kinds per platform (capabilities.yml), their port names, their limits."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import count

from boothnet.derive.build import quirks
from boothnet.intent import Network
from boothnet.lab.spec import LabEnd, LabSpec
from boothnet.platforms import platforms

# --- kinds -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ClabKind:
    """A platform's ``containerlab:`` block in capabilities.yml."""

    platform: str
    kind: str
    image: str
    type: str | None = None
    interface: str | None = None  # what the NOS calls container port eth<N>; None: ports keep their names
    ports_per_slot: int = 0  # IOL: eth<N> is Ethernet<N // 4>/<N % 4>
    mgmt_interface: str | None = None  # the platform's management interface in the container
    startup_config: str | None = None  # file name, "{device}" filled in
    startup_append: tuple[str, ...] = ()  # lines added before the config's final `end`
    max_mtu: int | None = None  # largest interface MTU the kind carries

    @property
    def vendor(self) -> bool:
        return self.interface is not None

    def nos_name(self, n: int) -> str:
        """The NOS interface behind container port ``eth<n>``."""
        assert self.interface is not None
        if self.ports_per_slot:
            return self.interface.format(n=n, slot=n // self.ports_per_slot, port=n % self.ports_per_slot)
        return self.interface.format(n=n)

    def number(self, name: str) -> int | None:
        """``eth<N>``'s N for a name already in the NOS's form (``Ethernet7`` -> 7), else None."""
        if self.interface is None:
            return None
        pattern = re.escape(self.interface)
        for part in ("n", "slot", "port"):
            pattern = pattern.replace(re.escape(f"{{{part}}}"), f"(?P<{part}>\\d+)")
        m = re.fullmatch(pattern, name)
        if m is None:
            return None
        if "n" in m.groupdict():
            return int(m["n"])
        slot, port = int(m["slot"]), int(m["port"])
        return slot * self.ports_per_slot + port if port < self.ports_per_slot else None


def clab_kinds() -> dict[str, ClabKind]:
    """platform -> its containerlab kind, from capabilities.yml."""
    kinds: dict[str, ClabKind] = {}
    for name, platform in platforms().items():
        data = dict(platform.containerlab)
        if not data:
            continue
        data["startup_append"] = tuple(data.get("startup_append", ()))
        kinds[name] = ClabKind(platform=name, **data)
    return kinds


def _used_ports(net: Network) -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    refs = [ref for link in net.links for ref in (link.a, link.b)] + [e.attach for e in net.endpoints.values()]
    for ref in refs:
        device, port = ref.split(":", 1)
        used.setdefault(device, set()).add(port)
    return used


PortMap = dict[str, dict[str, str]]  # device -> intent port -> name


def vendor_ports(net: Network, kinds: dict[str, ClabKind]) -> tuple[PortMap, PortMap]:
    """Per vendor-kind device: (intent port -> NOS name, for the config; intent port -> eth<N>,
    for the links). Only cabled ports, in declaration order; a port already named as the NOS
    names it (cEOS ``Ethernet7``) keeps its number, the others take the lowest free ones. The
    management interface maps to the kind's (IOL-L2 ``Vlan999``, cEOS ``Management0``)."""
    used = _used_ports(net)
    names: dict[str, dict[str, str]] = {}
    ends: dict[str, dict[str, str]] = {}
    for name, device in sorted(net.devices.items()):
        kind = kinds[device.platform]
        if not kind.vendor:
            continue
        ports = [p.name for p in device.ports if p.name in used.get(name, set())]
        numbers: dict[str, int] = {}
        for port in ports:
            n = kind.number(port)
            if n is not None and n >= 1 and n not in numbers.values():
                numbers[port] = n
        taken = set(numbers.values())
        free = (n for n in count(1) if n not in taken)
        for port in ports:
            numbers.setdefault(port, next(free))
        names[name] = {port: kind.nos_name(numbers[port]) for port in ports}
        if kind.mgmt_interface:
            names[name][quirks(device.platform).mgmt_interface()] = kind.mgmt_interface
        ends[name] = {port: f"eth{numbers[port]}" for port in ports}
    return names, ends


# --- schema ----------------------------------------------------------------------------




def _vendor_spec(spec: LabSpec, ends: dict[str, dict[str, str]], names: dict[str, dict[str, str]]) -> LabSpec:
    """The lab spec with vendor nodes' link ends on their containerlab ports (eth<N>)."""
    intent_port = {dev: {lab: port for port, lab in ports.items()} for dev, ports in spec.port_map.items()}

    def end(e: LabEnd) -> LabEnd:
        return LabEnd(e.node, ends[e.node][intent_port[e.node][e.ifname]]) if e.node in ends else e

    links = [replace(link, a=end(link.a), b=end(link.b)) for link in spec.links]
    return replace(spec, links=links, port_map=names)


def mtu_limits(spec: LabSpec, vendor: dict[str, tuple[ClabKind, str]]) -> list[str]:
    """Vendor nodes whose kind carries less than the intent MTU of some of their links."""
    notes = []
    for node, (kind, _) in sorted(vendor.items()):
        if kind.max_mtu is None:
            continue
        over = [link for link in spec.links if node in (link.a.node, link.b.node) and link.mtu > kind.max_mtu]
        if over:
            notes.append(
                f"{node} ({kind.kind}) carries at most {kind.max_mtu} bytes per interface; "
                f"{len(over)} of its links have intent MTU up to {max(link.mtu for link in over)}: "
                "paths through it stop at that limit (MTU tests: --kinds lab or hardware)"
            )
    return notes


def _with_append(config: str, lines: tuple[str, ...]) -> str:
    """``lines`` before the config's final ``end`` (or at its end)."""
    if not lines:
        return config
    body = config.splitlines()
    at = max((i for i, line in enumerate(body) if line.strip() == "end"), default=len(body))
    return "\n".join(body[:at] + list(lines) + body[at:]) + "\n"


