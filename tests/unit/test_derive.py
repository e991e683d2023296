"""Derivation: ports, trunks, SVIs, ACLs that implement the policy exactly, routes, OSPF, VPN."""

from __future__ import annotations

import itertools
from ipaddress import IPv4Network

import pytest

from boothnet.derive import DeriveContext, derive_network
from boothnet.derive.policy import PolicyCompiler, acl_decision, covers, policy_decision
from boothnet.intent import load_network


@pytest.fixture(scope="module")
def booth():
    return load_network("inventories/sc-booth")


@pytest.fixture(scope="module")
def models(booth):
    return derive_network(booth)


def _iface(model, name):
    return next(i for i in model.interfaces if i.name == name)


def test_trunk_carries_the_research_vlans_at_jumbo_mtu(models):
    core_trunk = _iface(models["core1"], "TenGigabitEthernet1/1/1")
    assert core_trunk.kind == "trunk" and core_trunk.allowed_vlans == list(range(110, 126))
    assert core_trunk.mtu == 9000
    assert _iface(models["rsw1"], "Ethernet49").allowed_vlans == list(range(110, 126))
    assert [v.id for v in models["rsw1"].vlans] == list(range(110, 126))


def test_svis_with_gateway_addresses_and_acls(models):
    svi = _iface(models["core1"], "Vlan110")
    assert str(svi.address) == "10.110.1.1/24" and svi.mtu == 9000 and svi.acl_in == "RESEARCH_01_IN"
    transit = _iface(models["core1"], "Vlan60")
    assert transit.acl_in is None, "transit VLAN with routers is not filtered"
    assert str(_iface(models["brt1"], "br60").address) == "10.10.60.2/29"


def test_access_ports_for_endpoints(models):
    port = _iface(models["rsw1"], "Ethernet3")
    assert (port.kind, port.vlan, port.description) == ("access", 110, "r01-fs (fileserver)")


def test_no_acl_line_is_shadowed_by_an_earlier_one(models):
    for model in models.values():
        for acl in model.acls:
            for later_index, later in enumerate(acl.entries):
                for earlier in acl.entries[:later_index]:
                    assert not covers(earlier, later), f"{model.name} {acl.name}: {later} shadowed by {earlier}"


def _hosts(net, vlan):
    return [IPv4Network(f"{e.address}/32") for e in net.endpoints.values() if e.vlan == vlan.name]


def test_acls_implement_the_policy_for_every_endpoint_pair(booth, models):
    """Evaluate the core's ACLs like the switch would and compare with the intent, flow by flow."""
    compiler = PolicyCompiler(booth)
    acls = {acl.name: acl for acl in models["core1"].acls}
    probes = [("tcp", 22), ("tcp", 80), ("tcp", 443), ("udp", 53), ("icmp", None)]
    checked = 0
    for src_vlan, dst_vlan in itertools.permutations([v for v in booth.vlans if v.gateway == "core1"], 2):
        svi = _iface(models["core1"], f"Vlan{src_vlan.id}")
        if svi.acl_in is None:
            continue
        for src, dst in itertools.product(_hosts(booth, src_vlan)[:2], _hosts(booth, dst_vlan)[:1]):
            for proto, port in probes:
                line = acl_decision(acls[svi.acl_in].entries, src, dst, proto, port)
                expected, rule = policy_decision(compiler, src_vlan, src, dst, proto, port)
                assert line is not None and line.action == expected, (src, dst, proto, port, rule, line)
                checked += 1
    assert checked > 1000


def test_research_cannot_reach_production_except_listed_services(booth, models):
    acl = next(a for a in models["core1"].acls if a.name == "RESEARCH_05_IN").entries
    node, booth_lan, theater = (IPv4Network(x) for x in ("10.110.5.11/32", "10.10.10.10/32", "10.10.20.10/32"))
    assert acl_decision(acl, node, booth_lan, "tcp", 22).action == "deny"
    assert acl_decision(acl, node, theater, "tcp", 443).action == "permit"
    assert acl_decision(acl, node, theater, "tcp", 22).action == "deny"
    assert acl_decision(acl, node, IPv4Network("192.0.2.99/32"), "tcp", 443).action == "permit"


def test_home_firewall_admits_only_listed_clients_through_the_tunnel(models):
    acl = next(a for a in models["hgw1"].acls if a.name == "SECURE_HOME_OUT").entries
    home = IPv4Network("10.200.1.10/32")
    for client in ("10.10.30.11/32", "10.10.30.12/32", "10.10.30.13/32"):
        assert acl_decision(acl, IPv4Network(client), home, "tcp", 22, via_tunnel=True).action == "permit"
        assert acl_decision(acl, IPv4Network(client), home, "tcp", 22, via_tunnel=False).action == "deny"
    assert acl_decision(acl, IPv4Network("10.10.30.14/32"), home, "tcp", 22, via_tunnel=True).action == "deny"
    assert acl_decision(acl, IPv4Network("10.110.1.11/32"), home, "icmp", via_tunnel=True).action == "deny"


def test_routes_ospf_and_vpn(models):
    assert [(str(r.prefix), str(r.next_hop)) for r in models["brt1"].routes] == [("0.0.0.0/0", "192.0.2.1")]
    assert models["brt1"].ospf.default_originate
    passive = {o.name: o.passive for o in models["core1"].ospf.interfaces}
    assert passive["Vlan60"] is False and passive["Vlan10"] is True
    bgw = models["bgw1"]
    assert [str(p) for p in bgw.ospf.redistribute] == ["10.200.1.0/24"]
    assert str(bgw.vpn.remote_address) == "203.0.113.2" and bgw.vpn.inner_mtu == 8950 and bgw.vpn.mss == 8910
    assert models["hgw1"].vpn.initiator is False and models["rsw1"].ospf is None


def test_lab_context_renames_ports_and_flattens_trunks(booth):
    ctx = DeriveContext(
        platform_override="frr_linux",
        port_map={"core1": {"TenGigabitEthernet1/1/1": "eth49"}},
        vlan_mode="segment",
        tunnel_backend="libipsec",
    )
    core = derive_network(booth, ctx)["core1"]
    assert core.platform == "frr_linux" and _iface(core, "br110").address is not None
    assert "link set eth49v110 master br110" in core.linux_statements
    assert not any("type vlan" in s for s in core.linux_statements)
    dot1q = derive_network(booth, DeriveContext(platform_override="frr_linux", vlan_mode="dot1q"))["core1"]
    assert (
        "link add link TenGigabitEthernet1/1/1 name TenGigabitEthernet1/1/1.110 type vlan id 110"
        in dot1q.linux_statements
    )
    # stateful platform: no return-traffic lines, the firewall tracks connections
    assert not any(e.established for acl in core.acls for e in acl.entries)


def test_eos_acl_lines_have_no_duplicate_sequence_numbers(booth):
    """A multi-port rule expands to several lines; EOS must not see one sequence number twice."""
    core_as_eos = derive_network(booth, DeriveContext(substitute={"cisco_ios": "arista_eos"}))["core1"]
    acl = next(a for a in core_as_eos.acls if a.name == "RESEARCH_01_IN")
    web = [line for line in acl.lines if "10.10.20.0/24" in line and line.split()[0] == "permit"]
    assert len(web) == 2 and web[0] != web[1]
    leading = [line.split()[0] for line in acl.lines if line.split()[0].isdigit()]
    assert len(leading) == len(set(leading))


def test_linux_gateways_never_send_protected_traffic_in_clear(models):
    # hardware-like kernel (xfrm): routes via the show network, guarded by "rt ipsec missing"
    bgw = models["bgw1"]
    assert bgw.leak_guard == [
        'ip daddr 10.200.1.0/24 rt ipsec missing log prefix "boothnet cleartext-guard " counter drop'
    ]
    assert bgw.vpn.inner_mtu == 8950 and bgw.vpn.mss == 8910


def test_libipsec_backend_routes_into_its_tun_device_at_the_mtu_it_carries(booth):
    lab = derive_network(booth, DeriveContext(platform_override="frr_linux", tunnel_backend="libipsec"))
    bgw, hgw = lab["bgw1"], lab["hgw1"]
    assert (bgw.vpn.inner_mtu, bgw.vpn.intent_inner_mtu, bgw.vpn.mss) == (1400, 8950, 1360)
    routes = {(str(r.prefix), str(r.next_hop), r.distance) for r in bgw.routes}
    assert {("10.200.1.0/24", "ipsec0", None), ("10.200.1.0/24", "blackhole", 250)} <= routes
    assert ("10.10.30.0/24", "ipsec0", None) in {(str(r.prefix), str(r.next_hop), r.distance) for r in hgw.routes}
    assert bgw.leak_guard == [
        'ip daddr 10.200.1.0/24 oifname != "ipsec0" log prefix "boothnet cleartext-guard " counter drop'
    ]
    assert next(a for a in bgw.acls if a.name == "TO_HOME").interface == "ipsec0"
    # kernel-libipsec needs an address of the gateway inside each local subnet
    assert "addr add 10.10.30.0/32 dev ipsec0" in bgw.linux_statements
    assert "link set ipsec0 mtu 1400" in bgw.linux_statements
    assert not any("addr add" in s and "ipsec0" in s for s in hgw.linux_statements)  # owns 10.200.1.1

