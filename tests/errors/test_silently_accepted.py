"""Intents that built clean and rendered something else than written (issue 66 items 11-13,
issue 70's four inputs): each is an error naming the file, the field, the value and why."""

from __future__ import annotations

import pytest

from boothnet.derive import derive_network
from boothnet.intent import load_network
from boothnet.platforms import platforms
from tests.helpers import INVENTORIES, errors_of

VLANS = "group_vars/all/vlans.yml"
LINKS = "group_vars/all/links.yml"
POLICY = "group_vars/all/policy.yml"
NETWORK = "group_vars/all/network.yml"
VPN = "group_vars/all/vpn.yml"
THROUGHPUT = "group_vars/all/throughput.yml"


def test_the_reference_inventories_hold_none_of_them():
    for path in sorted(INVENTORIES.iterdir()):
        assert load_network(path).name == path.name


# issue 66, item 11: a VPN end that cannot terminate IPsec ------------------------------------------
def test_ipsec_is_platform_data_and_agrees_with_what_the_templates_render():
    """`ipsec` in capabilities.yml says which platforms can be a VPN end; each such platform
    renders a tunnel (crypto on IOS, strongSwan on frr_linux), and no other does."""
    known = platforms()
    assert {name for name, p in known.items() if p.ipsec} == {"cisco_ios", "frr_linux"}
    for platform in known.values():
        assert platform.ipsec == bool({"crypto", "vpn"} & set(platform.features)), platform.name


def test_a_vpn_ending_on_an_eos_switch(inventory_copy):
    inv = inventory_copy("sc-booth-ds")
    inv.edit(VPN, lambda d: d["vpn"].update(booth_gateway="rsw1"))
    # as it was: derived, the VPN was on no device at all (hgw1's swanctl.conf gone too)
    net = load_network(INVENTORIES / "sc-booth-ds")
    net.vpn.booth_gateway = "rsw1"  # type: ignore[union-attr]
    assert not any(model.vpn for model in derive_network(net).values())
    assert errors_of(inv) == [
        "inv/group_vars/all/vpn.yml: vpn.booth_gateway: 'rsw1': a device whose platform can terminate IPsec "
        "(cisco_ios, frr_linux): rsw1 is arista_eos, which cannot (ipsec: false in capabilities.yml): no config of "
        "rsw1 would carry the tunnel"]


@pytest.mark.parametrize("field", ["booth_gateway", "home_gateway"])
def test_a_vpn_end_on_a_switch_model_without_ipsec(inventory_copy, field):
    """core1, a Catalyst 9300 (its profile: no IPsec termination for transit traffic)."""
    inv = inventory_copy("sc-booth")
    inv.edit(VPN, lambda d: d["vpn"].update({field: "core1"}))
    assert [e for e in errors_of(inv) if "vpn.yml" in e] == [
        f"inv/group_vars/all/vpn.yml: vpn.{field}: 'core1': a device that can terminate IPsec: core1 is a C9300-48T "
        "(catalyst9300, release 17.9.4), a switch that terminates no IPsec for transit traffic (platforms/profiles/): "
        "put the VPN end on a router or a Linux gateway"]


def test_a_vpn_end_without_a_routed_port_to_the_show_network(inventory_copy):
    """bgw1 (frr_linux) with its link to the show network gone: the tunnel has no outer address,
    and derive builds it on neither gateway."""
    inv = inventory_copy("sc-booth")
    inv.edit(LINKS, lambda d: d.update(links=[lk for lk in d["links"] if lk["a"] != "bgw1:eth2"]))
    assert [e for e in errors_of(inv) if "vpn.yml" in e and "routed port" in e] == [
        "inv/group_vars/all/vpn.yml: vpn.booth_gateway: 'bgw1': a device with a routed port to the show network (a "
        "routed link with addresses to a device of role show_network): bgw1 (vpn_gateway, frr_linux) has none, so "
        "the tunnel has no outer address and the VPN would be rendered on neither gateway"]


def _port_mtu(inv, device: str, port: str, mtu: int) -> None:
    """One end of a link at a new MTU: its port in the device's host_vars."""
    inv.edit(f"host_vars/{device}.yml", lambda d: [p.update(mtu=mtu) for p in d["ports"] if p["name"] == port])


def test_the_home_gateways_outside_link_must_carry_esp_too(inventory_copy):
    """sc-booth-ds's home path at jumbo 9000 with crypto_inner 8950: ESP (65 bytes) no longer fits
    on the home side; the booth side (9100) still takes it."""
    inv = inventory_copy("sc-booth-ds")
    inv.edit(LINKS, lambda d: [lk.update(mtu=9000) for lk in d["links"] if lk["a"] == "hgw1:eth1"])
    _port_mtu(inv, "hgw1", "eth1", 9000)
    _port_mtu(inv, "show1", "eth3", 9000)
    assert errors_of(inv) == [
        "inv/group_vars/all/network.yml: mtu_policy.crypto_inner: 8950: at most 8935: ESP adds up to 65 bytes and "
        "the outer link hgw1:eth1 -- show1:eth3 has MTU 9000"]


# issue 66, item 12: a rule inside one VLAN ---------------------------------------------------------
def test_a_rule_between_hosts_of_one_vlan(inventory_copy):
    inv = inventory_copy("sc-booth")

    def change(data):
        data["host_groups"].update(booth_pair=["booth1"], stage=["booth1", "theater1"])
        data["policy"]["rules"][:0] = [
            {"name": "booth-lan-ssh-to-booth1", "from": "vlan:booth-lan", "to": "group:booth_pair", "proto": "tcp",
             "ports": [22], "action": "deny"},
            # partly outside booth-lan (theater1): its gateway sees that part, so the rule stays
            {"name": "booth-lan-ssh-to-stage", "from": "vlan:booth-lan", "to": "group:stage", "proto": "tcp",
             "ports": [22], "action": "permit"},
            {"name": "home-to-home", "from": "zone:secure", "to": "vlan:secure-home", "action": "permit"},
        ]

    inv.edit(POLICY, change)
    assert errors_of(inv) == [
        "inv/group_vars/all/policy.yml: policy.rules[0]: 'booth-lan-ssh-to-booth1': a rule between VLANs: from "
        "vlan:booth-lan to group:booth_pair lies wholly inside VLAN booth-lan (10.10.10.0/24), and traffic inside "
        "one VLAN never crosses its gateway, so no ACL can enforce it: it would decide nothing",
        "inv/group_vars/all/policy.yml: policy.rules[2]: 'home-to-home': a rule between VLANs: from zone:secure to "
        "vlan:secure-home lies wholly inside VLAN secure-home (10.200.1.0/24), and traffic inside one VLAN never "
        "crosses its gateway, so no ACL can enforce it: it would decide nothing"]


# issue 66, item 13: a VLAN's gateway listed again in its routers -----------------------------------
def test_a_vlans_gateway_listed_among_its_routers_in_both_families(inventory_copy):
    inv = inventory_copy("sc-booth-ds")
    index = next(i for i, v in enumerate(inv.load(VLANS)["vlans"]) if v["name"] == "show-uplink")

    def change(data):
        data["vlans"][index]["routers"]["core1"] = "10.10.60.4"
        data["vlans"][index]["ipv6"]["routers"]["core1"] = "2001:db8:60::4"

    inv.edit(VLANS, change)
    assert errors_of(inv) == [
        f"inv/group_vars/all/vlans.yml: vlans[{index}].ipv6.routers.core1: 'core1': a device other than the VLAN's "
        "gateway core1, which already routes show-uplink at 2001:db8:60::1 (routers lists the other layer-3 devices "
        "on it): this entry would be left out of every config",
        f"inv/group_vars/all/vlans.yml: vlans[{index}].routers.core1: 'core1': a device other than the VLAN's "
        "gateway core1, which already routes show-uplink at 10.10.60.1 (routers lists the other layer-3 devices "
        "on it): this entry would be left out of every config"]


# issue 70: the uplink's IPv6 next hop, IPv6's minimum MTU -----------------------------------------
def test_an_uplink_next_hop6_that_is_the_routers_own_address(inventory_copy):
    inv = inventory_copy("sc-booth-ds")
    inv.edit(NETWORK, lambda d: d["uplink"].update(next_hop6="2001:db8:f0::2"))
    assert errors_of(inv) == [
        "inv/group_vars/all/network.yml: uplink.next_hop6: '2001:db8:f0::2': the show network's router, not an "
        "address of brt1 itself (links[3].addresses6.a): a default route to itself loops every packet back to brt1"]


def test_an_uplink_next_hop_that_is_the_routers_own_address(inventory_copy):
    """The IPv4 twin, refused at validation too (the build's route trace found it only where a
    declared path leaves by the uplink)."""
    inv = inventory_copy("sc-booth-ds")
    inv.edit(NETWORK, lambda d: d["uplink"].update(next_hop="192.0.2.2"))
    assert errors_of(inv) == [
        "inv/group_vars/all/network.yml: uplink.next_hop: '192.0.2.2': the show network's router, not an "
        "address of brt1 itself (links[3].addresses.a): a default route to itself loops every packet back to brt1"]


def test_no_next_hop6_on_a_dual_stack_uplink_while_a_path_runs_in_ipv6(inventory_copy):
    inv = inventory_copy("sc-booth-ds")
    inv.edit(NETWORK, lambda d: d["uplink"].pop("next_hop6"))
    assert errors_of(inv) == [
        "inv/group_vars/all/network.yml: uplink.next_hop6: 'missing': the show network's IPv6 router on brt1's "
        "dual-stack uplink (2001:db8:f0::/64): throughput.paths[2] bulk-to-home runs in IPv6 from r01-fs to bulk1 "
        "across the show network, and without next_hop6 brt1 has no IPv6 route out, so the path has none"]
    # without a path that leaves in IPv6, an uplink kept to IPv4 is a choice
    inv.edit(THROUGHPUT, lambda d: d["throughput"].update(paths=d["throughput"]["paths"][:2]))
    assert load_network(inv.path).uplink.next_hop6 is None  # type: ignore[union-attr]


def test_a_dual_stack_vlan_or_link_below_ipv6s_minimum_mtu(inventory_copy):
    inv = inventory_copy("sc-booth-ds")
    index = next(i for i, v in enumerate(inv.load(VLANS)["vlans"]) if v["name"] == "theater")
    inv.edit(VLANS, lambda d: d["vlans"][index].update(mtu=1200))
    assert errors_of(inv) == [
        f"inv/group_vars/all/vlans.yml: vlans[{index}].mtu: 1200: at least 1280 on a dual-stack VLAN: IPv6 needs "
        "an MTU of 1280 or more on every link (RFC 8200, section 5)"]


def test_a_routed_link_with_ipv6_below_ipv6s_minimum_mtu(inventory_copy):
    inv = inventory_copy("sc-booth-ds")
    inv.edit(LINKS, lambda d: d["links"][3].update(mtu=1200))
    _port_mtu(inv, "brt1", "eth2", 1200)
    _port_mtu(inv, "show1", "eth1", 1200)
    assert errors_of(inv) == [
        "inv/group_vars/all/links.yml: links[3].mtu: 1200: at least 1280 on a link with IPv6 addresses: IPv6 needs "
        "an MTU of 1280 or more on every link (RFC 8200, section 5)"]


def test_an_ipv4_only_vlan_keeps_ipv4s_minimum_mtu(inventory_copy):
    inv = inventory_copy("sc-booth")
    index = next(i for i, v in enumerate(inv.load(VLANS)["vlans"]) if v["name"] == "theater")
    inv.edit(VLANS, lambda d: d["vlans"][index].update(mtu=1200))
    assert load_network(inv.path).vlans[index].mtu == 1200


def test_a_vpn_whose_two_ends_are_one_device(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit(VPN, lambda d: d["vpn"].update(home_gateway="bgw1"))
    assert "inv/group_vars/all/vpn.yml: vpn.home_gateway: 'bgw1': a device other than vpn.booth_gateway (bgw1): a " \
        "tunnel needs two ends" in errors_of(inv)
