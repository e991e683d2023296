"""Who answers for each address, judged: arp-scan's recorded output from the sc-booth lab (client4
holding client2's address beside its own), the gateway's view and the MAC tables, against the
intent. The floor's MAC and ARP tables come through NAPALM's own drivers from recorded output."""

from __future__ import annotations

from ipaddress import IPv4Network
from pathlib import Path

from boothnet.deploy.batch import Session
from boothnet.deploy.lldp import intent_ports
from boothnet.intent import load_network
from boothnet.intent.model import Network
from boothnet.validate.access import Access, FloorDevices
from boothnet.validate.checks.endpoints import (
    VlanAnswers,
    _floor_learned,
    judge_addresses,
    parse_arp_scan,
    sweep_argv,
)
from tests.helpers import ROOT
from tests.unit.deploy.test_floor_getters import ios_both, network

RECORDED = Path(__file__).parent / "recorded"
CLIENT2, CLIENT4 = "c2:98:f5:fb:14:f3", "b6:94:30:4d:75:71"
LEARNED = {("vpn-clients", CLIENT2): ["core1:GigabitEthernet1/0/42"],
           ("vpn-clients", CLIENT4): ["core1:GigabitEthernet1/0/44", "core1:TenGigabitEthernet1/1/1"]}


def sc_booth() -> Network:
    return load_network(ROOT / "inventories" / "sc-booth")


def swept(net: Network, vlan: str, answers: dict[str, set[str]]) -> VlanAnswers:
    return VlanAnswers(net.vlan(vlan), answers, prober="client1")


def test_arp_scan_lines_give_every_mac_that_answered_an_address() -> None:
    answers = parse_arp_scan((RECORDED / "arp_scan_duplicate.txt").read_text())
    assert answers["10.10.30.12"] == {CLIENT2, CLIENT4}
    assert answers["10.10.30.14"] == {CLIENT4}
    assert "10.10.30.11" not in answers  # the prober's own: it hears no answer of its own
    # arp-scan's banner and its tallies are not answers
    assert parse_arp_scan("Interface: eth0, type: EN10MB\n4 packets received by filter\n\n") == {}


def test_a_listed_clients_address_answered_from_another_port_fails_its_row_naming_both_ports() -> None:
    net = sc_booth()
    answers = parse_arp_scan((RECORDED / "arp_scan_duplicate.txt").read_text())
    findings = judge_addresses(net, [swept(net, "vpn-clients", answers)], {}, LEARNED)
    assert findings.duplicates == {"client2": (
        "10.10.30.12 answers from 2 MACs: b6:94:30:4d:75:71 on core1:GigabitEthernet1/0/44 (client4's port); "
        "c2:98:f5:fb:14:f3 on core1:GigabitEthernet1/0/42 (client2's port); the intent gives it to client2 only")}
    assert findings.rows == [] and findings.warnings == []


def test_the_gateways_view_counts_as_an_answer() -> None:
    # the sweep heard only client4, but the gateway resolved the address to client2 before
    net = sc_booth()
    findings = judge_addresses(net, [swept(net, "vpn-clients", {"10.10.30.12": {CLIENT4}})],
                               {"vpn-clients": {"10.10.30.12": {CLIENT2}}}, LEARNED)
    assert set(findings.duplicates) == {"client2"}


def test_an_unlisted_address_is_a_fail_in_a_listed_hosts_vlan_and_a_warning_in_research() -> None:
    net = sc_booth()
    assert {"vpn-clients", "secure-home"} <= net.secured_vlans and "research-01" not in net.secured_vlans
    findings = judge_addresses(net, [swept(net, "vpn-clients", {"10.10.30.99": {CLIENT4}}),
                                     swept(net, "research-01", {"10.110.1.77": {"02:00:00:00:01:77"}})],
                               {}, LEARNED | {("research-01", "02:00:00:00:01:77"): ["rsw1:Ethernet1"]})
    [row] = findings.rows
    assert (row.host, row.verdict, row.finding, row.attach) == ("unlisted", "FAIL", "unlisted",
                                                                "core1:GigabitEthernet1/0/44")
    assert row.cause == ("10.10.30.99 in vpn-clients is not in the intent, yet answers ARP from b6:94:30:4d:75:71 "
                         "on core1:GigabitEthernet1/0/44 (client4's port): an address the intent does not list, in a "
                         "secured VLAN (the secure zone's, or one whose hosts a rule admits by name)")
    assert findings.warnings == ["10.110.1.77 in research-01 is not in the intent, yet answers ARP from "
                                 "02:00:00:00:01:77 on rsw1:Ethernet1 (r01-cn1's port)"]


def test_a_gateways_address_answered_twice_is_the_gateways_row() -> None:
    net = sc_booth()
    findings = judge_addresses(net, [swept(net, "vpn-clients", {"10.10.30.1": {CLIENT4, "9a:95:1d:0a:63:33"}})],
                               {}, LEARNED)
    [row] = findings.rows
    assert (row.host, row.finding, row.verdict) == ("core1", "duplicate", "FAIL")
    assert row.cause.startswith("10.10.30.1 answers from 2 MACs: 9a:95:1d:0a:63:33 (not learned on any switch port); "
                                "b6:94:30:4d:75:71 on core1:GigabitEthernet1/0/44 (client4's port)")


def test_a_vlan_that_could_not_be_swept_is_an_error_naming_why() -> None:
    net = sc_booth()
    findings = judge_addresses(net, [VlanAnswers(net.vlan("vpn-clients"),
                                                 error="no host on it can sweep it: client1 lacks arp-scan")], {}, {})
    [row] = findings.rows
    assert (row.host, row.verdict) == ("addresses of vpn-clients", "ERROR")
    assert row.cause == ("who answers for each address could not be asked: no host on it can sweep it: client1 "
                         "lacks arp-scan")


def test_a_wide_subnet_is_swept_at_the_intents_addresses_only() -> None:
    net = sc_booth()
    narrow = sweep_argv("eth0", net.vlan("vpn-clients"), ["10.10.30.11"])
    assert narrow[-1] == "10.10.30.0/24" and "--arpspa=0.0.0.0" in narrow
    wide = net.vlan("vpn-clients").model_copy(update={"subnet": IPv4Network("10.16.0.0/16")})
    assert sweep_argv("eth0", wide, ["10.16.0.11", "10.16.0.10"])[-2:] == ["10.16.0.10", "10.16.0.11"]


def test_on_a_floor_the_mac_tables_and_the_gateways_arp_table_come_through_napalm() -> None:
    # the recorded 2960 learned 0018.b974.528f on Fa0/16 in VLAN 6; its ARP table holds 172.29.50.x
    net = network("cisco_ios", "FastEthernet0/16", 6, "172.29.50.0/24", "172.29.50.10")
    devices = FloorDevices(sessions={"sw1": Session(driver=ios_both())}, drift=[], port_names=intent_ports)
    access = Access("floor", runner=lambda *_: None, node=str, devices=devices)  # type: ignore[arg-type]
    learned, views = _floor_learned(net, access, net.vlans)
    assert learned[("users", "00:18:b9:74:52:8f")] == ["sw1:FastEthernet0/16"]  # the intent's name
    assert views["users"]["172.29.50.10"] == {"68:05:ca:12:71:c2"}
    assert set(views["users"]) == {"172.29.50.1", "172.29.50.2", "172.29.50.3", "172.29.50.10"}


def test_a_warning_is_counted_in_the_headline_and_listed_in_the_report_failing_nothing() -> None:
    from boothnet.report.render import render_html, render_markdown
    from boothnet.report.summary import summarize
    from boothnet.validate.results import EndpointRow, ValidationResults

    line = "10.110.1.77 in research-01 is not in the intent, yet answers ARP from 02:00:00:00:01:77 on rsw1:Ethernet1"
    res = ValidationResults(network="sc-booth", endpoints=[EndpointRow(
        host="r01-cn1", vlan="research-01", address="10.110.1.11/24", attach="rsw1:Ethernet1", verdict="PASS")],
        warnings=[line])
    summary = summarize(res)
    assert (summary.overall, summary.headline) == ("PASS", "PASS: all 1 checks passed; 1 warning")
    assert f"### Warnings (worth a look, failing nothing)\n\n- {line}\n" in render_markdown(res, summary, {})
    assert "<h2>Warnings (worth a look, failing nothing)</h2><ul>\n<li>10.110.1.77 in research-01" in \
        render_html(res, summary, {})


def test_a_gateway_entry_the_sweep_did_not_hear_is_no_address_of_its_own() -> None:
    # r2 still holds 10.0.20.12 from a host re-addressed a minute ago: nobody answers for it now
    net = sc_booth()
    findings = judge_addresses(net, [swept(net, "research-01", {"10.110.1.11": {"02:00:00:00:01:11"}})],
                               {"research-01": {"10.110.1.77": {"02:00:00:00:01:77"}}}, {})
    assert (findings.duplicates, findings.rows, findings.warnings) == ({}, [], [])


def test_a_prober_off_its_vlan_hands_the_sweep_to_the_next_host() -> None:
    from boothnet.validate.checks.endpoints import sweep_vlan
    from boothnet.validate.perf.runner import CommandResult

    recorded = (RECORDED / "arp_scan_duplicate.txt").read_text()
    asked: list[tuple[str, str]] = []

    def runner(node: str, argv: list[str], _timeout: float | None = None) -> CommandResult:
        asked.append((node, argv[0] if argv[0] != "ip" else " ".join(argv[:4])))
        if argv[:4] == ["ip", "-j", "route", "get"]:  # client1 re-addressed away: no route to 10.10.30.1
            out = "[]" if node == "client1" else '[{"dst": "10.10.30.1", "dev": "eth0"}]'
        elif argv[0] == "arp-scan":
            out = recorded
        else:
            out = f'[{{"address": "{CLIENT2}", "addr_info": [{{"family": "inet", "local": "10.10.30.12"}}]}}]'
        return CommandResult(node, tuple(argv), 0, out, "")

    net = sc_booth()
    sweep = sweep_vlan(net, Access("floor", runner=runner, node=str), net.vlan("vpn-clients"))
    assert (sweep.prober, sweep.error) == ("client2", None)
    assert [a for a in asked if a[1] == "arp-scan"] == [("client2", "arp-scan")]
    assert sweep.answers["10.10.30.12"] == {CLIENT2, CLIENT4}
