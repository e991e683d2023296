"""Paths several checks start from: each VLAN's first host (production's probes), and the show
network's next hop north-south from every booth VLAN the policy lets out (convergence waits on
it)."""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network

from boothnet.derive.policy import compiler_of, policy_decision
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.validate.plan import host_prefix


def first_hosts(net: Network) -> dict[str, Endpoint]:
    """Each VLAN's first endpoint by name: the one a per-VLAN probe starts from."""
    firsts: dict[str, Endpoint] = {}
    for endpoint in sorted(net.endpoints.values(), key=lambda e: e.name):
        firsts.setdefault(endpoint.vlan, endpoint)
    return firsts


@dataclass(frozen=True)
class NorthSouth:
    src: Endpoint
    address: IPv4Address
    label: str


def north_south(net: Network) -> list[NorthSouth]:
    """The show network's next hop (the intent's uplink), from the first host of every booth VLAN
    whose traffic the policy lets out to it."""
    if net.uplink is None:
        return []
    compiler = compiler_of(net)
    vlans = net.vlan_by_name()
    target = net.uplink.next_hop
    out = []
    for vlan_name, host in sorted(first_hosts(net).items()):
        decided = policy_decision(compiler, vlans[vlan_name], host_prefix(host), IPv4Network(f"{target}/32"), "icmp")
        if decided[0] == "permit":
            out.append(NorthSouth(host, target, f"{host.name} ({vlan_name}) -> show network {target} "
                                                f"(uplink {net.uplink.device})"))
    return out
