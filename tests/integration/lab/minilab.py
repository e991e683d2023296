"""The hand-written mini lab of the lab tests: r1 -- r2 routed (MTU 9000, 1 Gb/s), a
bridge per VLAN on each router (VLAN 10 on r1, VLAN 20 on r2) with two hosts each."""

from __future__ import annotations

from pathlib import Path

from boothnet.lab.spec import HostAddress, LabEnd, LabLink, LabNode, LabSpec

FIXTURES = Path(__file__).parent / "fixtures"
NETWORK = "bnt-lab"
MGMT_SUBNET = "198.18.200.0/24"
HOSTS = {  # host: (router, router port, vlan, address)
    "h1": ("r1", "eth10a", 10, "10.10.0.11"),
    "h2": ("r1", "eth10b", 10, "10.10.0.12"),
    "h3": ("r2", "eth20a", 20, "10.20.0.13"),
    "h4": ("r2", "eth20b", 20, "10.20.0.14"),
}


def mini_spec(network: str = NETWORK, mgmt_subnet: str = MGMT_SUBNET) -> LabSpec:
    base = mgmt_subnet.rsplit(".", 1)[0]
    nodes = [
        LabNode(name="r1", kind="router", mgmt_address=f"{base}.11/24",
                config_dir=str(FIXTURES / "r1")),
        LabNode(name="r2", kind="router", mgmt_address=f"{base}.12/24",
                config_dir=str(FIXTURES / "r2")),
    ]
    links = [LabLink(a=LabEnd("r1", "eth1"), b=LabEnd("r2", "eth1"), speed_mbps=1000,
                     mtu=9000, label="r1:eth1 -- r2:eth1 routed")]
    for i, (host, (router, port, vlan, addr)) in enumerate(sorted(HOSTS.items())):
        nodes.append(LabNode(
            name=host, kind="host", mgmt_address=f"{base}.{21 + i}/24",
            addresses=[HostAddress(ifname="eth1", address=f"{addr}/24", mtu=9000,
                                   gateway=f"10.{vlan}.0.1")],
        ))
        links.append(LabLink(a=LabEnd(router, port), b=LabEnd(host, "eth1"), speed_mbps=1000,
                             mtu=9000, label=f"{router}:{port} -- {host}:eth1 vlan {vlan}"))
    return LabSpec(network=network, vlan_mode="segment", mgmt_subnet=mgmt_subnet,
                   nodes=nodes, links=links,
                   port_map={"r1": {"Gi0/1": "eth1"}, "r2": {"Gi0/1": "eth1"}})
