"""The booth switches' cabling check on NAPALM's real ``ios`` and ``eos`` drivers, fed the LLDP
output NAPALM records for its own driver tests (recorded/napalm: ``show lldp neighbors [detail]``
of an IOS switch whose neighbours are two HP ProCurves, eAPI ``show lldp neighbors`` of an EOS
switch with a Linux host on two ports). Only the transport is replaced: the drivers' TextFSM and
JSON parsing run as on a switch. What this does not prove: that a current IOS-XE or EOS release
prints the same (the recordings are NAPALM's)."""

from __future__ import annotations

import json
from typing import Any

from napalm.eos.eos import EOSDriver
from napalm.ios.ios import IOSDriver

from boothnet.booth.lldp import CablePlan, Heard, judge_cabling
from boothnet.deploy.lldp import intent_ports, read_neighbours
from boothnet.intent.model import Network
from tests.helpers import ROOT

RECORDED = ROOT / "tests" / "unit" / "deploy" / "recorded" / "napalm"


class RecordedCli:
    """netmiko's send_command, answered from recorded files (IOS)."""

    def __init__(self, case: str) -> None:
        self.case = case

    def send_command(self, command: str, **_: Any) -> str:
        name = command.replace(" ", "_")
        return (RECORDED / "ios" / f"lldp_{self.case}_{name}.txt").read_text()


class RecordedEapi:
    """pyeapi's run_commands, answered from recorded files (EOS)."""

    def run_commands(self, commands: list[str], **_: Any) -> list[dict]:
        return [json.loads((RECORDED / "eos" / f"lldp_normal_{c.replace(' ', '_')}.json").read_text())
                for c in commands]


def ios(case: str) -> IOSDriver:
    driver = IOSDriver("sw1.booth", "admin", "pw")
    driver.device = RecordedCli(case)
    return driver


def eos() -> EOSDriver:
    driver = EOSDriver("eos1.booth", "admin", "pw")
    driver.device = RecordedEapi()
    return driver


def network(devices: dict[str, tuple[str, list[str]]], links: list[tuple[str, str]],
            endpoints: dict[str, str] | None = None) -> Network:
    """A small intent: devices (platform, ports), routed links, hosts in one VLAN."""
    return Network.model_validate({
        "settings": {"name": "floor"},
        "devices": {name: {"name": name, "role": "core_switch", "platform": platform, "mgmt_address": f"198.18.0.{i}",
                           "ports": [{"name": p, "speed": 1000} for p in ports]}
                    for i, (name, (platform, ports)) in enumerate(devices.items(), start=10)},
        "vlans": [{"id": 10, "name": "users", "zone": "production", "subnet": "10.0.10.0/24", "gateway": "sw1"}],
        "links": [{"a": a, "b": b, "mode": "routed"} for a, b in links],
        "endpoints": {name: {"name": name, "vlan": "users", "address": f"10.0.10.{i}", "attach": attach}
                      for i, (name, attach) in enumerate((endpoints or {}).items(), start=11)},
    })


def judge(net: Network, driver: Any) -> list:
    plan = CablePlan(net, intent_ports)
    return judge_cabling(plan, read_neighbours(plan, "sw1", driver), {"sw1"})


IOS_FLOOR = {"sw1": ("cisco_ios", ["GigabitEthernet1", "GigabitEthernet2"]),
             "twb-sf-hpsw1": ("frr_linux", ["17"]), "twb-sf-hpsw2": ("frr_linux", ["18"])}


def test_the_ios_driver_reads_neighbours_by_the_intents_port_names() -> None:
    net = network(IOS_FLOOR, [])
    assert read_neighbours(CablePlan(net, intent_ports), "sw1", ios("long_names")) == {
        ("sw1", "GigabitEthernet1"): [Heard("twb-sf-hpsw1.local.domain", "17")],
        ("sw1", "GigabitEthernet2"): [Heard("twb-sf-hpsw2", "18")],
    }


def test_ios_cables_where_the_intent_says_pass_with_a_domain_in_the_neighbours_name() -> None:
    net = network(IOS_FLOOR, [("sw1:GigabitEthernet1", "twb-sf-hpsw1:17"), ("sw1:GigabitEthernet2", "twb-sf-hpsw2:18")])
    rows = judge(net, ios("long_names"))
    assert [(r.cable, r.verdict) for r in rows] == [("C01 sw1 Gi1 <-> twb-sf-hpsw1 17", "PASS"),
                                                    ("C02 sw1 Gi2 <-> twb-sf-hpsw2 18", "PASS")]


def test_ios_two_swapped_cables_are_both_named() -> None:
    net = network(IOS_FLOOR, [("sw1:GigabitEthernet1", "twb-sf-hpsw2:18"), ("sw1:GigabitEthernet2", "twb-sf-hpsw1:17")])
    rows = judge(net, ios("long_names"))
    assert [(r.label, r.verdict, r.cause) for r in rows] == [
        ("C01", "FAIL", "sw1 Gi1 sees twb-sf-hpsw1 17 (of C02); the intent says twb-sf-hpsw2 18 (swapped with C02?)"),
        ("C02", "FAIL", "sw1 Gi2 sees twb-sf-hpsw2 18 (of C01); the intent says twb-sf-hpsw1 17 (swapped with C01?)"),
    ]


def test_ios_a_neighbour_the_intent_does_not_know_and_a_silent_port() -> None:
    floor = {"sw1": ("cisco_ios", ["GigabitEthernet1", "GigabitEthernet2", "GigabitEthernet3"]),
             "core9": ("frr_linux", ["eth1"])}
    net = network(floor, [("sw1:GigabitEthernet1", "core9:eth1")])
    rows = judge(net, ios("hostname_spaces"))  # Gi1 hears "MDB CSCT" Gi2/0
    assert [(r.label, r.cause) for r in rows] == [
        ("C01", "sw1 Gi1 sees MDB CSCT Gi2/0 (not in the intent); the intent says core9 eth1")]


def test_eos_a_host_on_the_wrong_port_is_named() -> None:
    floor = {"sw1": ("arista_eos", ["Ethernet1", "Ethernet2"])}
    net = network(floor, [], {"precise64": "sw1:Ethernet1", "web2": "sw1:Ethernet2"})
    observed = read_neighbours(CablePlan(net, intent_ports), "sw1", eos())
    assert observed == {("sw1", "Ethernet1"): [Heard("precise64", "0800.274f.332d")],
                        ("sw1", "Ethernet2"): [Heard("precise64", "0800.27ca.c5be")]}
    rows = judge_cabling(CablePlan(net, intent_ports), observed, {"sw1"})
    assert [(r.cable, r.verdict, r.cause) for r in rows] == [
        ("C01 sw1 Et1 <-> precise64", "PASS", None),
        ("C02 sw1 Et2 <-> web2", "FAIL", "sw1 Et2 sees host precise64 (of C01); the intent says host web2 "
                                         "(swapped with C01?)"),
    ]
