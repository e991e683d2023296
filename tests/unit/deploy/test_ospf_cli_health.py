"""The health check reads OSPF neighbors of IOS and EOS devices from real recorded
`show ip ospf neighbor` output (ntc-templates' test data) with ntc-templates' TextFSM templates."""

from __future__ import annotations

from pathlib import Path

from boothnet.deploy.health import adjacency_failures, ospf_neighbors_from_cli

RECORDED = Path(__file__).parent / "recorded" / "ntc-templates"


def read(name: str) -> str:
    return (RECORDED / name).read_text()


def test_ios_neighbors_by_interface_with_their_adjacency_state():
    neighbors = ospf_neighbors_from_cli("cisco_ios", read("cisco_ios_show_ip_ospf_neighbor_four_neighbors.raw"))
    assert neighbors["GigabitEthernet0/2.101"] == [
        {"neighbor": "10.190.30.2", "address": "10.190.16.11", "state": "Full"},
        {"neighbor": "10.190.30.3", "address": "10.190.16.12", "state": "Full"},
    ]
    assert adjacency_failures({"GigabitEthernet0/2.100", "GigabitEthernet0/2.101"}, neighbors) == []


def test_eos_neighbors_parse_too():
    neighbors = ospf_neighbors_from_cli("arista_eos", read("arista_eos_show_ip_ospf_neighbor_2.raw"))
    assert {i: [n["state"] for n in ns] for i, ns in neighbors.items()} == {
        "Ethernet20/1": ["Full"], "Vlan100": ["Full"], "Ethernet20/1.10": ["Full"], "Port-Channel100.10": ["Full"]}


def test_a_neighbor_stuck_below_full_fails_the_health_check():
    stuck = read("cisco_ios_show_ip_ospf_neighbor.raw").replace("FULL/  -        00:00:33", "INIT/  -        00:00:33")
    neighbors = ospf_neighbors_from_cli("cisco_ios", stuck)
    assert adjacency_failures({"Port-channel1", "Port-channel2", "Vlan1000"}, neighbors) == [
        "OSPF on Port-channel2: expected a Full neighbor, found Init"]
    assert adjacency_failures({"Vlan2000"}, neighbors) == [
        "OSPF on Vlan2000: expected a Full neighbor, found no neighbor"]
