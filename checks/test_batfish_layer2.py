"""VLANs on every switch that carries them; equal MTU on both ends of links (live Batfish)."""

from assertions import assert_mtu_consistent, assert_vlans_on_switches


def test_vlans_on_switches(need, answers, verify_intent, configs):
    assert assert_vlans_on_switches(
        need(answers.vlan_properties, "switchedVlanProperties"),
        need(answers.interface_properties, "interfaceProperties"),
        verify_intent, configs)


def test_mtu_consistent(need, answers, verify_intent):
    assert assert_mtu_consistent(
        need(answers.interface_properties, "interfaceProperties"),
        answers.layer3_edges, verify_intent)
