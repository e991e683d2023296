"""The `assert_*` library for checks: each returns True or raises with the offending rows.

The logic lives in `boothnet.batfish.asserts` (unit-tested there); this is the name checks
and playbooks import.
"""

from boothnet.batfish.asserts import (
    BatfishCheckError,
    BatfishCheckWarning,
    CheckNotRun,
    assert_check_passed,
    assert_configs_parse,
    assert_ipsec_established,
    assert_mtu_consistent,
    assert_no_undefined_references,
    assert_no_unreachable_acl_lines,
    assert_path_mtu,
    assert_secure_network_only_from_clients,
    assert_vlans_on_switches,
    assert_zones_isolated,
)

__all__ = [
    "BatfishCheckError",
    "BatfishCheckWarning",
    "CheckNotRun",
    "assert_check_passed",
    "assert_configs_parse",
    "assert_ipsec_established",
    "assert_mtu_consistent",
    "assert_no_undefined_references",
    "assert_no_unreachable_acl_lines",
    "assert_path_mtu",
    "assert_secure_network_only_from_clients",
    "assert_vlans_on_switches",
    "assert_zones_isolated",
]
