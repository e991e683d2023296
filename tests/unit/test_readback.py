"""Render fidelity: every IOS and EOS config read back as its device reads it equals its model.

The reader (boothnet.readback) shares no code with the templates (an import-linter contract), so an
omission in a template shows here as a field the config reads at the device's default.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from ipaddress import IPv4Address, IPv6Network
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from boothnet.derive import derive_network
from boothnet.errors import IntentInvalid
from boothnet.intent import load_network
from boothnet.readback import expected_facts, fidelity, mismatches, read_config
from boothnet.render.build import build, render_all, single_file_configs
from boothnet.verify.batfish.from_intent import batfish_context
from tests.fuzz.test_valid_intents import _write, router_on_a_stick, valid_intents
from tests.helpers import INVENTORIES, ROOT, ping_only_policy

REFERENCES = ("sc-booth", "lab-mini", "fw-booth", "eos-core", "sc-booth-ds", "eos-core-ds")
READBACK_EXAMPLES = int(os.environ.get("BOOTHNET_READBACK_EXAMPLES", "10"))


def _configs(models, network: str) -> dict[str, str]:
    return single_file_configs(render_all(models, network))


# lab-mini's devices are all frr_linux: only its Batfish view has IOS configs
VIEWS = [(n, v) for n in REFERENCES for v in ("hardware", "batfish") if (n, v) != ("lab-mini", "hardware")]


@pytest.mark.parametrize(("network", "view"), VIEWS)
def test_every_ios_and_eos_config_of_the_reference_networks_reads_back_as_its_model(network, view):
    net = load_network(INVENTORIES / network)
    models = derive_network(net, batfish_context(net) if view == "batfish" else None)
    read = [m for m in models.values() if m.platform in ("cisco_ios", "arista_eos")]
    assert read, "a reference network with no IOS or EOS device proves nothing here"
    assert fidelity(models, _configs(models, net.name)) == []


def _assert_generated_reads_back(files) -> None:
    work = Path(tempfile.mkdtemp(prefix="bn-readback-"))
    try:
        try:
            net = load_network(_write(files, work / "inv"))
        except IntentInvalid:  # the stick generator can draw a rule another shadows
            assume(False)
        for ctx in (None, batfish_context(net)):
            models = derive_network(net, ctx)
            assert any(m.platform in ("cisco_ios", "arista_eos") for m in models.values())
            assert fidelity(models, _configs(models, net.name)) == []
    finally:
        shutil.rmtree(work, ignore_errors=True)


@settings(max_examples=READBACK_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_intents())
def test_a_generated_show_floor_reads_back_as_its_model(files):
    _assert_generated_reads_back(files)


@settings(max_examples=READBACK_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(router_on_a_stick())
def test_a_generated_router_on_a_stick_reads_back_as_its_model(files):
    _assert_generated_reads_back(files)


# Each omission planted back into a copy of the templates: the build fails naming the device, the
# field, the model's value and the config's.
PLANTED = [
    ("arista_eos/system.j2", "ip routing\n", "", "eos-core",
     "es1: routing: the model says True, the config reads False"),
    ("cisco_ios/system.j2", "ip routing\n", "", "sc-booth",
     "core1: routing: the model says True, the config reads False"),
    ("cisco_ios/interfaces.j2", " ip ospf hello-interval {{ i.ospf.hello }}\n", "", "sc-booth",
     "core1: interface Vlan60 ospf.hello: the model says 1, the config reads 10"),
    ("cisco_ios/interfaces.j2", " ip access-group {{ i.acl_in }} in\n", "", "sc-booth",
     "core1: interface Vlan10 acl_in: the model says BOOTH_LAN_IN, the config reads None"),
    # EOS: `mtu` is the routed MTU (a routed port's, an SVI's); a switchport prints none
    ("arista_eos/interfaces.j2", "   mtu {{ i.mtu_command }}\n", "", "eos-core-ds",
     "es1: interface Ethernet49 mtu: the model says 9000, the config reads 1500"),
    # a bound port: IP source guard does nothing on IOS where DHCP snooping is off for the VLAN;
    # without its port-security line neither MAC nor address is held
    ("cisco_ios/port_security.j2", "ip dhcp snooping vlan {{ d.bound_vlans | join(\",\") }}\n", "", "sc-booth",
     "core1: interface GigabitEthernet1/0/42 allowed_sources: the model says (IPv4Address('10.10.30.12'),), the "
     "config reads None"),
    ("cisco_ios/interfaces.j2", " switchport port-security\n", "", "sc-booth",
     "core1: interface GigabitEthernet1/0/44 allowed_macs: the model says ('02:00:0a:0a:1e:0e',), the config "
     "reads None"),
    ("arista_eos/interfaces.j2", "   ip verify source\n", "", "eos-core",
     "es1: interface Ethernet1 allowed_sources: the model says (IPv4Address('10.4.10.11'),), the config reads None"),
    ("arista_eos/port_security.j2", "mac address-table static {{ mac }} vlan {{ i.binding.vlan }} interface "
     "{{ i.name }}\n", "", "eos-core",
     "es1: interface Ethernet2 allowed_macs: the model says ('02:00:0a:04:0a:0c',), the config reads None"),
    # IPv6: routing off reads as no RA either; a filter, an address or the static hosts' RA flag dropped
    ("cisco_ios/system.j2", "ipv6 unicast-routing\n", "", "sc-booth-ds",
     "core1: ipv6_routing: the model says True, the config reads False"),
    ("cisco_ios/interfaces.j2", " ipv6 traffic-filter {{ i.acl6_in }} in\n", "", "sc-booth-ds",
     "core1: interface Vlan10 acl6_in: the model says BOOTH_LAN_IN_V6, the config reads None"),
    ("cisco_ios/interfaces.j2", " ipv6 address {{ i.address6 }}\n", "", "sc-booth-ds",
     "core1: interface Vlan20 address6: the model says 2001:db8:20::1/64, the config reads None"),
    ("cisco_ios/interfaces.j2", " ipv6 nd prefix {{ i.address6.network }} 2592000 604800 no-autoconfig\n", "",
     "sc-booth-ds", "core1: interface Vlan110 ra: the model says static, the config reads slaac"),
    # IPv6 source binding: the port ACL not bound, or bound and undefined (it then permits all)
    ("arista_eos/interfaces.j2", "   ipv6 access-group {{ i.binding.acl6 }} in\n", "", "eos-core-ds",
     "es1: interface Ethernet1 allowed_sources6: the model says (IPv6Network('2001:db8:4:10::/64'),), "
     "the config reads None"),
    ("cisco_ios/port_security.j2", "ipv6 access-list {{ acl.name }}\n", "ipv6 access-list {{ acl.name }}X\n",
     "sc-booth-ds",
     "core1: interface GigabitEthernet1/0/41 allowed_sources6: the model says "
     "(IPv6Network('2001:db8:30::/64'),), the config reads None"),
    # OSPFv3: its timers (the IOS default is 10 s, the frr_linux peers run 1 s) and its coverage
    ("cisco_ios/interfaces.j2", " ipv6 ospf hello-interval {{ i.ospf6.hello }}\n", "", "sc-booth-ds",
     "core1: interface Vlan60 ospf6.hello: the model says 1, the config reads 10"),
    ("cisco_ios/interfaces.j2", " ipv6 ospf 1 area {{ d.ospf.area }}\n", "", "sc-booth-ds",
     "core1: interface Vlan60 ospf6: the model says on, the config reads None"),
    ("cisco_ios/ospf.j2", "{% if d.ospf.interfaces6 %}\n", "{% if false %}\n", "sc-booth-ds",
     "core1: ospf6_router_id: the model says 10.10.255.1, the config reads None"),
    ("cisco_ios/acls.j2", "ipv6 access-list {{ acl.name }}\n", "ip access-list extended {{ acl.name }}\n",
     "sc-booth-ds", "core1: acl THEATER_IN_V6 length: the model says"),
    ("cisco_ios/ospf.j2", " redistribute static subnets route-map VPN_REMOTE\n", "", "sc-booth",
     "redistribute: the model says (IPv4Network('10.200.1.0/24'),), the config reads ()"),
    ("cisco_ios/ospf.j2", " redistribute static subnets route-map VPN_REMOTE\n", " redistribute static subnets\n",
     "sc-booth", "redistribute: the model says (IPv4Network('10.200.1.0/24'),), the config reads "
     "(IPv4Network('10.200.1.0/24'), IPv4Network('203.0.113.2/32'))"),
]


@pytest.mark.parametrize(("template", "line", "replacement", "network", "expected"), PLANTED,
                         ids=[f"{p[0]}:{p[1].strip()}" for p in PLANTED])
def test_a_line_dropped_from_a_template_fails_the_build_by_device_and_field(
        tmp_path, monkeypatch, template, line, replacement, network, expected):
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates)
    path = templates / template
    text = path.read_text()
    assert line in text, f"{template} no longer prints {line!r}: the planted fault needs updating"
    path.write_text(text.replace(line, replacement))
    monkeypatch.setenv("BOOTHNET_TEMPLATES", str(templates))
    if network == "sc-booth" and "redistribute" in line:
        # no IOS device of the hardware view redistributes: the Batfish view's bgw1 does
        net = load_network(INVENTORIES / network)
        models = derive_network(net, batfish_context(net))
        found = [str(m) for m in fidelity(models, _configs(models, net.name))]
    else:
        found = build(INVENTORIES / network, tmp_path / "build", run_tools=False).findings
    assert any(expected in f for f in found), found


def test_a_line_the_reader_does_not_know_is_listed_with_its_line_number():
    net = load_network(INVENTORIES / "sc-booth")
    model = derive_network(net)["rsw1"]
    text = _configs({"rsw1": model}, net.name)["rsw1"]
    text = text.replace("hostname rsw1\n", "hostname rsw1\nip http server\n")
    line = text.splitlines().index("ip http server") + 1
    found = [str(m) for m in mismatches(expected_facts(model), read_config(text, "arista_eos", "rsw1"))]
    assert found == [f"rsw1: line {line}: the model says a line the reader knows, the config reads "
                     f"'ip http server': not a line the reader knows"]


def test_silence_reads_as_the_device_default():
    ios = read_config("ip routing\ninterface Vlan60\n ip address 10.0.0.1 255.255.255.0\n ip ospf hello-interval 2\n!\n"
                      "router ospf 1\n network 10.0.0.0 0.0.0.255 area 0\n", "cisco_ios", "s1")
    eos = read_config("interface Vlan60\n   ip address 10.0.0.1/24\n   ip ospf hello-interval 2\n!\n"
                      "router ospf 1\n   network 10.0.0.0/24 area 0\n", "arista_eos", "s2")
    # IOS: dead follows hello (4 x); a new SVI is shut until `no shutdown`. EOS: 40 s, routing off.
    assert (ios.routing, ios.interfaces["Vlan60"].ospf.dead, ios.interfaces["Vlan60"].shutdown) == (True, 8, True)
    assert (eos.routing, eos.interfaces["Vlan60"].ospf.dead, eos.interfaces["Vlan60"].shutdown) == (False, 40, False)


def test_the_recorded_eos_running_config_reads_routing_off_and_lists_what_it_does_not_read():
    text = (ROOT / "tests/unit/deploy/recorded/napalm/eos/show_running_config.text").read_text()
    facts = read_config(text, "arista_eos", "vEOS")
    # NAPALM's recording indents everything under `event-handler dhclient`: one section the
    # reader does not know, listed, and routing off (its `no ip routing`, and EOS's default)
    assert facts.routing is False
    assert [(line, text) for line, text, _ in facts.unknown] == [(7, "event-handler dhclient")]


# --- the lab's stand-ins run what the configs read as ---------------------------------------------

def _lab_configs(tmp_path: Path, edits: dict[str, tuple[str, str]], network: str = "eos-core") -> Path:
    """A network's lab configs planned from its rendered configs with `edits` (device -> old, new)."""
    from boothnet.lab.plan import plan_lab
    from boothnet.run import Run

    folder = tmp_path / "edited"
    folder.mkdir()
    run = Run(INVENTORIES / network, tmp_path / "build")
    for f in render_all(run.models("hardware"), run.net.name):
        old, new = edits.get(f.device, ("", ""))
        assert old in f.text
        (folder / f.path).parent.mkdir(parents=True, exist_ok=True)
        (folder / f.path).write_text(f.text.replace(old, new, 1))
    run.vendor_configs = folder
    spec, result = plan_lab(run, "segment", tmp_path / "build")
    assert result.ok, result.findings
    return result.out_dir


def test_a_stand_in_runs_its_config_as_read_not_the_model(tmp_path):
    out = _lab_configs(tmp_path, {"es1": ("ip routing\n", ""),
                                  "cs1": (" ip ospf hello-interval 1\n ip ospf dead-interval 4\n", "")})
    es1, cs1 = (out / "es1" / "frr.conf").read_text(), (out / "cs1" / "frr.conf").read_text()
    # EOS with routing off forwards nothing and runs no OSPF; IOS's interface runs its defaults
    assert "no ip forwarding" in es1 and "router ospf" not in es1
    assert "interface eth3\n ip ospf area 0\n ip ospf hello-interval 10\n ip ospf dead-interval 40\n" in cs1


def test_a_dropped_access_group_leaves_the_stand_in_unfiltered(tmp_path):
    out = _lab_configs(tmp_path, {"es1": ("   ip access-group USERS_IN in\n", "")})
    assert "USERS_IN" not in (out / "es1" / "nftables.nft").read_text()


def test_a_dual_stack_stand_in_runs_its_ipv6_filters_and_advertisements_as_read(tmp_path):
    out = _lab_configs(tmp_path, {"core1": (" ipv6 traffic-filter THEATER_IN_V6 in\n", "")}, "sc-booth-ds")
    nft, frr = (out / "core1" / "nftables.nft").read_text(), (out / "core1" / "frr.conf").read_text()
    # each family jumps to its own ACLs; the IPv6 ones bound as read, the dropped one unfiltered
    assert "meta nfproto ipv6 " in nft and "jump BOOTH_LAN_IN_V6" in nft and "jump BOOTH_LAN_IN\n" in nft
    assert "THEATER_IN_V6" not in nft and "jump THEATER_IN\n" in nft
    assert "icmpv6 type packet-too-big counter accept" in nft
    # research-01's hosts are static: its advertisements carry the prefix without the A flag
    assert "ipv6 nd prefix 2001:db8:110::/64 no-autoconfig" in frr and "ipv6 nd prefix 2001:db8:10::/64\n" in frr


def test_a_stand_in_runs_ospfv3_as_read(tmp_path):
    out = _lab_configs(tmp_path, {"core1": (" ipv6 ospf hello-interval 1\n ipv6 ospf dead-interval 4\n", "")},
                       "sc-booth-ds")
    frr = (out / "core1" / "frr.conf").read_text()
    # the first SVI lost its OSPFv3 timers: it runs IOS's defaults there while OSPFv2 keeps 1 s
    assert "ipv6 ospf6 area 0\n ipv6 ospf6 hello-interval 10\n ipv6 ospf6 dead-interval 40\n" in frr
    assert "ipv6 ospf6 hello-interval 1\n" in frr and "router ospf6\n ospf6 router-id 10.10.255.1\n" in frr


def test_ospfv3_and_ipv6_routes_read_as_the_device_reads_them():
    ios = read_config("ipv6 unicast-routing\ninterface Vlan60\n ipv6 address 2001:db8:60::1/64\n"
                      " ipv6 ospf 1 area 0.0.0.0\n ipv6 ospf hello-interval 2\n!\n"
                      "interface Vlan70\n ipv6 ospf 1 area 0\n!\n"
                      "ipv6 router ospf 1\n router-id 10.0.0.1\n default-information originate\n!\n"
                      "ipv6 route ::/0 2001:db8:60::9 name uplink\n", "cisco_ios", "s1")
    v60 = ios.interfaces["Vlan60"].ospf6
    # IOS: dead follows hello; an interface without IPv6 runs no OSPFv3
    assert (v60.area, v60.hello, v60.dead, ios.interfaces["Vlan70"].ospf6) == (0, 2, 8, None)
    assert (str(ios.ospf6_router_id), ios.default_originate6, ios.unknown) == ("10.0.0.1", True, [])
    assert [str(r) for r in ios.routes] == ["StaticRoute(prefix=IPv6Network('::/0'), "
                                            "next_hop=IPv6Address('2001:db8:60::9'), distance=1)"]
    # without `ipv6 unicast-routing` the device has no OSPFv3 to run; an IPv4 next hop is refused
    eos = read_config("interface Vlan60\n   ipv6 address 2001:db8:60::1/64\n   ipv6 ospf 1 area 0.0.0.0\n!\n"
                      "ipv6 router ospf 1\n   router-id 10.0.0.2\n!\nipv6 route ::/0 10.0.0.9\n",
                      "arista_eos", "s2")
    assert eos.interfaces["Vlan60"].ospf6 is None and eos.routes == []
    assert [why for _, _, why in eos.unknown] == ["not a static route the reader can read"]


def test_a_hand_edited_line_the_reader_cannot_map_stops_the_lab_naming_it(tmp_path):
    from boothnet.lab.standin import StandInRefused

    with pytest.raises(StandInRefused) as refused:
        _lab_configs(tmp_path, {"cs1": ("hostname cs1\n", "hostname cs1\nip http server\n")})
    assert refused.value.lines == [f"{tmp_path}/edited/cs1.cfg: line 5: 'ip http server': not a line "
                                   f"the reader knows; the lab runs only what it reads"]


@pytest.mark.skipif(os.geteuid() != 0, reason="lab-up refuses to start without root before it reads --configs")
def test_lab_up_configs_must_be_a_folder(tmp_path, capsys):
    from boothnet.cli import main

    assert main(["lab-up", "-i", str(INVENTORIES / "eos-core"), "--build-dir", str(tmp_path),
                 "--configs", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == (f"boothnet lab-up: --configs {tmp_path / 'nowhere'}: not a folder (it holds "
                                       "<device>.cfg files)\n")


def test_a_bound_port_reads_as_the_switch_enforces_it():
    port = ("interface GigabitEthernet1/0/42\n switchport mode access\n switchport access vlan 30\n"
            " switchport port-security\n switchport port-security mac-address 0200.0a0a.1e0c\n"
            " ip verify source port-security\n!\n")
    binding = "ip source binding 0200.0a0a.1e0c vlan 30 10.10.30.12 interface GigabitEthernet1/0/42\n"
    read = {name: read_config(text, "cisco_ios", "core1").interfaces["GigabitEthernet1/0/42"] for name, text in {
        "whole": port + "ip dhcp snooping vlan 30\nip dhcp snooping\n" + binding,
        # IP source guard does nothing in a VLAN where DHCP snooping is off
        "no snooping": port + binding,
        # snooping on, no binding for the port: it admits no IPv4 source at all
        "no binding": port + "ip dhcp snooping vlan 30\nip dhcp snooping\n",
    }.items()}
    assert {name: (i.allowed_macs, i.allowed_sources) for name, i in read.items()} == {
        "whole": (("02:00:0a:0a:1e:0c",), (IPv4Address("10.10.30.12"),)),
        "no snooping": (("02:00:0a:0a:1e:0c",), None),
        "no binding": (("02:00:0a:0a:1e:0c",), ()),
    }
    eos = read_config("interface Ethernet1\n   switchport access vlan 10\n   switchport port-security\n"
                      "   switchport port-security mac-address maximum 1\n   ip verify source\n!\n"
                      "mac address-table static 0200.0a04.0a0b vlan 10 interface Ethernet1\n"
                      "ip source binding 10.4.10.11 0200.0a04.0a0b vlan 10 interface Ethernet1\n",
                      "arista_eos", "es1").interfaces["Ethernet1"]
    assert (eos.allowed_macs, eos.allowed_sources, eos.access_vlan) == (
        ("02:00:0a:04:0a:0b",), (IPv4Address("10.4.10.11"),), 10)


def test_a_bound_ports_ipv6_acl_reads_as_the_sources_it_admits():
    port = ("interface Ethernet1\n   switchport access vlan 10\n   switchport port-security\n"
            "   ipv6 access-group BOUND6_ETHERNET1 in\n!\n")
    acls = {
        "bound": "   permit ipv6 fe80::/10 any\n   permit icmpv6 host :: any\n"
                 "   permit tcp 2001:db8:4:10::/64 2001:db8:4:20::/64 eq 22\n",
        "by address": "   permit ipv6 host 2001:db8:4:10::11 any\n   permit ipv6 fe80::/10 any\n",
        # a line admitting any source is no binding at all
        "open": "   permit ipv6 host 2001:db8:4:10::11 any\n   permit ipv6 any any\n",
        "nothing global": "   permit ipv6 fe80::/10 any\n   deny ipv6 any any\n",
    }
    read = {name: read_config(f"{port}ipv6 access-list BOUND6_ETHERNET1\n{lines}!\n", "arista_eos", "es1")
            for name, lines in acls.items()}
    assert {name: facts.interfaces["Ethernet1"].allowed_sources6 for name, facts in read.items()} == {
        "bound": (IPv6Network("2001:db8:4:10::/64"),), "by address": (IPv6Network("2001:db8:4:10::11/128"),),
        "open": None, "nothing global": ()}
    assert all(facts.unknown == [] for facts in read.values())  # the lab runs every line of a port ACL
    # bound and not defined: it permits all, as a routed port's
    assert read_config(port, "arista_eos", "es1").interfaces["Ethernet1"].allowed_sources6 is None


def test_a_stand_in_runs_its_ports_ipv6_acl_as_read_in_place_of_the_svis(tmp_path):
    """Every line of the port ACL runs at the port; the 7010T's profile leaves how it composes
    with the SVI's ACL unsettled, so the stand-in runs the reading under which a port ACL that
    carries less than the port's policy leaks: what the port ACL admits skips the SVI's ACL."""
    out = _lab_configs(tmp_path, {"es1": ("   permit tcp 2001:db8:4:10::/64 2001:db8:4:20::/64 eq 22\n",
                                          "   permit tcp 2001:db8:4:10::/64 2001:db8:4:20::/64 eq 2222\n")},
                       "eos-core-ds")
    nft = (out / "es1" / "nftables.nft").read_text()
    mark = "meta mark set 0x0000006b accept"
    assert (f'iifname "eth1" ip6 saddr 2001:db8:4:10::/64 ip6 daddr 2001:db8:4:20::/64 tcp dport {{ 2222 }} '
            f'counter {mark}') in nft
    assert "tcp dport { 22 }" not in nft.split("table bridge")[1]  # the edited line runs as read
    assert f'iifname "eth2" ip6 saddr ::/128 meta l4proto ipv6-icmp counter {mark}' in nft
    assert 'iifname "eth1" ether type ip6 drop' in nft and 'iifname "eth2" ether type ip6 drop' in nft
    assert 'meta nfproto ipv6 meta mark != 0x0000006b iifname "br10" oifname != "br10" jump USERS_IN_V6' in nft
    assert "BOUND6" not in nft  # a bridge port's filter, not a routed ACL


def test_a_dual_stack_eos_gateway_reads_back_with_its_ipv6_lines():
    from tests.policies import dual_stacked, reference

    net = dual_stacked(reference("eos-core"))
    models = derive_network(net)
    configs = _configs(models, net.name)
    gateways = [name for name, m in models.items() if m.platform == "arista_eos" and m.ipv6_routing]
    assert gateways, "eos-core dual-stacked routes IPv6 on an EOS device"
    assert fidelity(models, configs) == []
    name = gateways[0]
    text = configs[name]
    assert "ipv6 unicast-routing" in text and "   ipv6 access-group " in text
    assert "   permit icmpv6 any any packet-too-big" in text
    dropped = "\n".join(line for line in text.splitlines() if not line.startswith("   ipv6 access-group "))
    found = [str(m) for m in fidelity(models, {**configs, name: dropped + "\n"})]
    assert any(f.startswith(f"{name}: interface ") and " acl6_in: the model says " in f for f in found), found
    assert "ipv6 router ospf 1\n   router-id " in text and "   ipv6 ospf 1 area 0.0.0.0\n" in text
    untimed = text.replace("   ipv6 ospf dead-interval 4\n", "")
    found = [str(m) for m in fidelity(models, {**configs, name: untimed})]
    assert f"{name}: interface Vlan10 ospf6.dead: the model says 4, the config reads 40" in found, found


def test_an_eos_switchports_mtu_bounds_routed_packets_not_its_frames():
    """EOS's `mtu` is a layer-3 MTU (defaults.yml switchport_frames): a switchport with `mtu 1500`
    still switches a 9000-byte research VLAN's frames; the same line on a routed port bounds it."""
    text = ("interface Ethernet1\n   mtu 1500\n   switchport access vlan 110\n!\n"
            "interface Ethernet2\n   mtu 1500\n   switchport mode trunk\n!\n"
            "interface Ethernet3\n   mtu 1500\n   no switchport\n   ip address 10.0.0.1/30\n!\n"
            "interface Vlan110\n   mtu 9000\n   ip address 10.110.1.1/24\n!\n")
    eos = read_config(text, "arista_eos", "rsw1").interfaces
    assert {name: i.mtu for name, i in eos.items()} == {"Ethernet1": 9214, "Ethernet2": 9214, "Ethernet3": 1500,
                                                       "Vlan110": 9000}
    # IOS's per-port `mtu` is the frame limit of the switchport itself
    ios = read_config("interface GigabitEthernet1/0/1\n mtu 1500\n switchport access vlan 110\n!\n",
                      "cisco_ios", "core1").interfaces
    assert ios["GigabitEthernet1/0/1"].mtu == 1500


def test_the_eos_research_switch_prints_no_mtu_on_its_switchports():
    """A 9000-byte research fabric on EOS needs `mtu` on its routed interfaces only: sc-booth's
    rsw1 (switchports only) prints none, and its stand-in switches frames up to 9214 bytes."""
    net = load_network(INVENTORIES / "sc-booth")
    models = derive_network(net)
    text = _configs(models, net.name)["rsw1"]
    assert "   mtu " not in text
    facts = read_config(text, "arista_eos", "rsw1")
    assert {i.mtu for i in facts.interfaces.values() if i.mode in ("access", "trunk")} == {9214}
    assert mismatches(expected_facts(models["rsw1"]), facts) == []


def test_port_securitys_violation_mode_reads_as_the_switch_runs_it_and_the_stand_in_models_it(tmp_path):
    """IOS prints `violation restrict` (a foreign frame dropped, the port up); the 7010T's profile
    prints none (protect found in no guide for its release): EOS err-disables the port, and its
    stand-in takes the port down at the first foreign frame (nft set @errdisabled)."""
    ios = read_config("interface GigabitEthernet1/0/1\n switchport access vlan 30\n switchport port-security\n"
                      " switchport port-security violation restrict\n!\ninterface GigabitEthernet1/0/2\n"
                      " switchport access vlan 30\n switchport port-security\n!\n", "cisco_ios", "core1").interfaces
    assert (ios["GigabitEthernet1/0/1"].violation, ios["GigabitEthernet1/0/2"].violation) == ("restrict", "shutdown")
    out = _lab_configs(tmp_path, {}, "eos-core")
    nft = (out / "es1" / "nftables.nft").read_text()
    assert 'iifname "eth1" ether saddr != 02:00:0a:04:0a:0b add @errdisabled { iifname } drop' in nft
    assert "iifname @errdisabled drop" in nft and "oifname @errdisabled drop" in nft
    # an IOS stand-in (restrict) drops the frame and keeps the port
    (tmp_path / "ios").mkdir()
    core1 = (_lab_configs(tmp_path / "ios", {}, "sc-booth") / "core1" / "nftables.nft").read_text()
    assert "errdisabled" not in core1 and 'ether saddr != 02:00:0a:0a:1e:0b drop' in core1


@pytest.mark.parametrize("view", ["hardware", "batfish"])
def test_rules_naming_icmp_types_read_back_as_their_model(view, tmp_path):
    """IOS and EOS print `echo` for an IPv4 echo request, both families' other types by their
    names (issue 69): each line reads back as the type its model names."""
    inventory = tmp_path / "inv"
    shutil.copytree(INVENTORIES / "eos-core-ds", inventory)
    ping_only_policy(inventory)
    net = load_network(inventory)
    models = derive_network(net, batfish_context(net) if view == "batfish" else None)
    typed = {e.icmp_type for m in models.values() for acl in m.acls for e in acl.entries if e.rule == "ping-anywhere"}
    assert typed == {"echo-request"}
    assert fidelity(models, _configs(models, net.name)) == []
