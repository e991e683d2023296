"""The assert_* library: True, or an AssertionError carrying the offending rows; soft warns."""

from __future__ import annotations

import warnings

import pytest
from bf_recorded import answer, booth_intent, read_configs

from boothnet.verify.batfish.asserts import (
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
from boothnet.verify.batfish.report import CheckResult, Status


def test_undefined_reference_raises_with_offending_rows():
    with pytest.raises(BatfishCheckError) as err:
        assert_no_undefined_references(answer("undefinedReferences"), read_configs())
    assert isinstance(err.value, AssertionError)
    assert list(err.value.rows["Ref_Name"]) == ["MISSING_ACL"]
    assert "rsw1" in str(err.value) and "interface Vlan999" in str(err.value)


def test_soft_downgrades_to_warning_and_returns_false():
    with pytest.warns(BatfishCheckWarning, match="deny tcp any any eq 23"):
        assert assert_no_unreachable_acl_lines(answer("filterLineReachability"),
                                               soft=True) is False


def test_passing_asserts_return_true():
    intent = booth_intent()
    assert assert_vlans_on_switches(answer("switchedVlanProperties"),
                                    answer("interfaceProperties"), intent, read_configs())
    assert assert_ipsec_established(answer("ipsecSessionStatus"), intent)
    assert assert_zones_isolated([answer("reachability_research_to_prod")], intent)
    assert assert_secure_network_only_from_clients([answer("testFilters_client_to_secure")],
                                                   intent)
    assert assert_no_undefined_references(answer("undefinedReferences").iloc[0:0])


def test_failing_asserts_raise():
    intent = booth_intent()
    with pytest.raises(BatfishCheckError, match="9214"):
        assert_mtu_consistent(answer("interfaceProperties"), answer("layer3Edges"), intent)
    with pytest.raises(BatfishCheckError, match="PARTIALLY_UNRECOGNIZED"):
        assert_configs_parse(answer("fileParseStatus"), answer("parseWarning"))
    with pytest.raises(BatfishCheckError, match="10.10.30.0"):
        assert_secure_network_only_from_clients([answer("searchFilters_differential_secure")],
                                                intent)
    with pytest.raises(BatfishCheckError, match="research can reach production"):
        assert_zones_isolated([answer("differentialReachability_change_vs_base")], intent)


def test_warning_findings_warn_but_pass():
    with pytest.warns(BatfishCheckWarning, match="NO_ROUTE"):
        assert assert_path_mtu({"client-to-secure": answer("traceroute_client_to_secure")},
                               answer("interfaceProperties"), booth_intent(), read_configs())


def test_skipped_check_result_is_not_a_pass():
    skipped = CheckResult.skipped("ipsec", "IPsec", "no Batfish host")
    with pytest.raises(CheckNotRun, match="proves nothing"):
        assert_check_passed(skipped)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert assert_check_passed(skipped, soft=True) is False
    assert assert_check_passed(CheckResult("ipsec", "IPsec", Status.PASS))
