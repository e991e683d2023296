"""IPv6 in the intent: each rule's case with its exact message, on lab-mini made dual-stack."""

from __future__ import annotations

from ipaddress import IPv6Address

import pytest

from boothnet.family import Family
from boothnet.intent import load_network
from tests.helpers import INVENTORIES, errors_of

VLANS = "group_vars/all/vlans.yml"
LINKS = "group_vars/all/links.yml"
HOSTS = "hosts.yml"
NETWORK = "group_vars/all/network.yml"


def dual_stack(inv, users_hosts: str = "slaac"):
    """lab-mini with an IPv6 /64 on each VLAN (users: SLAAC, lab: static) and on the routed link."""
    def vlans(data):
        data["vlans"][0]["ipv6"] = {"prefix": "2001:db8:10::/64", "hosts": users_hosts}
        data["vlans"][1]["ipv6"] = {"prefix": "2001:db8:20::/64", "hosts": "static"}

    def hosts(data):
        found = data["all"]["children"]["endpoints"]["hosts"]
        found["h1"]["mac"] = "02:00:0a:00:0a:0b"
        found["h3"]["address6"] = "2001:db8:20::11"
        found["h4"]["address6"] = "2001:db8:20::20"

    inv.edit(VLANS, vlans)
    inv.edit(HOSTS, hosts)
    inv.edit(LINKS, lambda d: d["links"][0].update(addresses6={"a": "2001:db8:ff::/127", "b": "2001:db8:ff::1/127"}))
    return inv


def edit_host(inv, name: str, **values):
    inv.edit(HOSTS, lambda d: d["all"]["children"]["endpoints"]["hosts"][name].update(values))


def test_a_dual_stack_intent_loads_with_each_hosts_address(inventory_copy):
    net = load_network(dual_stack(inventory_copy()).path)
    users, lab = net.vlans
    assert net.dual_stack
    assert net.gateway_address(users, Family.V6) == IPv6Address("2001:db8:10::1")
    # h1's MAC 02:00:0a:00:0a:0b forms 00:00:0a:ff:fe:00:0a:0b under SLAAC (the U/L bit flipped)
    assert net.endpoint_address(net.endpoints["h1"], Family.V6) == IPv6Address("2001:db8:10::aff:fe00:a0b")
    assert net.endpoint_address(net.endpoints["h2"], Family.V6) is None  # SLAAC without a known MAC: learned live
    assert net.endpoint_address(net.endpoints["h4"], Family.V6) == IPv6Address("2001:db8:20::20")
    assert not load_network(INVENTORIES / "lab-mini").dual_stack


def test_slaac_needs_a_64_and_a_prefix_must_be_global(inventory_copy):
    inv = dual_stack(inventory_copy())

    def change(data):
        data["vlans"][0]["ipv6"]["prefix"] = "2001:db8:10::/80"
        data["vlans"][1]["ipv6"]["prefix"] = "fe80::/64"

    inv.edit(VLANS, change)
    errors = errors_of(inv)
    assert ("inv/group_vars/all/vlans.yml: vlans[0].ipv6.prefix: '2001:db8:10::/80': a /64: hosts take SLAAC here "
            "(hosts: slaac), which forms a 64-bit interface id") in errors
    assert ("inv/group_vars/all/vlans.yml: vlans[1].ipv6.prefix: 'fe80::/64': a global unicast prefix, not a "
            "link-local one") in errors


def test_overlapping_prefixes_are_named_with_the_one_they_overlap(inventory_copy):
    inv = dual_stack(inventory_copy())
    inv.edit(LINKS, lambda d: d["links"][0].update(addresses6={"a": "2001:db8:20::a/127", "b": "2001:db8:20::b/127"}))
    assert errors_of(inv) == [
        "inv/group_vars/all/links.yml: links[0].addresses6: '2001:db8:20::a/127': a prefix that overlaps no other "
        "(overlaps vlans[1].ipv6.prefix 2001:db8:20::/64)"]


def test_a_gateway_or_host_outside_its_prefix_and_a_link_local_host(inventory_copy):
    inv = dual_stack(inventory_copy())
    inv.edit(VLANS, lambda d: d["vlans"][1]["ipv6"].update(gateway_address="2001:db8:99::1"))
    edit_host(inv, "h3", address6="2001:db8:21::11")
    edit_host(inv, "h4", address6="fe80::20")
    assert errors_of(inv) == [
        "inv/group_vars/all/vlans.yml: vlans[1].ipv6.gateway_address: '2001:db8:99::1': a host address in "
        "2001:db8:20::/64",
        "inv/hosts.yml: endpoints.h3.address6: '2001:db8:21::11': a host address in 2001:db8:20::/64",
        "inv/hosts.yml: endpoints.h4.address6: 'fe80::20': a global unicast address, not a link-local one",
    ]


def test_static_hosts_need_an_address_and_slaac_hosts_take_none(inventory_copy):
    inv = dual_stack(inventory_copy())
    edit_host(inv, "h3", address6=None)
    edit_host(inv, "h2", address6="2001:db8:10::12")
    assert errors_of(inv) == [
        "inv/hosts.yml: endpoints.h2.address6: '2001:db8:10::12': none: VLAN users's hosts take SLAAC "
        "(hosts: slaac) and form their address from their MAC; write hosts: static on the VLAN to give addresses",
        "inv/hosts.yml: endpoints.h3.address6: 'missing': the host's IPv6 address in 2001:db8:20::/64: "
        "VLAN lab's hosts are static",
    ]


def test_an_ipv6_address_in_an_ipv4_only_vlan(inventory_copy):
    inv = inventory_copy()
    edit_host(inv, "h1", address6="2001:db8:10::11")
    assert errors_of(inv) == [
        "inv/hosts.yml: endpoints.h1.address6: '2001:db8:10::11': none: VLAN users has no IPv6 prefix "
        "(give it `ipv6: {prefix: ...}`)"]


def test_a_vlans_other_ipv6_routers(inventory_copy):
    inv = dual_stack(inventory_copy())
    inv.edit(VLANS, lambda d: d["vlans"][0]["ipv6"].update(routers={
        "r9": "2001:db8:10::9", "r1": "2001:db8:10::5", "r2": "2001:db8:11::2", "sw1": "fe80::3"}))
    assert errors_of(inv) == [
        "inv/group_vars/all/vlans.yml: vlans[0].ipv6.routers.r1: 'r1': a device other than the VLAN's gateway r1, "
        "which already routes users at 2001:db8:10::1 (routers lists the other layer-3 devices on it): this entry "
        "would be left out of every config",
        "inv/group_vars/all/vlans.yml: vlans[0].ipv6.routers.r2: '2001:db8:11::2': a host address in "
        "2001:db8:10::/64",
        "inv/group_vars/all/vlans.yml: vlans[0].ipv6.routers.r2: 'r2': a device routing VLAN users in IPv4 too "
        "(its gateway or one of its routers)",
        "inv/group_vars/all/vlans.yml: vlans[0].ipv6.routers.r9: 'r9': a known device",
        "inv/group_vars/all/vlans.yml: vlans[0].ipv6.routers.sw1: 'fe80::3': a global unicast address, not a "
        "link-local one",
        "inv/group_vars/all/vlans.yml: vlans[0].ipv6.routers.sw1: 'sw1': a known device",
    ]


def test_one_address_twice_names_both_holders(inventory_copy):
    inv = dual_stack(inventory_copy())
    edit_host(inv, "h4", address6="2001:db8:20::11")
    inv.edit(VLANS, lambda d: d["vlans"][0]["ipv6"].update(gateway_address="2001:db8:10::aff:fe00:a0b"))
    assert errors_of(inv) == [
        "inv/hosts.yml: endpoints.h1.mac: '2001:db8:10::aff:fe00:a0b': a unique IPv6 address "
        "(also vlans[0].ipv6 gateway r1)",
        "inv/hosts.yml: endpoints.h4.address6: '2001:db8:20::11': a unique IPv6 address (also h3 (address6))",
    ]


@pytest.mark.parametrize(("addresses", "allowed"), [
    ({"a": "2001:db8:ff::1/127", "b": "2001:db8:fe::1/127"}, "two different addresses in one prefix"),
    ({"a": "2001:db8:ff::1/120", "b": "2001:db8:ff::2/120"}, "a /64, /126 or /127 between two routers (RFC 6164)"),
])
def test_a_routed_links_ipv6_ends(inventory_copy, addresses, allowed):
    inv = dual_stack(inventory_copy())
    inv.edit(LINKS, lambda d: d["links"][0].update(addresses6=addresses))
    shown = f"{addresses['a']} / {addresses['b']}"
    assert errors_of(inv) == [f"inv/group_vars/all/links.yml: links[0].addresses6: '{shown}': {allowed}"]


def test_the_uplinks_ipv6_next_hop_must_be_global_and_on_its_device(inventory_copy):
    inv = dual_stack(inventory_copy())
    inv.edit(NETWORK, lambda d: d.update(uplink={"device": "r1", "next_hop": "10.0.0.2",
                                                 "next_hop6": "2001:db8:20::99"}))
    assert errors_of(inv) == [
        "inv/group_vars/all/network.yml: uplink.next_hop6: '2001:db8:20::99': an address in one of r1's IPv6 "
        "prefixes (2001:db8:ff::/127, 2001:db8:10::/64): the default route needs the interface it leaves by"]
    inv.edit(NETWORK, lambda d: d["uplink"].update(next_hop6="fe80::1"))
    assert errors_of(inv) == [
        "inv/group_vars/all/network.yml: uplink.next_hop6: 'fe80::1': a global unicast address, not a link-local "
        "one: the routers' configs name the next hop without an interface"]


def test_an_ipv6_address_written_as_a_number_or_in_the_wrong_family(inventory_copy):
    inv = dual_stack(inventory_copy())
    inv.edit(VLANS, lambda d: d["vlans"][0]["ipv6"].update(prefix="10.0.10.0/24", gateway_address=7))
    assert errors_of(inv) == [
        "inv/group_vars/all/vlans.yml: vlans[0].ipv6.gateway_address: 7: Value error, an IPv6 address or prefix "
        "written as text, e.g. 2001:db8:10::1 or 2001:db8:10::/64",
        "inv/group_vars/all/vlans.yml: vlans[0].ipv6.prefix: '10.0.10.0/24': Input is not a valid IPv6 network",
    ]


def test_every_entry_point_is_told_what_of_ipv6_is_not_done_yet(inventory_copy):
    inv = inventory_copy()
    assert load_network(inv.path).warnings == []
    inv.edit(LINKS, lambda d: d["links"][0].update(addresses6={"a": "2001:db8:ff::/127", "b": "2001:db8:ff::1/127"}))
    assert load_network(inv.path).warnings == [
        "inv/group_vars/all/links.yml: links[0].addresses6: '2001:db8:ff::/127': IPv6 is rendered (addresses, "
        "router advertisements, ACLs, OSPFv3, the uplink's filter) and validated in both families (isolation, "
        "endpoints, MTU, OSPFv3 adjacencies, throughput, WAN paths), with IPv6 flows decided by the offline "
        "evaluator where Batfish 0.36 traces none; a SLAAC host without a mac in the intent is probed in IPv4 "
        "only"]


def test_a_host_a_rule_names_needs_a_known_ipv6_address(inventory_copy):
    inv = dual_stack(inventory_copy())
    edit_host(inv, "h1", mac=None)  # admins: [h1], in SLAAC VLAN users
    assert errors_of(inv) == [
        "inv/hosts.yml: endpoints.h1.mac: 'missing': the host's MAC: rule admins-ssh-to-lab (group:admins) names "
        "it, and in VLAN users (hosts: slaac) its IPv6 address is formed from the MAC"]
