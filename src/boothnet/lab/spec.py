"""What the netns lab builds: a flat, platform-free description of nodes and wires.

Produced from the derived model by ``boothnet.lab.plan`` (trunks already flattened to
per-VLAN wires in ``segment`` mode) and consumed by the netns runner. Nothing here
knows about vendors: in the lab every device is ``frr_linux``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

VlanMode = Literal["dot1q", "segment"]
NodeKind = Literal["router", "host"]


@dataclass(frozen=True)
class LabEnd:
    node: str
    ifname: str  # kernel name inside the node's namespace, at most 15 characters


@dataclass(frozen=True)
class LabLink:
    """A veth pair, shaped with htb to ``speed_mbps`` on both ends."""

    a: LabEnd
    b: LabEnd
    speed_mbps: int
    mtu: int
    label: str  # what the intent calls it, e.g. "core1:Gi1/0/49 -- rsw1:Ethernet49 vlan 110"
    # a WAN hop: a delay line (boothnet.lab.delayline) instead of a veth pair
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss_pct: float = 0.0

    @property
    def wan(self) -> bool:
        return bool(self.delay_ms or self.jitter_ms or self.loss_pct)


@dataclass(frozen=True)
class HostAddress:
    ifname: str
    address: str  # CIDR, e.g. "10.110.1.11/24"
    mtu: int
    gateway: str | None = None  # default route via this address
    mac: str | None = None  # the intent's MAC for the host's NIC; else the kernel's random one
    # a static IPv6 address (CIDR); a SLAAC host takes its own from the gateway's advertisements,
    # as any Linux host does, and every host its IPv6 default router from them
    address6: str | None = None


@dataclass
class LabNode:
    name: str
    kind: NodeKind
    mgmt_address: str  # CIDR on the management bridge, e.g. "198.18.0.11/24"
    # router: folder with the rendered frr_linux day-0 config
    # (interfaces.sh, frr.conf, nftables.nft, swanctl.conf when present)
    config_dir: str | None = None
    # host: addresses the lab itself configures (hosts are not managed devices)
    addresses: list[HostAddress] = field(default_factory=list)
    # extra routes for hosts: (prefix, via)
    routes: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class LabSpec:
    network: str
    vlan_mode: VlanMode
    mgmt_subnet: str  # e.g. "198.18.0.0/24"; the root-namespace bridge takes the first address
    nodes: list[LabNode]
    links: list[LabLink]
    # hardware port name -> lab ifname, per device, recorded beside the lab
    port_map: dict[str, dict[str, str]] = field(default_factory=dict)
    intent: str = ""  # the inventory folder the lab was planned from (its cabling is checked against it)
