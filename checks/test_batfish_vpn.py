"""IPsec sessions and the path MTU of declared flows (live Batfish)."""

from assertions import assert_ipsec_established, assert_path_mtu


def test_ipsec_established(need, answers, verify_intent):
    assert assert_ipsec_established(need(answers.ipsec, "ipsecSessionStatus"),
                                    verify_intent)


def test_path_mtu(need, answers, verify_intent, configs):
    assert assert_path_mtu(need(answers.traces, "traceroute"),
                           need(answers.interface_properties, "interfaceProperties"),
                           verify_intent, configs)
