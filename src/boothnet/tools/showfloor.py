"""A synthetic show-floor intent of N devices, for scale benchmarks (issue 8).

Layout: a core router (cisco_ios) uplinked to the show network (``show1``, frr_linux, not
managed), distribution switches (arista_eos) routed to the core with OSPF, and exhibitor
booth switches (a rotation of cisco_ios, arista_eos and frr_linux) each trunking a
production and a research (jumbo) VLAN up to its distribution switch, which is the VLAN
gateway. Each booth has its own policy rules (NOC ssh into research, research demo ports
into production, every tenth booth a collaboration with the next), followed by network-wide
zone rules. Everything is a pure function of the parameters: the same sizes give the same
bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path
from typing import Any

import yaml

from boothnet.platforms import platforms

PROD_BLOCK = IPv4Network("10.64.0.0/14")  # one /24 per booth
RESEARCH_BLOCK = IPv4Network("10.96.0.0/14")
P2P_BLOCK = IPv4Network("10.255.0.0/16")  # /30 per distribution uplink
SHOW_LINK = IPv4Network("192.0.2.0/30")
# Clear of the management subnets other labs and tests use (198.18.0/24, .1/24, .200/24, ...).
MGMT_BASE = IPv4Address("198.18.64.0")
MGMT_MAX_PREFIX = 20  # 198.18.64.0/20 at the widest
MGMT_FIRST_DEVICE = 10  # host offset of the first device (the lab bridge takes the first)
FIXED_DEVICES = ("core1", "show1")
BOOTH_PLATFORMS = ("cisco_ios", "arista_eos", "frr_linux")
FIRST_VLAN_ID = 100
ACCESS_PORTS = 24  # per VLAN kind on a booth switch: ports 1-24 production, 25-48 research
DEMO_PORTS = ((80, 443), (8080,), (443, 8443))
COLLAB_EVERY = 10


@dataclass(frozen=True)
class FloorSize:
    """How the N devices split into booths and distribution switches."""

    devices: int
    booths: int
    distribution: int
    hosts_per_vlan: int

    @property
    def endpoints(self) -> int:
        return self.booths * 2 * self.hosts_per_vlan

    @property
    def mgmt_subnet(self) -> IPv4Network:
        """The smallest subnet at MGMT_BASE holding every device and every lab host."""
        needed = MGMT_FIRST_DEVICE + self.devices + self.endpoints + 2  # + network and broadcast
        prefix = min(24, 32 - math.ceil(math.log2(needed)))
        if prefix < MGMT_MAX_PREFIX:
            raise ValueError(
                f"{self.devices} devices and {self.endpoints} hosts do not fit {MGMT_BASE}/{MGMT_MAX_PREFIX}; "
                "use fewer devices or hosts per VLAN"
            )
        return IPv4Network(f"{MGMT_BASE}/{prefix}")


def floor_size(devices: int, booths_per_dist: int = 24, hosts_per_vlan: int = 2) -> FloorSize:
    """Exactly `devices` devices: core, show router, distribution switches and booths."""
    if not 1 <= booths_per_dist <= 48:
        raise ValueError("booths_per_dist: 1-48 (downlink ports on a distribution switch)")
    if not 0 <= hosts_per_vlan <= ACCESS_PORTS:
        raise ValueError(f"hosts_per_vlan: 0-{ACCESS_PORTS} (access ports per VLAN on a booth switch)")
    rest = devices - len(FIXED_DEVICES)
    if rest < 2:
        raise ValueError(f"a show floor needs at least {len(FIXED_DEVICES) + 2} devices")
    dist = math.ceil(rest / (booths_per_dist + 1))
    size = FloorSize(devices, rest - dist, dist, hosts_per_vlan)
    if 2 * size.booths > len(_vlan_ids(2 * size.booths)):
        raise ValueError(f"{size.booths} booths need more VLAN IDs than 802.1Q has")
    size.mgmt_subnet  # noqa: B018 - raises when the floor does not fit the management range
    return size


def _vlan_ids(count: int) -> list[int]:
    """Sequential IDs from FIRST_VLAN_ID, skipping every platform's reserved VLANs."""
    reserved = set().union(*(p.reserved_vlans for p in platforms().values()))
    return [vid for vid in range(FIRST_VLAN_ID, 4095) if vid not in reserved][:count]


def _nth(block: IPv4Network, prefixlen: int, index: int) -> IPv4Network:
    size = 2 ** (32 - prefixlen)
    if (index + 1) * size > block.num_addresses:
        raise ValueError(f"{block} has no subnet /{prefixlen} number {index}")
    return IPv4Network((int(block.network_address) + index * size, prefixlen))


_PORTS = {
    # platform: (access port name pattern, uplink port name)
    "cisco_ios": ("GigabitEthernet1/0/{}", "TenGigabitEthernet1/1/1"),
    "arista_eos": ("Ethernet{}", "Ethernet49"),
    "frr_linux": ("eth{}", "eth49"),
}


def _range(pattern: str, first: int, last: int) -> str:
    return pattern.format(f"{{{first}-{last}}}")


@dataclass
class _Floor:
    size: FloorSize
    name: str

    def __post_init__(self) -> None:
        width = max(3, len(str(self.size.booths)))
        self.booths = [f"booth{i + 1:0{width}d}" for i in range(self.size.booths)]
        self.dists = [f"dist{d + 1:02d}" for d in range(self.size.distribution)]
        ids = _vlan_ids(2 * self.size.booths)
        self.vlan_ids = {b: (ids[2 * i], ids[2 * i + 1]) for i, b in enumerate(self.booths)}
        self.mgmt = self.size.mgmt_subnet
        self.host_vars: dict[str, dict[str, Any]] = {}
        self.endpoints: dict[str, dict[str, Any]] = {}
        self.vlans: list[dict[str, Any]] = []
        self.links: list[dict[str, Any]] = []
        self.rules: list[dict[str, Any]] = []

    def mgmt_address(self, index: int) -> str:
        return str(self.mgmt.network_address + MGMT_FIRST_DEVICE + index)

    def dist_of(self, booth_index: int) -> tuple[int, int]:
        """(distribution switch, its downlink port) of a booth: round robin, ports from 1."""
        return booth_index % self.size.distribution, booth_index // self.size.distribution + 1

    def build(self) -> None:
        self._core_and_show()
        for d, dist in enumerate(self.dists):
            self._distribution(d, dist)
        for i, booth in enumerate(self.booths):
            self._booth(i, booth)
        self._policy()

    def _core_and_show(self) -> None:
        d = self.size.distribution
        self.host_vars["core1"] = {
            "role": "core_switch",
            "platform": "cisco_ios",
            "mgmt_address": self.mgmt_address(0),
            "router_id": "10.255.255.1",
            "ports": [
                {"name": "GigabitEthernet1/0/1", "speed": 1000},
                {"name": _range("TenGigabitEthernet1/1/{}", 1, d), "speed": 10000, "mtu": 9000},
            ],
        }
        self.host_vars["show1"] = {
            "role": "show_network",
            "platform": "frr_linux",
            "managed": False,
            "mgmt_address": self.mgmt_address(1),
            "router_id": "192.0.2.255",
            "ports": [{"name": "eth1", "speed": 1000}],
        }
        show, core = list(SHOW_LINK.hosts())
        self.links.append({
            "a": "core1:GigabitEthernet1/0/1", "b": "show1:eth1", "mode": "routed", "speed": 1000, "mtu": 1500,
            "addresses": {"a": f"{core}/{SHOW_LINK.prefixlen}", "b": f"{show}/{SHOW_LINK.prefixlen}"},
        })

    def _distribution(self, d: int, dist: str) -> None:
        self.host_vars[dist] = {
            "role": "access_switch",
            "platform": "arista_eos",
            "mgmt_address": self.mgmt_address(len(FIXED_DEVICES) + d),
            "router_id": f"10.255.254.{d + 1}" if d < 254 else f"10.255.253.{d - 253}",
            "ports": [
                {"name": "Ethernet{1-48}", "speed": 10000, "mtu": 9000},
                {"name": "Ethernet49", "speed": 10000, "mtu": 9000},
            ],
        }
        p2p = _nth(P2P_BLOCK, 30, d)
        core_ip, dist_ip = list(p2p.hosts())
        self.links.append({
            "a": f"core1:TenGigabitEthernet1/1/{d + 1}", "b": f"{dist}:Ethernet49", "mode": "routed",
            "speed": 10000, "mtu": 9000,
            "addresses": {"a": f"{core_ip}/30", "b": f"{dist_ip}/30"},
        })

    def _booth(self, i: int, booth: str) -> None:
        platform = BOOTH_PLATFORMS[i % len(BOOTH_PLATFORMS)]
        access, uplink = _PORTS[platform]
        d, port = self.dist_of(i)
        dist = self.dists[d]
        self.host_vars[booth] = {
            "role": "access_switch",
            "platform": platform,
            "mgmt_address": self.mgmt_address(len(FIXED_DEVICES) + self.size.distribution + i),
            "ports": [
                {"name": _range(access, 1, ACCESS_PORTS), "speed": 1000},
                {"name": _range(access, ACCESS_PORTS + 1, 2 * ACCESS_PORTS), "speed": 1000, "mtu": 9000},
                {"name": uplink, "speed": 10000, "mtu": 9000},
            ],
        }
        prod_id, res_id = self.vlan_ids[booth]
        kinds = (
            ("prod", prod_id, "production", _nth(PROD_BLOCK, 24, i), 1500, 1, "host"),
            ("res", res_id, "research", _nth(RESEARCH_BLOCK, 24, i), 9000, ACCESS_PORTS + 1, "cluster"),
        )
        for suffix, vid, zone, subnet, mtu, first_port, role in kinds:
            vlan = f"{booth}-{suffix}"
            self.vlans.append(
                {"id": vid, "name": vlan, "zone": zone, "subnet": str(subnet), "gateway": dist, "mtu": mtu}
            )
            for h in range(self.size.hosts_per_vlan):
                # research: cluster nodes, the last one the file server they measure against
                last = h == self.size.hosts_per_vlan - 1 and h > 0
                self.endpoints[f"{booth}-{suffix}{h + 1}"] = {
                    "vlan": vlan,
                    "address": str(subnet.network_address + 11 + h),
                    "attach": f"{booth}:{access.format(first_port + h)}",
                    "role": "fileserver" if role == "cluster" and last else role,
                }
        self.links.append({
            "a": f"{dist}:Ethernet{port}", "b": f"{booth}:{uplink}", "mode": "trunk", "speed": 10000, "mtu": 9000,
            "vlans": [prod_id, res_id],
        })

    def _policy(self) -> None:
        for i, booth in enumerate(self.booths):
            prod, res = f"vlan:{booth}-prod", f"vlan:{booth}-res"
            self.rules += [
                {"name": f"{booth}-noc-ssh", "from": prod, "to": res, "proto": "tcp", "ports": [22],
                 "action": "permit"},
                {"name": f"{booth}-demo", "from": res, "to": prod, "proto": "tcp",
                 "ports": list(DEMO_PORTS[i % len(DEMO_PORTS)]), "action": "permit"},
            ]
            if i % COLLAB_EVERY == 0 and i + 1 < len(self.booths):
                self.rules.append({
                    "name": f"{booth}-collab", "from": res, "to": f"vlan:{self.booths[i + 1]}-res", "proto": "tcp",
                    "ports": [2049, 5201], "action": "permit",
                })
        self.rules += [
            {"name": "research-not-to-production", "from": "zone:research", "to": "zone:production",
             "action": "deny"},
            {"name": "production-to-show", "from": "zone:production", "to": "zone:outside", "action": "permit"},
            {"name": "research-to-show", "from": "zone:research", "to": "zone:outside", "action": "permit"},
            {"name": "ping-anywhere", "from": "any", "to": "any", "proto": "icmp", "action": "permit"},
        ]

    def files(self) -> dict[str, Any]:
        """Inventory-relative path -> YAML data."""
        devices = ["core1", "show1", *self.dists, *self.booths]
        out: dict[str, Any] = {
            "hosts.yml": {
                "all": {
                    "children": {
                        "network_devices": {"hosts": {name: None for name in devices}},
                        "endpoints": {"hosts": self.endpoints},
                    }
                }
            },
            "group_vars/all/network.yml": {
                "network": {
                    "name": self.name,
                    "description": f"Synthetic show floor: {self.size.booths} booths, "
                    f"{self.size.distribution} distribution switches, a core",
                    "mgmt_subnet": str(self.mgmt),
                    "ospf": {"area": 0, "hello": 1, "dead": 4},
                },
                "mtu_policy": {"default": 1500, "jumbo": 9000, "crypto_inner": 8950},
                "uplink": {"device": "core1", "next_hop": str(next(SHOW_LINK.hosts()))},
            },
            "group_vars/all/vlans.yml": {"vlans": self.vlans},
            "group_vars/all/links.yml": {"links": self.links},
            "group_vars/all/policy.yml": {"policy": {"default_action": "deny", "rules": self.rules}},
        }
        out.update({f"host_vars/{name}.yml": self.host_vars[name] for name in devices})
        return out


def showfloor_files(size: FloorSize, name: str) -> dict[str, Any]:
    """The inventory of a show floor as {relative path: YAML data}."""
    floor = _Floor(size, name)
    floor.build()
    return floor.files()


def write_showfloor(out_dir: Path, size: FloorSize, name: str) -> list[Path]:
    """Write the inventory under `out_dir`, replacing an earlier one; returns the files."""
    out_dir = Path(out_dir)
    for stale in sorted(out_dir.rglob("*.yml")) if out_dir.exists() else []:
        stale.unlink()
    written = []
    for relative, data in showfloor_files(size, name).items():
        path = out_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        header = f"---\n# generated by boothnet gen-showfloor ({size.devices} devices); do not edit\n"
        path.write_text(header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=160))
        written.append(path)
    return written
