"""IPsec sessions, the path MTU of declared flows, declared paths routed both ways (live Batfish)."""

from assertions import assert_ipsec_established, assert_path_mtu, assert_routes


def test_ipsec_established(need, answers, verify_intent):
    assert assert_ipsec_established(need(answers.ipsec, "ipsecSessionStatus"),
                                    verify_intent)


def test_path_mtu(need, answers, verify_intent, configs):
    assert assert_path_mtu(need(answers.traces, "traceroute"),
                           need(answers.interface_properties, "interfaceProperties"),
                           verify_intent, configs)


def test_declared_paths_routed_there_and_back(need, answers, verify_intent):
    assert assert_routes(need(answers.traces, "traceroute"), verify_intent)
