"""What every part of the containerlab translation shares: images, names, mounts, results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from boothnet.lab.plan import LAB_PLATFORM
from boothnet.lab.spec import VlanMode
from boothnet.platforms import platforms

# Alpine, iproute2 included; no nftables, no strongSwan (capabilities.yml, frr_linux's containerlab image)
ROUTER_IMAGE: str = platforms()[LAB_PLATFORM].containerlab["image"]
HOST_IMAGE = "nicolaka/netshoot:v0.13"  # iproute2, iperf3, nftables; no nuttcp
CLAB_MGMT_IF = "eth0"  # containerlab's management interface in every container
CLAB_HOST_IF = "eth1"  # where a host's data interface goes instead
CONFIG_MOUNT = "/etc/boothnet"
DEFAULT_VLAN_MODE: VlanMode = "dot1q"
Kinds = Literal["vendor", "lab"]


@dataclass(frozen=True)
class Images:
    """The containers' images: the lab's routers (frr_linux), its hosts, and per platform an image
    for its vendor nodes, overriding capabilities.yml."""

    router: str = ROUTER_IMAGE
    host: str = HOST_IMAGE
    platform: Mapping[str, str] = field(default_factory=dict)
DEFAULT_KINDS: Kinds = "vendor"
SCHEMA_RELATIVE = Path("containerlab") / "clab.schema.json"

SHAPING = "shaping.sh"
# file in build/<network>/clab/configs/<node>/ -> where it is mounted in the container
BINDS: dict[str, str] = {
    "frr.conf": "/etc/frr/frr.conf",
    "daemons": "/etc/frr/daemons",
    "interfaces.ip": f"{CONFIG_MOUNT}/interfaces.ip",
    "nftables.nft": f"{CONFIG_MOUNT}/nftables.nft",
    "swanctl.conf": "/etc/swanctl/swanctl.conf",
    SHAPING: f"{CONFIG_MOUNT}/{SHAPING}",
}


class ClabInvalid(Exception):
    """Every problem of a generated topology, each as ``<JSON path>: <message>``."""

    def __init__(self, source: str, errors: list[str]):
        self.source, self.errors = source, errors
        super().__init__(self.summary())

    def summary(self) -> str:
        lines = [f"{self.source}: containerlab topology has {len(self.errors)} error(s):"]
        return "\n".join(lines + [f"  {e}" for e in self.errors])


class ClabUnsupported(Exception):
    """The intent cannot be translated with the chosen kinds (nothing written)."""


@dataclass
class ClabResult:
    network: str
    path: Path
    vlan_mode: VlanMode
    nodes: int
    links: int
    config_dir: Path
    findings: list[str] = field(default_factory=list)  # build findings (nothing written then)
    kinds: Kinds = DEFAULT_KINDS
    notes: list[str] = field(default_factory=list)  # limits of the kinds (also in the file header)


