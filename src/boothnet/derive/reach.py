"""Does every declared path have a route out and a route back in the derived configs?

Each device's forwarding table is what its model gives it: connected subnets, static routes, and
what OSPF brings (the networks, redistributed statics and default of every router it reaches
through the adjacencies the intent implies). A packet is followed hop by hop, through a VPN
gateway's tunnel where its crypto selectors match, until its destination is on a connected subnet.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network

from boothnet.derive.model import DeviceModel
from boothnet.errors import IntentError
from boothnet.intent import Network

MAX_HOPS = 32
_DEFAULT = IPv4Network("0.0.0.0/0")


@dataclass(frozen=True)
class Entry:
    prefix: IPv4Network
    via: str | None  # the next device; None: connected


@dataclass(frozen=True)
class Hop:
    device: str
    how: str = "first"  # first, routed, or tunnel (through the VPN from the previous hop)


class Tables:
    """Every device's forwarding table, from the derived models."""

    def __init__(self, models: dict[str, DeviceModel]):
        self.models = models
        self.owner = {i.address.ip: name for name, m in models.items() for i in m.interfaces if i.address}
        self.tables = {name: self._table(m) for name, m in models.items()}

    def _table(self, model: DeviceModel) -> list[Entry]:
        entries = [Entry(i.address.network, None) for i in model.interfaces if i.address]
        for route in model.routes:
            if isinstance(route.prefix, IPv4Network) and isinstance(route.next_hop, IPv4Address) \
                    and route.next_hop in self.owner:
                entries.append(Entry(route.prefix, self.owner[route.next_hop]))
        entries += self._ospf(model)
        return entries

    def _ospf(self, model: DeviceModel) -> list[Entry]:
        """What OSPF brings: each router reached through intended adjacencies, via the first hop."""
        if model.ospf is None or not model.ip_routing:
            return []
        first_hop: dict[str, str] = {}
        queue = deque([(model.name, "")])
        seen = {model.name}
        while queue:
            here, hop = queue.popleft()
            ospf = self.models[here].ospf
            for _iface, peer, _address in ospf.neighbors if ospf else []:
                peer_model = self.models.get(peer)
                if peer in seen or peer_model is None or peer_model.ospf is None or not peer_model.ip_routing:
                    continue
                seen.add(peer)
                first_hop[peer] = hop or peer
                queue.append((peer, hop or peer))
        entries = []
        for peer, via in first_hop.items():
            ospf = self.models[peer].ospf
            assert ospf is not None
            entries += [Entry(net, via) for net in [*ospf.networks, *ospf.redistribute]]
            if ospf.default_originate:
                entries.append(Entry(_DEFAULT, via))
        return entries

    def _tunnel(self, device: str, src: IPv4Address, dst: IPv4Address) -> str | None:
        """The VPN peer a packet goes to, encrypted, when the gateway's selectors match it."""
        vpn = self.models[device].vpn
        if vpn is None:
            return None
        if any(src in n for n in vpn.local_subnets) and any(dst in n for n in vpn.remote_subnets):
            return self.owner.get(vpn.remote_address)
        return None

    def walk(self, first: str, src: IPv4Address, dst: IPv4Address) -> tuple[list[Hop], str | None]:
        """The hops a packet from `src` entering at `first` takes towards `dst`, and why it stops
        short (None: it reaches `dst`'s subnet at the last hop)."""
        hops, here = [Hop(first)], first
        for _ in range(MAX_HOPS):
            table = self.tables[here]
            if any(dst in e.prefix and e.via is None for e in table):
                return hops, None
            tunnel = self._tunnel(here, src, dst)
            if tunnel is not None:
                here, how = tunnel, "tunnel"
            else:
                matches = [e for e in table if dst in e.prefix and e.via is not None]
                if not matches:
                    return hops, f"{here} has no route to {dst}"
                here, how = max(matches, key=lambda e: e.prefix.prefixlen).via, "routed"  # type: ignore[assignment]  # via is not None (filtered)
            if here in (h.device for h in hops):
                return hops, f"a loop: {' -> '.join([*(h.device for h in hops), here])}"
            hops.append(Hop(here, how))
        return hops, f"more than {MAX_HOPS} hops: {' -> '.join(h.device for h in hops)}"

    def trace(self, first: str, src: IPv4Address, dst: IPv4Address) -> str | None:
        """None when a packet from `src` entering at `first` reaches `dst`'s subnet, else why not."""
        return self.walk(first, src, dst)[1]

    def interface_toward(self, device: str, address: IPv4Address) -> str | None:
        """The interface of `device` whose connected subnet holds `address` (or, when none does,
        the one towards the next hop of its route there)."""
        model = self.models[device]
        for iface in model.interfaces:
            if iface.address is not None and address in iface.address.network:
                return iface.name
        routes = [e for e in self.tables[device] if address in e.prefix and e.via is not None]
        if not routes:
            return None
        via = max(routes, key=lambda e: e.prefix.prefixlen).via
        return next((i.name for i in model.interfaces if i.address is not None
                     and any(a in i.address.network for a, owner in self.owner.items() if owner == via)), None)

    def interface_to(self, device: str, peer: str) -> str | None:
        """The interface of `device` on a subnet it shares with `peer`."""
        peer_addresses = [a for a, owner in self.owner.items() if owner == peer]
        return next((i.name for i in self.models[device].interfaces if i.address is not None
                     and any(a in i.address.network for a in peer_addresses)), None)


def route_problems(net: Network, models: dict[str, DeviceModel]) -> list[IntentError]:
    """Each declared throughput path without a route there or back, naming the hop that has none."""
    tables = Tables(models)
    vlans = net.vlan_by_name()
    file = net.sources.get("throughput", "throughput.yml")
    problems = []
    for index, path in enumerate(net.throughput.paths):
        src, dst = net.endpoints.get(path.source), net.endpoints.get(path.destination)
        if src is None or dst is None or src.vlan == dst.vlan:
            continue
        for way, a, b in (("there", src, dst), ("back", dst, src)):
            why = tables.trace(vlans[a.vlan].gateway, a.address, b.address)
            if why:
                problems.append(IntentError(file, f"throughput.paths[{index}]", path.name, f"a route there and back "
                                            f"between {path.source} and {path.destination}: on the way {way}, {why}"))
    return problems
