"""The floor path's endpoints check on NAPALM's real ``ios`` and ``eos`` drivers, fed the MAC and
ARP tables NAPALM records for its own driver tests (recorded/napalm: ``show mac address-table``
of a Catalyst 2960, ``show arp | exclude Incomplete`` of an IOS router, eAPI ``show mac
address-table`` and ``show arp vrf all`` of an EOS switch). Only the transport is replaced: the
drivers' parsing runs as on a switch. Proven only here, not live: that these getters answer so on
a booth's IOS and EOS switches today (the recordings are NAPALM's); frr_linux's getters run live in
the lab tests."""

from __future__ import annotations

import json
import re
from typing import Any

from napalm.eos.eos import EOSDriver
from napalm.ios.ios import IOSDriver

from boothnet.deploy.batch import Session
from boothnet.deploy.lldp import intent_ports
from boothnet.intent.model import Network
from boothnet.validate.access import FloorDevices
from boothnet.validate.checks.endpoints import _HostSide, _judge_floor, _placed_in_ipv6, endpoint_rows
from tests.helpers import ROOT

RECORDED = ROOT / "tests" / "unit" / "deploy" / "recorded" / "napalm"


class RecordedCli:
    """netmiko's send_command, answered from recorded files named as NAPALM names them (IOS)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def send_command(self, command: str, **_: Any) -> str:
        name = re.sub(r"[\s|\-]", "_", command)
        return (RECORDED / "ios" / f"{self.prefix}_{name}.txt").read_text()


class RecordedEapi:
    """pyeapi's run_commands, answered from recorded files (EOS)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def run_commands(self, commands: list[str], **_: Any) -> list[dict]:
        return [json.loads((RECORDED / "eos" / f"{self.prefix}_{c.replace(' ', '_').replace('-', '_')}.json")
                           .read_text()) for c in commands]


def ios_both() -> IOSDriver:
    """An IOS switch answering with the 2960's MAC table and the router's ARP table."""
    driver = IOSDriver("sw1.booth", "admin", "pw")
    driver.device = type("Both", (), {"send_command": lambda self, c, **_: (
        RecordedCli("mac_2960") if "mac" in c else RecordedCli("arp_normal")).send_command(c)})()
    return driver


def eos_both() -> EOSDriver:
    driver = EOSDriver("sw1.booth", "admin", "pw")
    driver.device = type("Both", (), {"run_commands": lambda self, cs, **kw: (
        RecordedEapi("mac_normal") if "mac" in cs[0] else RecordedEapi("arp_normal")).run_commands(cs, **kw)})()
    return driver


def network(platform: str, port: str, vlan: int, subnet: str, address: str) -> Network:
    """One switch (also the VLAN's gateway) and one host on ``port``."""
    return Network.model_validate({
        "settings": {"name": "floor"},
        "devices": {"sw1": {"name": "sw1", "role": "core_switch", "platform": platform, "mgmt_address": "198.18.0.10",
                            "ports": [{"name": port, "speed": 1000}, {"name": "Port-channel9", "speed": 1000}]}},
        "vlans": [{"id": vlan, "name": "users", "zone": "production", "subnet": subnet, "gateway": "sw1"}],
        "endpoints": {"h1": {"name": "h1", "vlan": "users", "address": address, "attach": f"sw1:{port}"}},
    })


def judged(net: Network, driver: Any, mac: str) -> tuple[str, str | None]:
    devices = FloorDevices(sessions={"sw1": Session(driver=driver)}, drift=[], port_names=intent_ports)
    [row] = _judge_floor(net, net.endpoints["h1"], _HostSide(mac=mac), devices,
                         devices.read({"sw1"}, "get_mac_address_table"), devices.read({"sw1"}, "get_arp_table"))
    return row.verdict, row.cause


def test_ios_a_host_learned_on_its_port_and_vlan_passes_by_the_ports_short_name() -> None:
    # the 2960 learned 0018.b974.528f on Fa0/16 in VLAN 6: the intent says FastEthernet0/16
    net = network("cisco_ios", "FastEthernet0/16", 6, "172.29.50.0/24", "172.29.50.10")
    verdict, cause = judged(net, ios_both(), "00:18:b9:74:52:8f")
    # the recorded router resolves 172.29.50.10 to another MAC: named, with both
    assert verdict == "FAIL"
    assert cause == "sw1 resolves 172.29.50.10 to 68:05:CA:12:71:C2, not to its MAC 00:18:b9:74:52:8f"


def test_ios_a_host_on_another_port_is_named_where_it_was_learned() -> None:
    net = network("cisco_ios", "FastEthernet0/3", 6, "172.29.50.0/24", "172.29.50.10")
    verdict, cause = judged(net, ios_both(), "00:18:b9:74:52:8f")
    assert verdict == "FAIL"
    assert cause is not None and cause.startswith(
        "its MAC 00:18:b9:74:52:8f is learned on sw1:Fa0/16 in VLAN 6; the intent attaches it to "
        "sw1:FastEthernet0/3 in users (VLAN 6)"), cause


def test_eos_a_host_learned_on_its_port_passes_and_a_repatched_one_is_named() -> None:
    # the EOS switch learned 00:0f:53:27:0c:21 on Ethernet44 in VLAN 10
    net = network("arista_eos", "Ethernet44", 10, "172.17.17.0/24", "172.17.17.1")
    verdict, cause = judged(net, eos_both(), "00:0f:53:27:0c:21")
    # the recorded ARP table resolves 172.17.17.1 to two other MACs
    assert verdict == "FAIL" and "sw1 resolves 172.17.17.1 to DC:38:E1:11:97:CF, 90:E2:BA:5C:25:FD" in cause
    assert "is learned on" not in cause and "not learned" not in cause
    moved = network("arista_eos", "Ethernet45", 10, "172.17.17.0/24", "172.17.17.1")
    verdict, cause = judged(moved, eos_both(), "00:0f:53:27:0c:21")
    assert verdict == "FAIL"
    assert ("its MAC 00:0f:53:27:0c:21 is learned on sw1:Ethernet44 in VLAN 10; the intent attaches it to "
            "sw1:Ethernet45 in users (VLAN 10)") in cause



class NoShell:
    """A floor runner that reaches no device over a shell: switches answer NAPALM only."""

    hosts: dict[str, Any] = {}

    def __call__(self, node: str, argv: Any, timeout: float | None = None) -> Any:
        raise AssertionError(f"{node} has no shell: {argv}")


def test_a_backbone_aggregate_reads_ios_and_eos_counters_through_napalm() -> None:
    """What a backbone aggregate reads on an IOS or EOS switch: NAPALM's get_interfaces_counters on
    NAPALM's recorded ``show interfaces`` (IOS, with ``show interface summary``; EOS over eAPI),
    each interface's transmitted bytes as the driver parses them."""
    from boothnet.validate.access import floor_access
    from boothnet.validate.counters import read_ports, transmitted

    ios = IOSDriver("sw1.booth", "admin", "pw")
    ios.device = RecordedCli("counters_normal")
    eos = EOSDriver("sw1.booth", "admin", "pw")
    eos.device = RecordedEapi("counters_normal")
    for driver, platform in ((ios, "ios"), (eos, "eos")):
        devices = FloorDevices(sessions={"sw1": Session(driver=driver)}, drift=[], port_names=intent_ports)
        expected = json.loads((RECORDED / platform / "counters_normal_expected_result.json").read_text())
        assert transmitted(floor_access(NoShell(), devices), "sw1") == {
            name: c["tx_octets"] for name, c in expected.items()}
        # watch reads every counter, and the link state where get_interfaces answers
        ports = read_ports(floor_access(NoShell(), devices), "sw1", link_state=True)
        assert {name: (p.rx_octets, p.rx_errors, p.tx_discards) for name, p in ports.items()} == {
            name: (c["rx_octets"], c["rx_errors"], c["tx_discards"]) for name, c in expected.items()}
        assert all(isinstance(p.up, bool) for p in ports.values())  # get_interfaces is_up, read from the same output


def test_a_gateway_places_a_dual_stack_host_by_its_ipv6_neighbour_entry_where_its_driver_reads_one() -> None:
    """IOS's ``show ipv6 neighbors`` (NAPALM's recording) through NAPALM's real parser: the host
    holding 2001:1A1A:1A1A:198::1 is placed by the MAC its gateway resolved; EOS's NAPALM driver
    reads no IPv6 neighbours, so there the host's own IPv6 address is all the floor checks."""
    net = Network.model_validate({
        "settings": {"name": "floor"},
        "devices": {"sw1": {"name": "sw1", "role": "core_switch", "platform": "cisco_ios",
                            "mgmt_address": "198.18.0.10", "ports": [{"name": "Gi3/3/0", "speed": 1000}]}},
        "vlans": [{"id": 198, "name": "users", "zone": "production", "subnet": "172.29.50.0/24", "gateway": "sw1",
                   "ipv6": {"prefix": "2001:1a1a:1a1a:198::/64", "hosts": "static"}}],
        "endpoints": {"h1": {"name": "h1", "vlan": "users", "address": "172.29.50.10", "attach": "sw1:Gi3/3/0",
                             "address6": "2001:1a1a:1a1a:198::1"}},
    })
    ios = IOSDriver("sw1.booth", "admin", "pw")
    ios.device = RecordedCli("ipv6_normal")
    host = net.endpoints["h1"]
    table = FloorDevices(sessions={"sw1": Session(driver=ios)}, drift=[], port_names=intent_ports).read(
        {"sw1"}, "get_ipv6_neighbors_table")["sw1"]
    assert _placed_in_ipv6(net, host, "00:25:45:00:b4:00", "sw1", table) == ([], [])
    assert _placed_in_ipv6(net, host, "00:18:b9:74:52:8f", "sw1", table) == ([
        "sw1 resolves 2001:1a1a:1a1a:198::1 to 00:25:45:00:B4:00 (neighbour discovery), not to its MAC "
        "00:18:b9:74:52:8f"], [])
    eos = FloorDevices(sessions={"sw1": Session(driver=eos_both())}, drift=[], port_names=intent_ports).read(
        {"sw1"}, "get_ipv6_neighbors_table")["sw1"]
    assert isinstance(eos, str) and _placed_in_ipv6(net, host, "00:18:b9:74:52:8f", "sw1", eos) == ([], [])
    unread = _placed_in_ipv6(net, host, "00:25:45:00:b4:00", "sw1", "get_ipv6_neighbors_table failed: ReadTimeout")
    assert unread == ([], ["sw1's IPv6 neighbours could not be read: get_ipv6_neighbors_table failed: ReadTimeout"])
    # a dual-stack host's rows: IPv4's and IPv6's, each judged on its own family's findings; off its
    # port (the IPv4 row's finding) its IPv6 neighbour entry is not judged
    wrong_mac = _placed_in_ipv6(net, host, "00:18:b9:74:52:8f", "sw1", table)[0]
    rows = endpoint_rows(net, host, [], [], True, wrong_mac)
    assert [(r.family, r.address, r.verdict, r.cause) for r in rows] == [
        (4, "172.29.50.10/24", "PASS", None), (6, "2001:1a1a:1a1a:198::1/64", "FAIL", wrong_mac[0])]
    off = endpoint_rows(net, host, ["its MAC 00:18:b9:74:52:8f is not learned on sw1"], [], False)
    assert [(r.family, r.verdict) for r in off] == [(4, "FAIL"), (6, "NOT RUN")]
