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


def test_each_neighbour_the_intent_implies_must_be_there_by_name():
    """Recorded IOS output: two Full neighbours on Gi0/2.101; the intent puts a third router there."""
    neighbors = ospf_neighbors_from_cli("cisco_ios", read("cisco_ios_show_ip_ospf_neighbor_four_neighbors.raw"))
    intended = {"GigabitEthernet0/2.101": {"10.190.16.11": "edge1", "10.190.16.12": "edge2", "10.190.16.13": "edge3"}}
    assert adjacency_failures(set(), neighbors, intended) == [
        "OSPF on GigabitEthernet0/2.101: no adjacency with edge3 (10.190.16.13), which the intent puts there "
        "(found no such neighbor)"]
    del intended["GigabitEthernet0/2.101"]["10.190.16.13"]
    assert adjacency_failures(set(), neighbors, intended) == []


def test_an_interface_where_ospf_never_came_up_names_its_intended_neighbour():
    intended = {"br60": {"10.10.60.1": "core1"}}
    assert adjacency_failures(set(), {}, intended) == [
        "OSPF on br60: expected a Full neighbor, found no neighbor",
        "OSPF on br60: no adjacency with core1 (10.10.60.1), which the intent puts there (found no such neighbor)"]


def test_the_model_says_which_routers_share_a_transit_vlan():
    from boothnet.deploy.health import intended_neighbors
    from boothnet.derive import derive_network
    from boothnet.intent import load_network
    from tests.helpers import INVENTORIES

    models = derive_network(load_network(INVENTORIES / "sc-booth"))
    model = {"ospf": {"neighbors": models["core1"].ospf.neighbors}}
    assert intended_neighbors(model) == {"Vlan60": {"10.10.60.2": "brt1", "10.10.60.3": "bgw1"}}


def test_ospf_up_reads_the_areas_frr_conf_names_per_interface():
    from boothnet.deploy.frr_linux.scripts.ospf_up import configured

    conf = (Path(__file__).parents[2] / "golden" / "sc-booth" / "brt1" / "frr.conf").read_text()
    assert configured(conf) == {"br60": "0"}
    assert configured(conf.replace("router ospf", "router bgp 65000")) == {}  # no OSPF process: nothing to enable


def test_in_ipv6_the_same_function_names_each_ospfv3_neighbour_by_its_router_id():
    import dataclasses
    import json

    from boothnet.deploy.health import intended_neighbors
    from boothnet.derive import derive_network
    from boothnet.family import Family
    from boothnet.intent import load_network
    from tests.helpers import INVENTORIES

    derived = derive_network(load_network(INVENTORIES / "sc-booth-ds"))
    models = {name: json.loads(json.dumps(dataclasses.asdict(m), default=str)) for name, m in derived.items()}
    assert intended_neighbors(models["core1"]) == {"Vlan60": {"10.10.60.3": "bgw1", "10.10.60.2": "brt1"}}
    assert intended_neighbors(models["core1"], models, Family.V6) == {
        "Vlan60": {"10.10.255.4": "bgw1", "10.10.255.3": "brt1"}}
    # a neighbour that runs no OSPFv3 is no OSPFv3 adjacency
    models["bgw1"]["ospf"]["interfaces6"] = []
    assert intended_neighbors(models["core1"], models, Family.V6) == {"Vlan60": {"10.10.255.3": "brt1"}}
