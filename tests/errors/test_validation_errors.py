"""One case per validation rule, each with its exact message; every error is reported at once."""

from __future__ import annotations

import pytest

from boothnet.intent import load_network
from tests.helpers import errors_of

VLANS = "group_vars/all/vlans.yml"
LINKS = "group_vars/all/links.yml"
POLICY = "group_vars/all/policy.yml"


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


def test_vlan_reserved_on_the_research_switch(inventory_copy):
    inv = inventory_copy("sc-booth")
    index = next(i for i, v in enumerate(inv.load(VLANS)["vlans"]) if v["name"] == "research-01")
    inv.edit(VLANS, lambda d: d["vlans"][index].update(id=4094))
    assert (
        f"inv/group_vars/all/vlans.yml: vlans[{index}].id: 4094: not reserved on arista_eos (rsw1): reserved 4094"
    ) in errors_of(inv)  # with it: the trunk's 110-125 no longer finds VLAN 110


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


def test_trunk_without_a_known_vlan_is_reported_with_its_list_value(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit(LINKS, lambda d: d["links"][0].update(vlans=["900-901"]))
    assert errors_of(inv) == [
        "inv/group_vars/all/links.yml: links[0].vlans: 900: known VLAN ids, names or ranges like 110-125",
        "inv/group_vars/all/links.yml: links[0].vlans: 901: known VLAN ids, names or ranges like 110-125",
        "inv/group_vars/all/links.yml: links[0].vlans: ['900-901']: at least one known VLAN on a trunk",
    ]


def test_ports_on_a_rule_without_tcp_or_udp(inventory_copy):
    inv = inventory_copy()
    inv.edit(POLICY, lambda d: d["policy"]["rules"][3].update(ports=[7]))
    assert errors_of(inv) == [
        "inv/group_vars/all/policy.yml: policy.rules[3].ports: [7]: ports only with proto tcp or udp",
    ]


def test_a_permit_from_outside_is_refused(inventory_copy):
    inv = inventory_copy()
    inv.edit(POLICY, lambda d: d["policy"]["rules"].insert(0, {
        "name": "web-in", "from": "zone:outside", "to": "zone:production", "proto": "tcp", "ports": [80],
        "action": "permit"}))
    assert errors_of(inv) == [
        "inv/group_vars/all/policy.yml: policy.rules[0].from: 'zone:outside': a source inside the booth for a "
        "permit (the booth admits nothing new from the show network; zone:outside is a destination, or a deny)",
    ]


NETWORK = "group_vars/all/network.yml"
VPN = "group_vars/all/vpn.yml"


def _endpoint(name, **change):
    return lambda d: d["all"]["children"]["endpoints"]["hosts"][name].update(change)


# The other rules, one case each: (inventory, [(file, edit)], the exact message).
OTHER_RULES = {
    "vlan-mtu-range": (
        "lab-mini",
        [(VLANS, lambda d: d["vlans"][0].update(mtu=9300))],
        "inv/group_vars/all/vlans.yml: vlans[0].mtu: 9300: 576-9216",
    ),
    "vlan-gateway-unknown": (
        "lab-mini",
        [(VLANS, lambda d: d["vlans"][0].update(gateway="r9"))],
        "inv/group_vars/all/vlans.yml: vlans[0].gateway: 'r9': a known device: r1, r2",
    ),
    "vlan-router-unknown": (
        "lab-mini",
        [(VLANS, lambda d: d["vlans"][0].update(routers={"r9": "10.0.10.2"}))],
        "inv/group_vars/all/vlans.yml: vlans[0].routers.r9: 'r9': a known device",
    ),
    "vlan-router-address": (
        "lab-mini",
        [(VLANS, lambda d: d["vlans"][0].update(routers={"r2": "10.0.99.2"}))],
        "inv/group_vars/all/vlans.yml: vlans[0].routers.r2: '10.0.99.2': a host address in 10.0.10.0/24",
    ),
    "port-declared-twice": (
        "lab-mini",
        [("host_vars/r2.yml", lambda d: d["ports"].append({"name": "eth2", "speed": 1000}))],
        "inv/host_vars/r2.yml: ports[3].name: 'eth2': each port declared once (also ports[1])",
    ),
    "port-mtu-range": (
        "lab-mini",
        [("host_vars/r1.yml", lambda d: d["ports"][0].update(mtu=500))],
        "inv/host_vars/r1.yml: ports[0].mtu: 500: 576-65535 on frr_linux",
    ),
    # a line break in the name ended the configs' header comment, and named a build folder "\r" (fuzz, ci108)
    "network-name-line-break": (
        "lab-mini",
        [(NETWORK, lambda d: d["network"].update(name="\r"))],
        "inv/group_vars/all/network.yml: network.name: '\\r': non-empty text on one line, without control "
        "characters (line breaks, tabs)",
    ),
    "port-description-tab": (
        "lab-mini",
        [("host_vars/r1.yml", lambda d: d["ports"][0].update(description="to\th1"))],
        "inv/host_vars/r1.yml: ports[0].description: 'to\\th1': non-empty text on one line, without control "
        "characters (line breaks, tabs)",
    ),
    "mgmt-address": (
        "lab-mini",
        [("host_vars/r1.yml", lambda d: d.update(mgmt_address="198.18.2.11"))],
        "inv/host_vars/r1.yml: mgmt_address: '198.18.2.11': an address in the management subnet 198.18.1.0/24",
    ),
    "link-mtu-vs-ports": (
        "lab-mini",
        [(LINKS, lambda d: d["links"][0].update(mtu=1500))],
        "inv/group_vars/all/links.yml: links[0].mtu: 1500: the MTU of the ports it joins (9000 on r1:eth3)",
    ),
    "access-vlan-unknown": (
        "sc-booth",
        [(LINKS, lambda d: d["links"][1].update(vlan="nope"))],
        "inv/group_vars/all/links.yml: links[1].vlan: 'nope': a known VLAN id or name",
    ),
    "access-vlan-above-link-mtu": (
        "sc-booth",
        [
            (LINKS, lambda d: d["links"][1].update(mtu=1500)),
            ("host_vars/brt1.yml", lambda d: [p.pop("mtu", None) for p in d["ports"]]),
            ("host_vars/core1.yml", lambda d: [p.pop("mtu", None) for p in d["ports"] if p["name"].endswith("/47")]),
        ],
        "inv/group_vars/all/links.yml: links[1].vlan: 'show-uplink (mtu 9000)': "
        "a VLAN with an MTU of at most the link MTU 1500",
    ),
    "routed-without-addresses": (
        "lab-mini",
        [(LINKS, lambda d: d["links"][0].pop("addresses"))],
        "inv/group_vars/all/links.yml: links[0].addresses: 'missing': addresses {a: A/len, b: B/len} on a routed link",
    ),
    "routed-addresses-apart": (
        "lab-mini",
        [(LINKS, lambda d: d["links"][0]["addresses"].update(b="10.0.0.5/30"))],
        "inv/group_vars/all/links.yml: links[0].addresses: '10.0.0.1/30 / 10.0.0.5/30': "
        "two different addresses in one subnet",
    ),
    "endpoint-vlan-unknown": (
        "lab-mini",
        [("hosts.yml", _endpoint("h1", vlan="guests"))],
        "inv/hosts.yml: endpoints.h1.vlan: 'guests': a known VLAN name",
    ),
    "endpoint-is-gateway": (
        "lab-mini",
        [("hosts.yml", _endpoint("h1", address="10.0.10.1"))],
        "inv/hosts.yml: endpoints.h1.address: '10.0.10.1': "
        "a host address in 10.0.10.0/24 other than the gateway 10.0.10.1",
    ),
    "endpoint-address-twice": (
        "lab-mini",
        [("hosts.yml", _endpoint("h2", address="10.0.10.11"))],
        "inv/hosts.yml: endpoints.h2.address: '10.0.10.11': a unique address (also h1)",
    ),
    "endpoint-port-mtu": (
        "lab-mini",
        [("host_vars/r2.yml", lambda d: d["ports"][0].update(mtu=1500))],
        "inv/hosts.yml: endpoints.h3.attach: 'r2:eth1 (mtu 1500)': a port with an MTU of at least the VLAN MTU 9000",
    ),
    "selector-malformed": (
        "lab-mini",
        [(POLICY, lambda d: d["policy"]["rules"][0].update(to="net:10.0.0.0/8"))],
        "inv/group_vars/all/policy.yml: policy.rules[0].to: 'net:10.0.0.0/8': "
        "any, zone:<zone>, group:<host group> or vlan:<vlan name>",
    ),
    "selector-vlan-unknown": (
        "lab-mini",
        [(POLICY, lambda d: d["policy"]["rules"][0].update(to="vlan:guests"))],
        "inv/group_vars/all/policy.yml: policy.rules[0].to: 'vlan:guests': a known VLAN name",
    ),
    "rule-name-twice": (
        "lab-mini",
        [(POLICY, lambda d: d["policy"]["rules"][1].update(name="research-not-to-users"))],
        "inv/group_vars/all/policy.yml: policy.rules[1].name: 'research-not-to-users': unique rule names",
    ),
    "rule-port-range": (
        "lab-mini",
        [(POLICY, lambda d: d["policy"]["rules"][1].update(ports=[70000]))],
        "inv/group_vars/all/policy.yml: policy.rules[1].ports: 70000: ports 1-65535",
    ),
    "group-member-unknown": (
        "lab-mini",
        [(POLICY, lambda d: d["host_groups"]["admins"].append("h9"))],
        "inv/group_vars/all/policy.yml: host_groups.admins[1]: 'h9': a known endpoint",
    ),
    "host-groups-malformed": (
        "lab-mini",
        [(POLICY, lambda d: d.update(host_groups={"admins": "h1"}))],
        "inv/group_vars/all/policy.yml: host_groups: 'malformed': a mapping of group name to a list of endpoint names",
    ),
    "vpn-gateway-unknown": (
        "sc-booth",
        [(VPN, lambda d: d["vpn"].update(home_gateway="hgw9"))],
        "inv/group_vars/all/vpn.yml: vpn.home_gateway: 'hgw9': a known device",
    ),
    "vpn-subnet-not-a-vlan": (
        "sc-booth",
        [(VPN, lambda d: d["vpn"].update(booth_subnets=["vpn-clients"]))],
        "inv/group_vars/all/vpn.yml: vpn.booth_subnets[0]: 'vpn-clients': vlan:<a known VLAN name>",
    ),
    "vpn-clients-not-a-group": (
        "sc-booth",
        [(VPN, lambda d: d["vpn"].update(clients="vpn_clients"))],
        "inv/group_vars/all/vpn.yml: vpn.clients: 'vpn_clients': group:<a known host group>",
    ),
    "uplink-device-unknown": (
        "sc-booth",
        [(NETWORK, lambda d: d["uplink"].update(device="brt9"))],
        "inv/group_vars/all/network.yml: uplink.device: 'brt9': a known device",
    ),
    "throughput-endpoint-unknown": (
        "sc-booth",
        [("group_vars/all/throughput.yml", lambda d: d["throughput"]["paths"][0].update(to="theater9"))],
        "inv/group_vars/all/throughput.yml: throughput.paths[0].to: 'theater9': a known endpoint",
    ),
    "unknown-key": (
        "lab-mini",
        [(NETWORK, lambda d: d.update(mtu_polcy={"default": 1500}))],
        "inv/group_vars/all/network.yml: mtu_polcy: 'unknown key': one of host_groups, links, mtu_policy, network, "
        "policy, throughput, uplink, vlans, vpn (or an ansible_/boothnet_/vault_ variable)",
    ),
    "network-section-missing": (
        "lab-mini",
        [(NETWORK, lambda d: d.pop("network"))],
        "inv/group_vars/all/network.yml: network: 'missing': a `network:` section in group_vars/all",
    ),
}


@pytest.mark.parametrize("case", sorted(OTHER_RULES))
def test_other_rule_reports_its_exact_message(inventory_copy, case):
    network, edits, message = OTHER_RULES[case]
    inv = inventory_copy(network)
    for relative, change in edits:
        inv.edit(relative, change)
    assert message in errors_of(inv)


def test_a_port_range_is_named_by_its_entry_in_the_file(inventory_copy):
    """`GigabitEthernet1/0/{1-40}` is ports[0] of core1's file: errors name that entry (once), not
    the expanded port's index."""
    inv = inventory_copy("sc-booth")
    inv.edit("host_vars/core1.yml", lambda d: d["ports"][0].update(mtu=20000))
    inv.edit("host_vars/core1.yml", lambda d: d["ports"][2].update(speed="fast"))
    inv.edit("host_vars/core1.yml", lambda d: d["ports"].append({"name": "GigabitEthernet1/0/7", "speed": 1000}))
    assert errors_of(inv) == [
        "inv/host_vars/core1.yml: ports[2].speed: 'fast': "
        "Input should be a valid integer, unable to parse string as an integer",
    ]
    inv.edit("host_vars/core1.yml", lambda d: d["ports"][2].update(speed=1000))
    assert errors_of(inv) == [
        "inv/host_vars/core1.yml: ports[0].mtu: 20000: 576-9198 on cisco_ios",
        "inv/host_vars/core1.yml: ports[5].name: 'GigabitEthernet1/0/7': each port declared once (also ports[0])",
    ]


def test_a_switch_names_a_model_with_a_profile(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit("host_vars/core1.yml", lambda d: d.update(model="WS-C2960X-48"))
    assert errors_of(inv) == [
        "inv/host_vars/core1.yml: model: 'WS-C2960X-48': a cisco_ios model with a profile in platforms/profiles/: "
        "C9300-24T, C9300-48T, WS-C3850-48T"]


def test_a_port_the_model_lacks_or_a_speed_it_does_not_take_is_refused(inventory_copy):
    """core1 is a C9300-48T: no FastEthernet ports (the config a 9300 would reject), and its 10 GbE
    uplinks do not run at 100 Mb/s."""
    inv = inventory_copy("sc-booth")
    inv.edit("host_vars/core1.yml", lambda d: d["ports"].append({"name": "FastEthernet1/0/1", "speed": 100}))
    inv.edit("host_vars/core1.yml", lambda d: d["ports"][3].update(speed=100))
    assert errors_of(inv) == [
        "inv/group_vars/all/links.yml: links[0].speed: 'core1:TenGigabitEthernet1/1/1 speed 100 vs rsw1:Ethernet49 "
        "speed 10000': the same speed (Mb/s) on both ends of a link",
        "inv/host_vars/core1.yml: ports[3].speed: 100: a speed TenGigabitEthernet1/1/1 of C9300-48T takes: "
        "1000, 10000 Mb/s",
        "inv/host_vars/core1.yml: ports[5].name: 'FastEthernet1/0/1': a port of C9300-48T (catalyst9300, release "
        "17.9.4): GigabitEthernet1/0/1-48, TenGigabitEthernet1/1/1-8"]


def test_wan_properties_belong_on_a_routed_link_and_jitter_within_the_delay(inventory_copy):
    inv = inventory_copy("sc-booth")

    def change(data):
        data["links"][1].update(delay_ms=5)  # core1 -- brt1: an access link
        data["links"][-1].update(delay_ms=25, jitter_ms=30)

    inv.edit(LINKS, change)
    assert errors_of(inv) == [
        "inv/group_vars/all/links.yml: links[1].mode: 'access': "
        "routed: delay_ms, jitter_ms and loss_pct describe a WAN hop between routers",
        "inv/group_vars/all/links.yml: links[5].jitter_ms: 30.0: "
        "at most delay_ms (25.0): a frame cannot leave before it arrived",
    ]


@pytest.mark.parametrize("field,value,allowed", [("delay_ms", -1, "greater than or equal to 0"),
                                                 ("loss_pct", 50, "less than 50"),
                                                 ("delay_ms", "slow", "a valid number")])
def test_wan_values_out_of_range(inventory_copy, field, value, allowed):
    inv = inventory_copy("sc-booth")
    inv.edit(LINKS, lambda d: d["links"][-1].update({field: value}))
    (error,) = errors_of(inv)
    assert error.startswith(f"inv/group_vars/all/links.yml: links[5].{field}: {value!r}") and allowed in error


NETWORK = "group_vars/all/network.yml"


@pytest.mark.parametrize(("net", "mtu", "limit"), [("lab-mini", 500, 65535), ("lab-mini", 70000, 65535),
                                                   ("sc-booth", 9300, 9198)])
def test_link_mtu_out_of_range_like_its_twin_on_a_port(inventory_copy, net, mtu, limit):
    inv = inventory_copy(net)
    inv.edit(LINKS, lambda d: d["links"][0].update(mtu=mtu))
    assert f"inv/group_vars/all/links.yml: links[0].mtu: {mtu}: 576-{limit} (the ports' platforms)" in errors_of(inv)


def test_mtu_policy_out_of_range(inventory_copy):
    inv = inventory_copy()
    inv.edit(NETWORK, lambda d: d["mtu_policy"].update(crypto_inner=400))
    assert "inv/group_vars/all/network.yml: mtu_policy.crypto_inner: 400: 576-9216" in errors_of(inv)


def test_ospf_dead_not_longer_than_hello(inventory_copy):
    inv = inventory_copy()
    inv.edit(NETWORK, lambda d: d["network"]["ospf"].update(hello=10, dead=5))
    assert errors_of(inv) == [
        "inv/group_vars/all/network.yml: network.ospf.dead: 5: more than hello (10 s), usually 4 x hello: "
        "neighbours would time out between hellos"
    ]


def test_ospf_timer_zero(inventory_copy):
    inv = inventory_copy()
    inv.edit(NETWORK, lambda d: d["network"]["ospf"].update(hello=0))
    assert "inv/group_vars/all/network.yml: network.ospf.hello: 0: 1-65535 seconds" in errors_of(inv)


def test_two_devices_with_one_router_id(inventory_copy):
    inv = inventory_copy()
    inv.edit("host_vars/r2.yml", lambda d: d.update(router_id="10.0.255.1"))
    assert errors_of(inv) == [
        "inv/host_vars/r2.yml: router_id: '10.0.255.1': a router ID no other device uses (r1 has it)"]


def test_a_throughput_path_from_a_host_to_itself(inventory_copy):
    inv = inventory_copy()
    inv.edit("group_vars/all/throughput.yml", lambda d: d["throughput"].update(
        paths=[{"name": "loop", "from": "h1", "to": "h1"}]))
    assert errors_of(inv) == [
        "inv/group_vars/all/throughput.yml: throughput.paths[0].to: 'h1': another endpoint than the path's "
        "source h1 (a host to itself crosses no network)"]


# --- issue 41's hidden cases: each was accepted with exit 0 ----------------------------------------

def test_a_trunk_that_leaves_a_vlan_out_strands_its_hosts(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit(LINKS, lambda d: d["links"][0].update(vlans=["110-124"]))  # research-16 (125) left out
    assert [e for e in errors_of(inv) if "r16-" in e] == [
        f"inv/hosts.yml: endpoints.r16-{h}.vlan: 'research-16': a VLAN carried from rsw1 to its gateway core1: "
        "no chain of trunks or access links carrying research-16 (VLAN 125) joins them (a trunk's vlans list "
        "leaving it out?)" for h in ("cn1", "cn2", "fs")]


def test_an_uplink_next_hop_on_none_of_the_routers_links(inventory_copy):
    inv = inventory_copy("fw-booth")
    inv.edit("group_vars/all/network.yml", lambda d: d["uplink"].update(next_hop="192.0.9.1"))
    assert [e for e in errors_of(inv) if "next_hop" in e] == [
        "inv/group_vars/all/network.yml: uplink.next_hop: '192.0.9.1': an address on one of fw1's links or VLANs "
        "(192.0.2.0/30, 10.20.10.0/24, 10.20.20.0/24, 10.120.1.0/24, 10.120.2.0/24): the default route and the "
        "uplink firewall need the interface it leaves by"]


def test_an_outside_link_too_small_for_the_tunnel(inventory_copy):
    inv = inventory_copy("sc-booth")
    # no MTU on the outside link or its ports: 1500, far below 8950 + ESP
    inv.edit(LINKS, lambda d: [lk.pop("mtu", None) for lk in d["links"] if "bgw1:eth2" in (lk["a"], lk["b"])])
    inv.edit("host_vars/bgw1.yml", lambda d: [p.pop("mtu", None) for p in d["ports"] if p["name"] == "eth2"])
    inv.edit("host_vars/show1.yml", lambda d: [p.pop("mtu", None) for p in d["ports"] if p["name"] == "eth2"])
    assert "inv/group_vars/all/network.yml: mtu_policy.crypto_inner: 8950: at most 1435: ESP adds up to 65 bytes " \
           "and the outer link bgw1:eth2 -- show1:eth2 has MTU 1500" in errors_of(inv)


def test_a_vpn_client_outside_the_vpns_booth_subnets_and_one_listed_twice(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit(POLICY, lambda d: d["host_groups"].update(vpn_clients=["client1", "booth1", "client1"]))
    assert [e for e in errors_of(inv) if "host_groups" in e] == [
        "inv/group_vars/all/policy.yml: host_groups.vpn_clients[1]: 'booth1': a host in a VLAN of "
        "vpn.booth_subnets (vpn-clients): booth1 is in booth-lan, which the tunnel does not carry"]


def test_a_vpn_client_listed_twice_is_a_warning(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit(POLICY, lambda d: d["host_groups"].update(vpn_clients=["client1", "client2", "client1"]))
    assert "inv/group_vars/all/policy.yml: host_groups.vpn_clients[2]: 'client1': each VPN client once " \
           "(listed again)" in load_network(inv.path).warnings


def test_two_throughput_paths_with_one_name(inventory_copy):
    inv = inventory_copy("sc-booth")
    inv.edit("group_vars/all/throughput.yml",
             lambda d: d["throughput"]["paths"][1].update(name=d["throughput"]["paths"][0]["name"]))
    assert [e for e in errors_of(inv) if "paths[1].name" in e] == [
        "inv/group_vars/all/throughput.yml: throughput.paths[1].name: 'booth-to-theater': a name no other path "
        "has (paths[0] has it): results are kept by name"]


def test_a_port_listed_twice_in_a_rule(inventory_copy):
    """The fuzzer's case: the same ACL line would print twice (the reader found it: hier_config
    will not read a line given twice in one section)."""
    inv = inventory_copy("sc-booth")
    inv.edit(POLICY, lambda d: d["policy"]["rules"][5].update(ports=[22, 22, 443]))
    assert errors_of(inv) == [
        "inv/group_vars/all/policy.yml: policy.rules[5].ports[1]: 22: each port once (it is listed earlier)"]


HOSTS = "hosts.yml"


def _hosts(data: dict) -> dict:
    return data["all"]["children"]["endpoints"]["hosts"]


def test_host_macs_in_the_wrong_form_twice_or_missing_where_the_vlan_binds_ports(inventory_copy):
    inv = inventory_copy()
    inv.edit(VLANS, lambda d: d["vlans"][0].update(bind_hosts=True))  # users: h1, h2

    def macs(data: dict) -> None:
        hosts = _hosts(data)
        hosts["h1"]["mac"] = "02:00:5e:10:10:11"
        hosts["h3"]["mac"] = "0200.5E10.1011"  # h1's, written the Cisco way
        hosts["h4"]["mac"] = "01:00:5e:00:00:01"  # a multicast MAC

    inv.edit(HOSTS, macs)
    assert errors_of(inv) == [
        "inv/hosts.yml: endpoints.h2.mac: 'missing': the host's MAC (such as 02:00:5e:10:30:12): VLAN users binds "
        "its hosts' ports to their MACs (bind_hosts)",
        "inv/hosts.yml: endpoints.h3.mac: '0200.5E10.1011': a MAC of one host only (also h1's)",
        "inv/hosts.yml: endpoints.h4.mac: '01:00:5e:00:00:01': a unicast MAC as 02:00:5e:10:30:12, "
        "02-00-5e-10-30-12 or 0200.5e10.3012",
    ]


def test_a_bound_host_on_a_trunk_port(inventory_copy):
    inv = inventory_copy("sc-booth")  # vpn-clients binds its hosts' ports
    inv.edit(HOSTS, lambda d: _hosts(d)["client1"].update(attach="core1:TenGigabitEthernet1/1/1"))
    assert errors_of(inv) == [
        "inv/hosts.yml: endpoints.client1.attach: 'core1:TenGigabitEthernet1/1/1': an access port of its own: VLAN "
        "vpn-clients binds its hosts' ports to their MACs (bind_hosts), and core1:TenGigabitEthernet1/1/1 is a trunk "
        "port (links[0].a)",
    ]


def test_bind_hosts_must_be_true_or_false(inventory_copy):
    inv = inventory_copy()
    inv.edit(VLANS, lambda d: d["vlans"][0].update(bind_hosts="sometimes"))
    assert errors_of(inv) == [
        "inv/group_vars/all/vlans.yml: vlans[0].bind_hosts: 'sometimes': Input should be a valid boolean, "
        "unable to interpret input",
    ]


def test_a_rule_admitting_listed_hosts_on_unbound_ports_is_a_warning_and_the_acl_review_lists_it(inventory_copy):
    from boothnet.verify.acl_review.report import AddressRule

    inv = inventory_copy("sc-booth")
    bound = load_network(str(inv.path))
    assert bound.warnings == [] and all(not a.unbound for a in AddressRule.of(bound))
    inv.edit(VLANS, lambda d: d["vlans"][2].pop("bind_hosts"))  # vpn-clients
    net = load_network(str(inv.path))
    assert net.warnings[0] == (
        "inv/group_vars/all/policy.yml: policy.rules[5]: 'clients-to-home': listed hosts on bound ports: it admits "
        "client1, client2, client3 into the secured network by address alone, and their ports are not bound "
        "(bind_hosts on VLAN vpn-clients and each host's mac)")
    assert [w.split(": ")[2] for w in net.warnings] == [
        "'clients-to-home'", "'clients-udp-home'", "'clients-ping-home'"]
    review = AddressRule.of(net)
    assert [(a.rule, a.unbound) for a in review][0] == ("clients-to-home", ["client1", "client2", "client3"])
    assert review[0].ports["client1"] == "core1:GigabitEthernet1/0/41 UNBOUND"
    from boothnet.verify.acl_review.report import OFFLINE, AclReview, review_markdown

    text = review_markdown(AclReview(net.name, "HEAD", "working tree", OFFLINE, "SKIPPED: test", address_rules=review))
    assert "- **WARNING**: `clients-to-home` rests on unbound ports: client1, client2, client3\n" in text


def test_an_unquoted_mac_that_yaml_reads_as_a_number(inventory_copy):
    inv = inventory_copy()
    hosts = (inv.path / HOSTS).read_text().replace('role: client}', 'role: client, mac: 12:34:56:00:00:01}', 1)
    (inv.path / HOSTS).write_text(hosts)
    assert errors_of(inv) == [
        "inv/hosts.yml: endpoints.h1.mac: 9783936001: Value error, a MAC written as text in quotes, e.g. "
        '"02:00:5e:10:30:12" (unquoted, YAML reads some MACs as numbers)']


def test_a_management_gateway_needs_every_switchs_management_port_in_a_vrf(inventory_copy):
    """core1's Gi0/0 is in Mgmt-vrf (its own default route); rsw1's Management1 is in the default VRF."""
    inv = inventory_copy("sc-booth")
    inv.edit("group_vars/all/network.yml", lambda d: d["network"].update(management={"gateway": "10.9.9.9"}))
    assert [e for e in errors_of(inv) if "management" in e] == [
        "inv/group_vars/all/network.yml: network.management.gateway: '10.9.9.9': an address in the management "
        "subnet 198.18.0.0/24",
        "inv/group_vars/all/network.yml: network.management.gateway: '10.9.9.9': none while rsw1 keep(s) the "
        "management port in the default VRF (EOS Management1): a default route there would route booth traffic "
        "too; put the controller on the management subnet"]


def test_icmp_types_unknown_on_another_protocol_twice_and_of_no_family_the_booth_has(inventory_copy):
    inv = inventory_copy()  # lab-mini: IPv4 only

    def change(data):
        rules = data["policy"]["rules"]
        rules[1]["icmp_types"] = ["echo-request"]  # admins-ssh-to-lab: tcp
        rules[3]["icmp_types"] = ["echo-request", "ping", "echo-request"]  # ping-anywhere: icmp
        rules.insert(0, {"name": "ptb", "from": "any", "to": "any", "proto": "icmp", "action": "permit",
                         "icmp_types": ["packet-too-big"]})

    inv.edit(POLICY, change)
    allowed = ("echo-request, echo-reply, destination-unreachable, time-exceeded, parameter-problem, redirect, "
               "timestamp-request, timestamp-reply, packet-too-big")
    assert errors_of(inv) == [
        "inv/group_vars/all/policy.yml: policy.rules[0].icmp_types: ['packet-too-big']: a type of a family the "
        "booth's VLANs have (IPv4): the rule would match nothing",
        "inv/group_vars/all/policy.yml: policy.rules[2].icmp_types: ['echo-request']: icmp_types only with proto icmp",
        f"inv/group_vars/all/policy.yml: policy.rules[4].icmp_types[1]: 'ping': ICMP types: {allowed}",
        "inv/group_vars/all/policy.yml: policy.rules[4].icmp_types[2]: 'echo-request': each type once (it is "
        "listed earlier)",
    ]
