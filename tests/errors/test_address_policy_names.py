"""The address, link, name, policy-shadowing and VPN-zone rules: one case each, exact message."""

from __future__ import annotations

import re

import pytest

from boothnet.intent import load_network
from tests.helpers import errors_of

VLANS = "group_vars/all/vlans.yml"
LINKS = "group_vars/all/links.yml"
POLICY = "group_vars/all/policy.yml"
VPN = "group_vars/all/vpn.yml"


def _endpoint(name, **change):
    return lambda d: d["all"]["children"]["endpoints"]["hosts"][name].update(change)


def _rule(position, **rule):
    return lambda d: d["policy"]["rules"].insert(position, rule)


CASES = {
    "endpoint-network-address": (
        "lab-mini", [("hosts.yml", _endpoint("h1", address="10.0.10.0"))],
        "inv/hosts.yml: endpoints.h1.address: '10.0.10.0': a host address in 10.0.10.0/24, not its network address"),
    "endpoint-broadcast-address": (
        "lab-mini", [("hosts.yml", _endpoint("h1", address="10.0.10.255"))],
        "inv/hosts.yml: endpoints.h1.address: '10.0.10.255': "
        "a host address in 10.0.10.0/24, not its broadcast address"),
    "gateway-broadcast-address": (
        "lab-mini", [(VLANS, lambda d: d["vlans"][0].update(gateway_address="10.0.10.255"))],
        "inv/group_vars/all/vlans.yml: vlans[0].gateway_address: '10.0.10.255': a host address in 10.0.10.0/24"),
    "router-network-address": (
        "lab-mini", [(VLANS, lambda d: d["vlans"][0].update(routers={"r2": "10.0.10.0"}))],
        "inv/group_vars/all/vlans.yml: vlans[0].routers.r2: '10.0.10.0': "
        "a host address in 10.0.10.0/24, not its network address"),
    "router-is-gateway": (
        "lab-mini", [(VLANS, lambda d: d["vlans"][0].update(routers={"r2": "10.0.10.1"}))],
        "inv/group_vars/all/vlans.yml: vlans[0].routers.r2: '10.0.10.1': a unique address (also vlans[0] gateway r1)"),
    "router-is-an-endpoint": (
        "lab-mini", [(VLANS, lambda d: d["vlans"][0].update(routers={"r2": "10.0.10.11"}))],
        "inv/hosts.yml: endpoints.h1.address: '10.0.10.11': a unique address (also vlans[0].routers.r2)"),
    "link-network-address": (
        "lab-mini", [(LINKS, lambda d: d["links"][0]["addresses"].update(a="10.0.0.0/30"))],
        "inv/group_vars/all/links.yml: links[0].addresses.a: '10.0.0.0': "
        "a host address in 10.0.0.0/30, not its network address"),
    "mgmt-twice": (
        "lab-mini", [("host_vars/r2.yml", lambda d: d.update(mgmt_address="198.18.1.11"))],
        "inv/host_vars/r2.yml: mgmt_address: '198.18.1.11': a unique address (also r1 mgmt_address)"),
    "mgmt-broadcast": (
        "lab-mini", [("host_vars/r2.yml", lambda d: d.update(mgmt_address="198.18.1.255"))],
        "inv/host_vars/r2.yml: mgmt_address: '198.18.1.255': "
        "a host address in 198.18.1.0/24, not its broadcast address"),
    "endpoint-address-twice": (
        "lab-mini", [("hosts.yml", _endpoint("h2", address="10.0.10.11"))],
        "inv/hosts.yml: endpoints.h2.address: '10.0.10.11': a unique address (also h1)"),
    "link-speed-mismatch": (
        "lab-mini", [("host_vars/r2.yml", lambda d: d["ports"][2].update(speed=100))],
        "inv/group_vars/all/links.yml: links[0].speed: 'r1:eth3 speed 1000 vs r2:eth3 speed 100': "
        "the same speed (Mb/s) on both ends of a link"),
    "link-faster-than-ports": (
        "lab-mini", [(LINKS, lambda d: d["links"][0].update(speed=10000))],
        "inv/group_vars/all/links.yml: links[0].speed: 10000: at most the speed of the ports it joins (1000)"),
    "vlan-name-with-space": (
        "sc-booth", [(VLANS, lambda d: d["vlans"][1].update(name="theater demo"))],
        "inv/group_vars/all/vlans.yml: vlans[1].name: 'theater demo': a VLAN name valid on cisco_ios: "
        "letters, digits, '.', '_' and '-' only (pattern ^[A-Za-z0-9._-]+$)"),
    "vlan-name-too-long-for-ios": (
        "sc-booth", [(VLANS, lambda d: d["vlans"][1].update(name="theater-and-demo-stage-north-hall-a"))],
        "inv/group_vars/all/vlans.yml: vlans[1].name: 'theater-and-demo-stage-north-hall-a': "
        "a VLAN name valid on cisco_ios: at most 32 characters"),
    "acl-name-starts-with-digit": (
        "lab-mini", [(VLANS, lambda d: d["vlans"][0].update(name="1st-floor"))],
        "inv/group_vars/all/vlans.yml: vlans[0].name: '1st-floor': a name for the ACL 1ST_FLOOR_IN made from it "
        "valid on frr_linux: letters, digits, '.', '_' and '-' only (pattern ^[A-Za-z][A-Za-z0-9_.-]*$)"),
    "rule-shadowed-by-other-action": (
        "lab-mini", [(POLICY, _rule(2, name="no-admin-ssh", **{"from": "group:admins", "to": "zone:research"},
                                    proto="tcp", ports=[22], action="deny"))],
        "inv/group_vars/all/policy.yml: policy.rules[2]: 'no-admin-ssh': a rule that can apply: rules[1] "
        "admins-ssh-to-lab (permit) comes first and covers all of it, so its deny never applies"),
    "vpn-carries-research": (
        "sc-booth", [(VPN, lambda d: d["vpn"]["booth_subnets"].append("vlan:research-01"))],
        "inv/group_vars/all/vpn.yml: vpn.booth_subnets[1]: 'vlan:research-01': a VLAN outside the research zone, "
        "or list research in vpn.protected_zones to carry research traffic through the VPN on purpose"),
    "vpn-carries-production-unsaid": (
        "sc-booth", [(VPN, lambda d: d["vpn"].pop("protected_zones"))],
        "inv/group_vars/all/vpn.yml: vpn.booth_subnets[0]: 'vlan:vpn-clients': a VLAN outside the production zone, "
        "or list production in vpn.protected_zones to carry production traffic through the VPN on purpose"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rule_reports_its_exact_message(inventory_copy, case):
    network, edits, message = CASES[case]
    inv = inventory_copy(network)
    for relative, change in edits:
        inv.edit(relative, change)
    assert message in errors_of(inv)


def test_a_31_on_a_routed_link_is_fine(inventory_copy):
    inv = inventory_copy()
    inv.edit(LINKS, lambda d: d["links"][0].update(addresses={"a": "10.0.0.0/31", "b": "10.0.0.1/31"}))
    assert load_network(inv.path).links[0].addresses is not None


def test_a_redundant_rule_is_a_warning_not_an_error(inventory_copy):
    inv = inventory_copy()
    inv.edit(POLICY, _rule(2, name="admins-ssh-again", **{"from": "group:admins", "to": "zone:research"},
                           proto="tcp", ports=[22], action="permit"))
    net = load_network(inv.path)
    assert net.warnings == [
        "inv/group_vars/all/policy.yml: policy.rules[2]: 'admins-ssh-again': a rule that adds something: "
        "rules[1] admins-ssh-to-lab already permits all of it (redundant)"]


def test_reference_inventories_have_no_warnings():
    for name in ("lab-mini", "sc-booth"):
        assert load_network(f"inventories/{name}").warnings == [], name


def test_a_narrower_later_rule_with_another_port_is_not_shadowed(inventory_copy):
    inv = inventory_copy()
    inv.edit(POLICY, _rule(2, name="admins-https", **{"from": "group:admins", "to": "zone:research"},
                           proto="tcp", ports=[443], action="deny"))
    assert not [w for w in load_network(inv.path).warnings if re.search("admins-https", w)]
