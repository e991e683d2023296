"""Cases the intent fuzzer (tests/fuzz) found, each a crash before it was fixed; exact messages."""

from __future__ import annotations

import pytest

from boothnet.errors import IntentInvalid
from boothnet.intent import load_network

CASES = {
    # pydantic failed building the Network: a host group member that is not a name
    "host-group-member-null": (
        "lab-mini", "group_vars/all/policy.yml", lambda d: d["host_groups"]["admins"].append(None),
        "inv/group_vars/all/policy.yml: host_groups: 'malformed': "
        "a mapping of group name to a list of endpoint names"),
    # max() of no ESP proposals, in the crypto-MTU check
    "vpn-no-esp-proposal": (
        "sc-booth", "group_vars/all/vpn.yml", lambda d: d["vpn"].update(esp_proposals=[]),
        "inv/group_vars/all/vpn.yml: vpn.esp_proposals: 'list': List should have at least 1 item after "
        "validation, not 0"),
    # `subnet: false` was read as 0.0.0.0/32, whose hosts() is a list: TypeError deriving the gateway
    "vlan-subnet-false": (
        "sc-booth", "group_vars/all/vlans.yml", lambda d: d["vlans"][21].update(subnet=False),
        "inv/group_vars/all/vlans.yml: vlans[21].subnet: False: Value error, an IPv4 address or prefix written "
        "as text, e.g. 10.0.10.1 or 10.0.10.0/24"),
    "vlan-subnet-host-route": (
        "lab-mini", "group_vars/all/vlans.yml", lambda d: d["vlans"][0].update(subnet="10.0.10.0/32"),
        "inv/group_vars/all/vlans.yml: vlans[0].subnet: '10.0.10.0/32': "
        "a VLAN subnet of /30 or larger (a gateway and hosts)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_found_case_is_a_named_error(inventory_copy, case):
    network, relative, change, message = CASES[case]
    inv = inventory_copy(network)
    inv.edit(relative, change)
    with pytest.raises(IntentInvalid) as caught:
        load_network(inv.path)
    assert message in [str(e) for e in caught.value.errors]
