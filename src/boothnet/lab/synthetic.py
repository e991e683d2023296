"""A synthetic LabSpec of about ``n`` nodes shaped like a booth network: a ring of routers
(OSPF, short timers), each with several VLAN segments (a bridge per VLAN) of three hosts
at MTU 9000. Used by bench/lab_updown.py before a real intent is at hand."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator
from pathlib import Path

from boothnet.lab.spec import HostAddress, LabEnd, LabLink, LabNode, LabSpec

HOSTS_PER_VLAN = 3


def _router(i: int, name: str, cdir: Path, iface: list[str], ospf: list[str], passive: list[str],
            mgmt_address: str) -> LabNode:
    """A router node with its interfaces.ip and frr.conf written to *cdir*."""
    cdir.mkdir(parents=True, exist_ok=True)
    (cdir / "interfaces.ip").write_text("\n".join(iface) + "\n")
    ifaces = [x for x in ospf if x.startswith("interface")]
    nets = [x for x in ospf if x.startswith(" network")]
    frr = ["frr defaults traditional", f"hostname {name}", "!", *ifaces, "!",
           "router ospf", f" ospf router-id 10.255.0.{i + 1}",
           *[f" passive-interface {b}" for b in passive], *nets, "exit", "!"]
    (cdir / "frr.conf").write_text("\n".join(frr) + "\n")
    return LabNode(name=name, kind="router", mgmt_address=mgmt_address, config_dir=str(cdir))


def synthetic_spec(
    n: int, config_root: Path, network: str = "bnt-bench", mgmt_subnet: str = "198.18.230.0/24"
) -> LabSpec:
    if n < 4:
        raise ValueError("synthetic lab needs at least 4 nodes")
    n_routers = max(2, n // 15)
    n_hosts = n - n_routers
    n_vlans = -(-n_hosts // HOSTS_PER_VLAN)
    mgmt = list(ipaddress.ip_network(mgmt_subnet).hosts())[1:]  # [0] is the bridge
    plen = ipaddress.ip_network(mgmt_subnet).prefixlen
    if n > len(mgmt):
        raise ValueError(f"{n} nodes do not fit {mgmt_subnet}")
    routers = [f"r{i + 1:02d}" for i in range(n_routers)]
    iface: dict[str, list[str]] = {r: [] for r in routers}
    ospf: dict[str, list[str]] = {r: [] for r in routers}
    passive: dict[str, list[str]] = {r: [] for r in routers}
    links = _ring(routers, iface, ospf)
    nodes: list[LabNode] = []
    hosts_left = iter(range(n_hosts))
    for v in range(n_vlans):
        r = routers[v % n_routers]
        vlan_links, vlan_hosts = _vlan(r, 100 + v, hosts_left, lambda i: f"{mgmt[n_routers + i]}/{plen}",
                                       iface[r], ospf[r], passive[r])
        links += vlan_links
        nodes += vlan_hosts

    router_nodes = [_router(i, r, Path(config_root) / r, iface[r], ospf[r], passive[r], f"{mgmt[i]}/{plen}")
                    for i, r in enumerate(routers)]
    return LabSpec(network=network, vlan_mode="segment", mgmt_subnet=mgmt_subnet,
                   nodes=router_nodes + nodes, links=links)


def _ring(routers: list[str], iface: dict[str, list[str]], ospf: dict[str, list[str]]) -> list[LabLink]:
    """A routed ring r01 -> r02 -> ... -> r01 (a single link when there are two routers)."""
    links: list[LabLink] = []
    pairs = [(i, (i + 1) % len(routers)) for i in range(len(routers) if len(routers) > 2 else 1)]
    for k, (i, j) in enumerate(pairs):
        net = ipaddress.ip_network(f"10.254.{k}.0/30")
        a_ip, b_ip = list(net.hosts())
        ra, rb = routers[i], routers[j]
        ia, ib = f"ring{k}a", f"ring{k}b"
        links.append(LabLink(LabEnd(ra, ia), LabEnd(rb, ib), 10000, 9000, f"{ra}--{rb} ring"))
        for r, ifn, ip in ((ra, ia, a_ip), (rb, ib, b_ip)):
            iface[r] += [f"addr add {ip}/30 dev {ifn}", f"link set {ifn} up"]
            ospf[r].append(f"interface {ifn}\n ip ospf network point-to-point\n"
                           " ip ospf hello-interval 1\n ip ospf dead-interval 4\nexit")
            ospf[r].append(f" network {net} area 0")
    return links


def _vlan(r: str, vid: int, hosts_left: Iterator[int], mgmt_of: Callable[[int], str],
          iface: list[str], ospf: list[str], passive: list[str]) -> tuple[list[LabLink], list[LabNode]]:
    """VLAN `vid` on router `r`: its bridge and up to HOSTS_PER_VLAN of the hosts left (host
    number i gets management address mgmt_of(i))."""
    br = f"br{vid}"
    subnet = ipaddress.ip_network(f"10.{vid}.0.0/24")
    gw = next(subnet.hosts())
    iface[:0] = [f"link add {br} type bridge"]
    iface += [f"addr add {gw}/24 dev {br}", f"link set {br} mtu 9000", f"link set {br} up"]
    ospf.append(f" network {subnet} area 0")
    passive.append(br)
    links: list[LabLink] = []
    hosts: list[LabNode] = []
    for h, host_i in zip(range(HOSTS_PER_VLAN), hosts_left, strict=False):  # the last VLAN may have fewer
        host, port = f"h{vid}-{h + 1}", f"v{vid}p{h + 1}"
        links.append(LabLink(LabEnd(r, port), LabEnd(host, "eth1"), 1000, 9000, f"{r}:{port} -- {host} vlan {vid}"))
        iface.insert(1, f"link set {port} master {br}")
        hosts.append(LabNode(name=host, kind="host", mgmt_address=mgmt_of(host_i),
                             addresses=[HostAddress("eth1", f"{subnet[10 + h]}/24", 9000, str(gw))]))
    return links, hosts
