"""Answer interpretation on the real recorded answers: each planted finding is reported,
and the same frame edited to remove it gives no finding."""

from __future__ import annotations

import dataclasses

import attr
import pandas as pd
from bf_recorded import answer, booth_intent, read_configs

from boothnet.verify.batfish import checks as ck
from boothnet.verify.batfish.intent import Service, ServiceRule, is_opening
from boothnet.verify.batfish.report import Severity


def _where(frame: pd.DataFrame, **eq: object) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for col, val in eq.items():
        mask &= frame[col].map(str) == str(val)
    return mask


# --- parsing ----------------------------------------------------------------------------------


def test_parsing_reports_partially_unrecognized_files_and_warnings():
    found = ck.check_parsing(answer("fileParseStatus"), answer("parseWarning"),
                             answer("initIssues"))
    assert {f.device for f in found} == {"bgw", "hgw"}
    assert any("PARTIALLY_UNRECOGNIZED" in f.message for f in found)
    assert any(f.location == "configs/bgw.cfg:6" and "authentication pre-share" in f.message
               for f in found)
    # initIssues repeats the parse warnings: reported once, not twice.
    assert len([f for f in found if "pre-share" in f.message]) == 2


def test_parsing_clean_frames_give_no_finding():
    status = answer("fileParseStatus").assign(Status="PASSED")
    empty_w, empty_i = answer("parseWarning").iloc[0:0], answer("initIssues").iloc[0:0]
    assert ck.check_parsing(status, empty_w, empty_i) == []


def test_init_issue_without_matching_parse_warning_is_reported():
    found = ck.check_parsing(answer("fileParseStatus").assign(Status="PASSED"),
                             answer("parseWarning").iloc[0:0], answer("initIssues"))
    assert len(found) == 1 and found[0].device == "bgw, hgw"


# --- references -------------------------------------------------------------------------------


def test_undefined_missing_acl_on_rsw1_is_reported_with_its_interface():
    found = ck.check_undefined_references(answer("undefinedReferences"), read_configs(),
                                          answer("fileParseStatus"))
    assert len(found) == 1
    f = found[0]
    assert f.device == "rsw1" and "MISSING_ACL" in f.message
    assert f.location is not None and "interface Vlan999" in f.location and "39" in f.location


def test_no_undefined_references_when_the_row_is_gone():
    assert ck.check_undefined_references(answer("undefinedReferences").iloc[0:0]) == []


# --- VLANs ------------------------------------------------------------------------------------


def test_vlans_pass_on_recorded_base():
    assert ck.check_vlans(answer("switchedVlanProperties"), answer("interfaceProperties"),
                          booth_intent(), read_configs()) == []


def test_vlan_missing_on_switch_is_reported():
    vlans = answer("switchedVlanProperties")
    vlans = vlans[~_where(vlans, Node="rsw1", VLAN_ID=110)]
    found = ck.check_vlans(vlans, answer("interfaceProperties"), booth_intent())
    assert any(f.device == "rsw1" and "VLAN 110" in f.message for f in found)


def test_trunk_carrying_an_undeclared_vlan_is_reported():
    configs = read_configs()
    configs["rsw1"] = configs["rsw1"].replace("vlan 111\n", "")
    found = ck.check_vlans(answer("switchedVlanProperties"), answer("interfaceProperties"),
                           booth_intent(), configs)
    assert [(f.device, f.location) for f in found] == [("rsw1", "Ethernet1")]
    assert "VLAN 111" in found[0].message


def test_trunk_ends_disagreeing_on_allowed_vlans_is_reported():
    props = answer("interfaceProperties")
    props.loc[props["Interface"].map(str) == "rsw1[Ethernet1]", "Allowed_VLANs"] = "10,20,110"
    found = ck.check_vlans(answer("switchedVlanProperties"), props, booth_intent())
    assert any(f.device == "rsw1" and "VLAN 111" in f.message and "other end" in f.message
               for f in found)


# --- MTU --------------------------------------------------------------------------------------


def test_mtu_9000_vs_9214_on_core1_rsw1_trunk_is_reported():
    found = ck.check_mtu(answer("interfaceProperties"), answer("layer3Edges"), booth_intent())
    assert len(found) == 1
    f = found[0]
    assert f.device == "core1" and "GigabitEthernet0/1" in (f.location or "")
    assert "9000" in f.message and "9214" in f.message and "rsw1[Ethernet1]" in f.message


def test_mtu_equal_ends_give_no_finding():
    props = answer("interfaceProperties")
    props.loc[props["Interface"].map(str) == "rsw1[Ethernet1]", "MTU"] = 9000
    assert ck.check_mtu(props, answer("layer3Edges"), booth_intent()) == []


def test_mtu_equal_but_not_the_intents_is_reported():
    props = answer("interfaceProperties")
    props.loc[props["Interface"].map(str) == "core1[GigabitEthernet0/1]", "MTU"] = 9214
    found = ck.check_mtu(props, answer("layer3Edges"), booth_intent())
    assert len(found) == 1 and "intent says 9000" in found[0].message


def test_mtu_mismatch_on_layer3_edge_without_intent_link_is_reported():
    props = answer("interfaceProperties")
    props.loc[props["Interface"].map(str) == "isp[GigabitEthernet0/0]", "MTU"] = 1400
    intent = dataclasses.replace(booth_intent(), links=())
    found = ck.check_mtu(props, answer("layer3Edges"), intent)
    assert len(found) == 1 and "1400" in found[0].message and "bgw" in found[0].message


# --- isolation --------------------------------------------------------------------------------


def test_isolation_passes_on_base_answers():
    frames = [answer("searchFilters_research_to_prod_permit"),
              answer("reachability_research_to_prod")]
    assert ck.check_isolation(frames, booth_intent()) == []


def test_isolation_reports_research_to_production_permit_with_example_flow():
    found = ck.check_isolation([answer("differentialReachability_change_vs_base")],
                               booth_intent())
    assert {f.flow for f in found} == {
        "TCP 10.110.1.2 -> 10.10.10.5 port 22 (ssh), entering core1 at Vlan110",
        "TCP 10.110.2.2 -> 10.10.10.5 port 22 (ssh), entering core1 at Vlan111",
    }
    assert all(f.device == "core1" and "RESEARCH_IN" in (f.location or "") for f in found)


def _with_tcp_flags(frame: pd.DataFrame, **flags: int) -> pd.DataFrame:
    """The recorded answer with its flows' TCP flags changed (pybatfish Flows are frozen)."""
    out = frame.copy()
    out["Flow"] = [attr.evolve(f, **flags) for f in out["Flow"]]
    return out


def test_isolation_return_traffic_is_not_a_breach():
    # THEATER_IN's `established` line on core1 matched a SYN+RST (seen live); only a bare SYN opens.
    frame = answer("differentialReachability_change_vs_base")
    assert ck.check_isolation([_with_tcp_flags(frame, tcpFlagsRst=1)], booth_intent()) == []
    assert ck.check_isolation([_with_tcp_flags(frame, tcpFlagsAck=1)], booth_intent()) == []
    assert len(ck.check_isolation([frame], booth_intent())) == 2


def test_opening_packets_are_syn_udp_and_echo_request():
    assert is_opening("TCP", tcp_syn=True)
    assert not is_opening("TCP", tcp_syn=True, tcp_ack=True)
    assert not is_opening("TCP", tcp_syn=True, tcp_rst=True)
    assert not is_opening("TCP")
    assert is_opening("UDP")
    assert is_opening("ICMP", icmp_type=8)
    assert not is_opening("ICMP", icmp_type=0)


def test_isolation_listed_service_is_not_a_finding():
    intent = dataclasses.replace(booth_intent(), allowed_services=(
        ServiceRule("10.110.0.0/16", "10.10.10.5/32", Service("tcp", (22,))),))
    assert ck.check_isolation([answer("differentialReachability_change_vs_base")], intent) == []


def test_isolation_reads_search_filters_permit_rows():
    # The secured-network answer reshaped as an isolation answer between two zones.
    frame = answer("searchFilters_differential_secure")
    intent = dataclasses.replace(booth_intent(), zones=(
        dataclasses.replace(booth_intent().zones[0], name="clients", prefixes=("10.10.30.0/24",)),
        dataclasses.replace(booth_intent().zones[1], name="home", prefixes=("10.200.0.0/16",))))
    found = ck.check_isolation([frame], intent)
    assert len(found) == 1 and found[0].device == "hgw"
    assert "SECURE_IN" in (found[0].location or "") and "eq 22" in (found[0].location or "")


# --- secured network --------------------------------------------------------------------------


def test_secure_network_listed_client_is_fine():
    assert ck.check_secure_network([answer("testFilters_client_to_secure")], booth_intent()) == []


def test_secure_network_reports_non_listed_source_with_example_flow():
    found = ck.check_secure_network([answer("searchFilters_differential_secure")],
                                    booth_intent())
    assert len(found) == 1
    f = found[0]
    assert f.device == "hgw" and "10.10.30.0" in f.message and "not a listed client" in f.message
    assert f.flow == "TCP 10.10.30.0 -> 10.200.1.0 port 22 (ssh), entering hgw"


def test_secure_network_fourth_client_is_reported():
    frame = answer("testFilters_client_to_secure")
    flow = frame.iloc[0]["Flow"]
    frame.at[frame.index[0], "Flow"] = type(flow).from_dict({**flow.dict(), "srcIp": "10.10.30.14"})
    found = ck.check_secure_network([frame], booth_intent())
    assert len(found) == 1 and "10.10.30.14" in found[0].message


def test_secure_network_client_with_unlisted_service_is_reported():
    intent = dataclasses.replace(booth_intent(), secure=dataclasses.replace(
        booth_intent().secure, services=(Service("tcp", (443,)),)))
    found = ck.check_secure_network([answer("testFilters_client_to_secure")], intent)
    assert len(found) == 1 and "service is not allowed" in found[0].message


# --- ACL lines --------------------------------------------------------------------------------


def test_shadowed_telnet_deny_in_core1_prod_in_is_reported_with_blocking_line():
    found = ck.check_acl_lines(answer("filterLineReachability"))
    assert len(found) == 1
    f = found[0]
    assert f.device == "core1" and f.location == "ACL PROD_IN: deny tcp any any eq 23"
    assert "'permit ip any any'" in f.message


def test_no_unreachable_lines_when_row_removed():
    assert ck.check_acl_lines(answer("filterLineReachability").iloc[0:0]) == []


# --- IPsec ------------------------------------------------------------------------------------


def test_ipsec_bgw_hgw_established_gives_no_finding():
    assert ck.check_ipsec(answer("ipsecSessionStatus"), booth_intent()) == []


def test_ipsec_phase1_failed_is_reported():
    frame = answer("ipsecSessionStatus").assign(Status="IKE_PHASE1_FAILED")
    found = ck.check_ipsec(frame, booth_intent())
    assert {f.device for f in found} == {"bgw", "hgw"}
    assert all("IKE_PHASE1_FAILED" in f.message for f in found)
    assert found[0].location == "GigabitEthernet0/0"


def test_ipsec_missing_session_is_reported():
    frame = answer("ipsecSessionStatus")
    found = ck.check_ipsec(frame[frame["Node"] == "bgw"], booth_intent())
    assert len(found) == 1 and found[0].device == "hgw" and "no IPsec session" in found[0].message


# --- path MTU ---------------------------------------------------------------------------------


def _trace() -> dict[str, pd.DataFrame]:
    return {"client-to-secure": answer("traceroute_client_to_secure")}


def test_path_mtu_meets_intent_on_recorded_trace_with_tunnel_warning():
    found = ck.check_path_mtu(_trace(), answer("interfaceProperties"), booth_intent(),
                              read_configs())
    assert [f.severity for f in found] == [Severity.WARNING]
    assert "NO_ROUTE" in found[0].message and found[0].device == "isp"


def test_path_mtu_below_intent_is_reported_at_the_bottleneck():
    # `ip mtu 1400` on bgw Gi0/1 (config text; Batfish says 1500) is the bottleneck.
    intent = booth_intent()
    intent = dataclasses.replace(intent, flows=(dataclasses.replace(intent.flows[0],
                                                                    min_mtu=1500),))
    found = [f for f in ck.check_path_mtu(_trace(), answer("interfaceProperties"), intent,
                                          read_configs()) if f.severity == Severity.ERROR]
    assert len(found) == 1
    assert found[0].device == "bgw" and found[0].location == "GigabitEthernet0/1"
    assert "1400" in found[0].message and "1500" in found[0].message


def test_path_mtu_missing_mss_clamp_is_reported():
    configs = read_configs()
    configs["bgw"] = configs["bgw"].replace(" ip tcp adjust-mss 1360\n", "")
    found = ck.check_path_mtu(_trace(), answer("interfaceProperties"), booth_intent(), configs)
    errors = [f for f in found if f.severity == Severity.ERROR]
    assert len(errors) == 1 and "MSS" in errors[0].message and errors[0].device == "bgw"


def test_path_mtu_drop_without_clamp_is_reported():
    # Make the client side jumbo: the MTU then drops 9000 -> 1500 on bgw's uplink.
    configs = read_configs()
    configs["bgw"] = (configs["bgw"].replace("ip mtu 1400", "ip mtu 9000")
                      .replace(" ip tcp adjust-mss 1360\n", ""))
    props = answer("interfaceProperties")
    props.loc[props["Interface"].map(str) == "bgw[GigabitEthernet0/1]", "MTU"] = 9000
    intent = booth_intent()
    intent = dataclasses.replace(intent, flows=(dataclasses.replace(
        intent.flows[0], mss_clamp_at=()),))
    found = [f for f in ck.check_path_mtu(_trace(), props, intent, configs)
             if f.severity == Severity.ERROR]
    assert len(found) == 1
    assert "drops from 9000 to 1500" in found[0].message and found[0].device == "bgw"


def test_path_mtu_untraced_flow_is_reported():
    found = ck.check_path_mtu({}, answer("interfaceProperties"), booth_intent())
    assert len(found) == 1 and "not traced" in found[0].message
