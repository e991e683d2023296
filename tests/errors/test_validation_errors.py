"""One case per validation rule, each with its exact message; every error is reported at once."""

from __future__ import annotations

import pytest

from boothnet.errors import IntentInvalid
from boothnet.intent import load_network

VLANS = "group_vars/all/vlans.yml"
LINKS = "group_vars/all/links.yml"
POLICY = "group_vars/all/policy.yml"


def errors_of(inv) -> list[str]:
    with pytest.raises(IntentInvalid) as caught:
        load_network(inv.path)
    return [str(e) for e in caught.value.errors]


def test_reference_inventories_are_valid():
    for name in ("lab-mini", "sc-booth"):
        assert load_network(f"inventories/{name}").name == name


def test_duplicate_vlan_id_and_overlapping_subnet_are_both_reported(inventory_copy):
    inv = inventory_copy()

    def change(data):
        data["vlans"][1]["id"] = 10
        data["vlans"][1]["subnet"] = "10.0.0.0/16"
        data["vlans"][1]["gateway_address"] = "10.0.20.1"

    inv.edit(VLANS, change)
    assert errors_of(inv) == [
        "inv/group_vars/all/links.yml: links[0].addresses: '10.0.0.0/30': "
        "a subnet that overlaps no other (overlaps vlans[1].subnet 10.0.0.0/16)",
        "inv/group_vars/all/vlans.yml: vlans[0].subnet: '10.0.10.0/24': "
        "a subnet that overlaps no other (overlaps vlans[1].subnet 10.0.0.0/16)",
        "inv/group_vars/all/vlans.yml: vlans[1].id: 10: unique VLAN IDs (also vlans[0])",
    ]


def test_duplicate_vlan_name(inventory_copy):
    inv = inventory_copy()
    inv.edit(VLANS, lambda d: d["vlans"][1].update(name="users"))
    assert "inv/group_vars/all/vlans.yml: vlans[1].name: 'users': unique VLAN names (also vlans[0])" in errors_of(inv)


@pytest.mark.parametrize("vid", [0, 4095])
def test_vlan_id_out_of_range(inventory_copy, vid):
    inv = inventory_copy()
    inv.edit(VLANS, lambda d: d["vlans"][0].update(id=vid))
    assert f"inv/group_vars/all/vlans.yml: vlans[0].id: {vid}: a VLAN ID in 1-4094" in errors_of(inv)


def test_vlan_reserved_on_platform(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit(VLANS, lambda d: d["vlans"][0].update(id=1003))
    assert (
        "inv/group_vars/all/vlans.yml: vlans[0].id: 1003: not reserved on cisco_ios (core1): reserved 1002-1005"
    ) in errors_of(inv)


def test_gateway_address_outside_subnet(inventory_copy):
    inv = inventory_copy()
    inv.edit(VLANS, lambda d: d["vlans"][0].update(gateway_address="10.0.99.1"))
    assert (
        "inv/group_vars/all/vlans.yml: vlans[0].gateway_address: '10.0.99.1': a host address in 10.0.10.0/24"
    ) in errors_of(inv)


def test_link_to_unknown_device_and_port(inventory_copy):
    inv = inventory_copy()
    inv.edit(LINKS, lambda d: d["links"][0].update(a="r9:eth3", b="r2:eth7"))
    assert errors_of(inv) == [
        "inv/group_vars/all/links.yml: links[0].a: 'r9:eth3': device:port with a known device: r1, r2",
        "inv/group_vars/all/links.yml: links[0].b: 'r2:eth7': a port declared on r2 (eth1, eth2, eth3)",
    ]


def test_port_used_twice(inventory_copy):
    inv = inventory_copy()
    inv.edit(LINKS, lambda d: d["links"][0].update(a="r1:eth1"))
    assert "inv/hosts.yml: endpoints.h1.attach: 'r1:eth1': a port used once (already used by links[0].a)" in errors_of(
        inv
    )


def test_different_mtu_on_link_ends(inventory_copy):
    inv = inventory_copy()
    inv.edit("host_vars/r1.yml", lambda d: d["ports"][2].update(mtu=9214))
    assert (
        "inv/group_vars/all/links.yml: links[0].mtu: 'r1:eth3 mtu 9214 vs r2:eth3 mtu 9000': "
        "the same MTU on both ends of a link"
    ) in errors_of(inv)


def test_vlan_mtu_above_trunk_mtu(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit(LINKS, lambda d: d["links"][0].update(mtu=1500))
    inv.edit("host_vars/rsw1.yml", lambda d: [p.pop("mtu", None) for p in d["ports"]])
    inv.edit("host_vars/core1.yml", lambda d: [p.pop("mtu", None) for p in d["ports"] if "TenGig" in p["name"]])
    assert (
        "inv/group_vars/all/links.yml: links[0].vlans: 'research-01 (mtu 9000)': "
        "VLANs with an MTU of at most the trunk MTU 1500"
    ) in errors_of(inv)


def test_vlan_carried_nowhere(inventory_copy):
    inv = inventory_copy()
    inv.edit(
        VLANS,
        lambda d: d["vlans"].append(
            {"id": 30, "name": "orphan", "zone": "research", "subnet": "10.0.30.0/24", "gateway": "r2"}
        ),
    )
    assert (
        "inv/group_vars/all/vlans.yml: vlans[2]: 'orphan': "
        "a VLAN carried on at least one port (access, trunk or endpoint)"
    ) in errors_of(inv)


def test_policy_unknown_zone_and_group(inventory_copy):
    inv = inventory_copy()

    def change(data):
        data["policy"]["rules"][0]["from"] = "zone:lab"
        data["policy"]["rules"][1]["from"] = "group:wizards"

    inv.edit(POLICY, change)
    assert errors_of(inv) == [
        "inv/group_vars/all/policy.yml: policy.rules[0].from: 'zone:lab': zones: production, research, secure, outside",
        "inv/group_vars/all/policy.yml: policy.rules[1].from: 'group:wizards': known host groups: admins",
    ]


def test_more_vpn_clients_than_allowed(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit(POLICY, lambda d: d["host_groups"]["vpn_clients"].append("client4"))
    assert errors_of(inv) == [
        "inv/group_vars/all/policy.yml: host_groups.vpn_clients: '4 hosts': at most 3 VPN clients (vpn.max_clients)",
    ]


def test_unsupported_platform(inventory_copy):
    inv = inventory_copy()
    inv.edit("host_vars/r2.yml", lambda d: d.update(platform="junos"))
    assert errors_of(inv) == [
        "inv/host_vars/r2.yml: platform: 'junos': supported platforms: arista_eos, cisco_ios, frr_linux",
    ]


def test_field_type_errors_name_file_and_path(inventory_copy):
    inv = inventory_copy()
    inv.edit(VLANS, lambda d: d["vlans"][1].update(zone="lab", subnet="10.0.20.0/33"))
    found = errors_of(inv)
    assert (
        "inv/group_vars/all/vlans.yml: vlans[1].zone: 'lab': "
        "Input should be 'production', 'research', 'secure' or 'outside'"
    ) in found
    assert any(e.startswith("inv/group_vars/all/vlans.yml: vlans[1].subnet: '10.0.20.0/33'") for e in found)


def test_crypto_inner_mtu_must_fit_esp_overhead(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit("group_vars/all/network.yml", lambda d: d["mtu_policy"].update(crypto_inner=9050))
    assert (
        "inv/group_vars/all/network.yml: mtu_policy.crypto_inner: 9050: at most 9035: ESP adds up to "
        "65 bytes and the outer link bgw1:eth2 -- show1:eth2 has MTU 9100"
    ) in errors_of(inv)
