"""Research/production isolation and the secured network (live Batfish)."""

from assertions import assert_secure_network_only_from_clients, assert_zones_isolated


def test_zones_isolated(need, answers, verify_intent):
    assert assert_zones_isolated(need(answers.isolation, "isolation questions"),
                                 verify_intent)


def test_secure_network_only_from_clients(need, answers, verify_intent):
    assert assert_secure_network_only_from_clients(
        need(answers.secure, "secured-network searchFilters"), verify_intent)
