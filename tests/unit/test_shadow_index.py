"""The shadow check compares a rule only with the earlier rules that can cover it; it must find
the same first covering rule as comparing with every earlier rule."""

from __future__ import annotations

from ipaddress import IPv4Network

from hypothesis import given, settings
from hypothesis import strategies as st

from boothnet.intent.model import Rule
from boothnet.intent.validate import _rule_covers, first_covers

# selectors over a few nested prefixes, a two-prefix zone, a group of /32s, an address-less zone
SELECTORS = {
    "any": [None],
    "zone:all": [IPv4Network("10.0.0.0/16")],
    "zone:pair": [IPv4Network("10.0.1.0/24"), IPv4Network("10.0.4.0/23")],
    "vlan:a": [IPv4Network("10.0.1.0/24")],
    "vlan:b": [IPv4Network("10.0.4.0/24")],
    "vlan:c": [IPv4Network("10.0.5.0/24")],
    "vlan:wide": [IPv4Network("10.0.0.0/22")],
    "group:hosts": [IPv4Network("10.0.1.7/32"), IPv4Network("10.0.5.9/32")],
    "group:empty": [],
    "zone:outside": [],
}

rules = st.lists(st.builds(
    lambda i, src, dst, proto, ports, action: Rule.model_validate(
        {"name": f"r{i}", "from": src, "to": dst, "proto": proto, "ports": ports if proto in ("tcp", "udp") else [],
         "action": action}),
    st.integers(0, 999), st.sampled_from(sorted(SELECTORS)), st.sampled_from(sorted(SELECTORS)),
    st.sampled_from(["ip", "icmp", "tcp", "udp"]), st.lists(st.sampled_from([22, 80, 443]), unique=True, max_size=2),
    st.sampled_from(["permit", "deny"])), max_size=25)


def naive(policy: list[Rule]) -> list[tuple[int, int]]:
    found = []
    for later_index, later in enumerate(policy):
        hit = next((i for i, earlier in enumerate(policy[:later_index])
                    if _rule_covers(SELECTORS.__getitem__, earlier, later)), None)
        if hit is not None:
            found.append((later_index, hit))
    return found


@settings(max_examples=300, deadline=None)
@given(rules)
def test_indexed_shadow_check_equals_the_all_pairs_one(policy: list[Rule]) -> None:
    assert list(first_covers(SELECTORS.__getitem__, policy)) == naive(policy)


def test_a_wide_rule_first_shadows_a_narrow_one() -> None:
    policy = [Rule.model_validate({"name": "wide", "from": "vlan:wide", "to": "any", "action": "deny"}),
              Rule.model_validate({"name": "narrow", "from": "group:hosts", "to": "vlan:b", "proto": "tcp",
                                   "ports": [22], "action": "permit"}),
              Rule.model_validate({"name": "host", "from": "vlan:a", "to": "vlan:b", "proto": "tcp", "ports": [22],
                                   "action": "permit"})]
    # group:hosts has 10.0.5.9, outside vlan:wide (10.0.0.0/22): not covered; vlan:a is
    assert list(first_covers(SELECTORS.__getitem__, policy)) == [(2, 0)]
