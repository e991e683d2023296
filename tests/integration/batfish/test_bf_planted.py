"""Violations planted in sc-booth's rendered configs fail verify against a live Batfish, naming
the device, the interface or ACL and the flow; the unplanted configs pass every check."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from boothnet.intent import load_network
from boothnet.run import Run
from boothnet.tools.showfloor import floor_size, write_showfloor
from boothnet.validate.checks.isolation import batfish_answers
from boothnet.validate.plan import isolation_flows
from boothnet.verify.batfish.from_intent import render_batfish_view, verify_intent_from_model
from boothnet.verify.batfish.intent import VerifyIntent
from boothnet.verify.batfish.report import Status, VerifyReport
from boothnet.verify.batfish.verify import run_verify
from tests.helpers import ROOT

pytestmark = pytest.mark.batfish

Edit = Callable[[str], str]


def replace_once(old: str, new: str) -> Edit:
    def edit(text: str) -> str:
        assert text.count(old) == 1, f"the plant needs exactly one {old!r} in the config"
        return text.replace(old, new)

    return edit


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, VerifyIntent]:
    net = load_network(ROOT / "inventories" / "sc-booth")
    result, models = render_batfish_view(net, tmp_path_factory.mktemp("build"))
    return result.out_dir, verify_intent_from_model(net, models)


@pytest.fixture
def verify(host, view, tmp_path) -> Callable[[dict[str, Edit]], VerifyReport]:
    configs, intent = view

    def run(edits: dict[str, Edit]) -> VerifyReport:
        planted = tmp_path / "configs"
        shutil.copytree(configs, planted)
        for device, edit in edits.items():
            path = planted / f"{device}.cfg"
            path.write_text(edit(path.read_text()))
        return run_verify(intent, planted, tmp_path / "verify", host=host, require=True,
                          network="boothnet-planted", snapshot=f"planted-{os.getpid()}")

    return run


def failed(report: VerifyReport) -> set[str]:
    return {c.name for c in report.checks if c.status == Status.FAIL}


def test_unplanted_reference_network_passes_every_check(verify):
    report = verify({})
    assert {c.name: str(c.status) for c in report.checks if c.status != Status.PASS} == {}


def test_rule_permitting_research_to_production(verify):
    report = verify({"core1": replace_once(
        "ip access-list extended RESEARCH_01_IN\n",
        "ip access-list extended RESEARCH_01_IN\n permit ip 10.110.1.0 0.0.0.255 10.10.10.0 0.0.0.255\n")})
    assert "isolation" in failed(report)
    finding = report.check("isolation").findings[0]
    assert finding.device == "core1" and "RESEARCH_01_IN" in (finding.location or "")
    assert "research can reach production" in finding.message
    assert finding.flow and "10.110.1." in finding.flow and "-> 10.10.10." in finding.flow


def test_fourth_host_reaching_the_secured_network(verify):
    report = verify({"hgw1": replace_once(
        "ip access-list extended SECURE_HOME_OUT\n",
        "ip access-list extended SECURE_HOME_OUT\n permit tcp host 10.10.30.14 10.200.1.0 0.0.0.255 eq 22\n")})
    assert failed(report) == {"secure_network"}
    finding = report.check("secure_network").findings[0]
    assert finding.device == "hgw1" and "SECURE_HOME_OUT" in (finding.location or "")
    assert "10.10.30.14" in finding.message and "not a listed client" in finding.message


def test_trunk_ends_with_different_mtus(verify):
    report = verify({"rsw1": replace_once(
        "   description to core1 TenGigabitEthernet1/1/1\n   mtu 9000\n",
        "   description to core1 TenGigabitEthernet1/1/1\n   mtu 1500\n")})
    assert "mtu" in failed(report)
    text = " ".join(f.one_line() for f in report.check("mtu").findings)
    assert "rsw1" in text and "Ethernet49" in text and "1500" in text


def test_vlan_missing_on_one_end_of_a_trunk(verify):
    report = verify({"rsw1": replace_once(
        "switchport trunk allowed vlan 110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125\n",
        "switchport trunk allowed vlan 110,111,112,113,114,115,116,117,118,119,120,121,122,123,124\n")})
    assert "vlans" in failed(report)
    text = " ".join(f.one_line() for f in report.check("vlans").findings)
    assert "rsw1" in text and "125" in text


def test_acl_line_that_can_never_match(verify):
    report = verify({"core1": replace_once(
        " permit ip 10.10.10.0 0.0.0.255 10.10.20.0 0.0.0.255\n",
        " permit ip 10.10.10.0 0.0.0.255 10.10.20.0 0.0.0.255\n"
        " deny tcp 10.10.10.0 0.0.0.255 10.10.20.0 0.0.0.255 eq 22\n")})
    assert failed(report) == {"acl_lines"}
    finding = report.check("acl_lines").findings[0]
    assert finding.device == "core1" and "BOOTH_LAN_IN" in (finding.location or "")
    assert "eq 22" in (finding.location or "")


def test_ospf_timer_mismatch_between_neighbours(verify):
    # brt1's only OSPF interface is Vlan60: its hello line, from the intent's 1 s to 3 s
    report = verify({"brt1": replace_once(" ip ospf hello-interval 1\n", " ip ospf hello-interval 3\n")})
    # without the adjacency core1 learns no default from brt1: the path home loses its way out too
    assert failed(report) == {"ospf", "routes"}
    assert {f.device for f in report.check("routes").findings} == {"core1"}
    text = " ".join(f.one_line() for f in report.check("ospf").findings)
    assert "brt1[Vlan60]" in text and "HELLO_INTERVAL_MISMATCH" in text


def test_a_home_router_without_its_way_back_fails_routes_naming_it(verify):
    """The bulk transfer home (r01-fs -> bulk1) crosses brt1, show1 and hgw1; without hgw1's default
    route the way back ends at hgw1 (the booth's home routers in issue 41 had only a hostname)."""
    report = verify({"hgw1": replace_once("ip route 0.0.0.0 0.0.0.0 203.0.113.1 name internet_via_the_show_network\n",
                                          "")})
    assert "routes" in failed(report)
    assert [f.one_line() for f in report.check("routes").findings if "bulk-to-home back" in f.message], \
        report.check("routes").findings
    assert {f.device for f in report.check("routes").findings} == {"hgw1"}


def test_crypto_path_without_mss_clamping(verify):
    report = verify({"bgw1": replace_once(" ip tcp adjust-mss 8910\n", "")})
    assert "path_mtu" in failed(report)
    errors = [f for f in report.check("path_mtu").findings if str(f.severity) == "error"]
    assert errors and errors[0].device == "bgw1" and "MSS" in errors[0].message


def test_dead_acl_is_an_unused_structure(verify):
    report = verify({"core1": replace_once("\nend\n", "\nip access-list extended NEVER_APPLIED\n"
                                           " permit ip any any\n!\nend\n")})
    assert failed(report) == {"unused"}
    errors = [f for f in report.check("unused").findings if str(f.severity) == "error"]
    assert [(f.device, f.message.split(" is ")[0]) for f in errors] == [
        ("core1", "extended ipv4 access-list NEVER_APPLIED")]


@pytest.mark.parametrize("network", ["lab-mini", "showfloor-50"])
def test_every_rendered_config_parses_cleanly(host, network, tmp_path):
    """PASSED files, no parse warnings, undefined references, init issues or unexpected unused
    structures: for the small lab and a generated 50-device show floor."""
    if network == "showfloor-50":
        inventory = tmp_path / "inventories" / network
        write_showfloor(inventory, floor_size(50), network)
    else:
        inventory = ROOT / "inventories" / network
    net = load_network(inventory)
    result, models = render_batfish_view(net, tmp_path / "build")
    intent = verify_intent_from_model(net, models)
    report = run_verify(intent, result.out_dir, tmp_path / "verify", host=host,
                        require=True, network=f"boothnet-{network}", snapshot="parse")
    for name in ("parsing", "references", "unused"):
        errors = [f.one_line() for f in report.check(name).findings if str(f.severity) == "error"]
        assert report.check(name).status == Status.PASS and errors == [], errors


def test_flows_through_the_vpn_are_asked_in_two_legs(host, tmp_path):
    """Batfish does not route through IPsec: a listed client's flow home is permitted by both
    legs, a fourth host's is denied at core1 before the tunnel, and home cannot open to clients."""
    run = Run(ROOT / "inventories" / "sc-booth", tmp_path)
    flows = {(f.src.name, f.dst.name, f.label()): f for f in isolation_flows(run.net)}
    wanted = [("client1", "home1", "tcp/22"), ("client4", "home1", "tcp/22"), ("home1", "client1", "icmp")]
    answers, stage = batfish_answers(run, [flows[k] for k in wanted], host, lambda _: None)
    assert stage.status == "PASS"
    (ok, fourth, back) = answers
    assert ok.action == "permit" and ok.detail.startswith("into the VPN at bgw1[")
    assert "from hgw1[" in ok.detail and "DELIVERED_TO_SUBNET" in ok.detail
    assert fourth.action == "deny" and "denied by core1 VPN_CLIENTS_IN" in fourth.detail
    assert back.action == "deny" and "SECURE_HOME_IN" in back.detail
