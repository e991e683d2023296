"""The switch a booth rents: its profile decides the forms its config prints, and the config
read back as that switch reads it still equals the model (render fidelity)."""

from __future__ import annotations

from ipaddress import IPv4Address

import pytest

from boothnet.derive import derive_network
from boothnet.intent import load_network
from boothnet.platforms.profiles import profile, release_key
from boothnet.readback import fidelity, read_config
from boothnet.render.build import build, render_all, single_file_configs
from tests.helpers import ROOT


def test_a_release_picks_the_profile_entry_it_reaches():
    assert release_key("17.9.4a") == (17, 9, 4) and release_key("4.28.0F") == (4, 28, 0)
    assert profile("cisco_ios", "C9300-48T", "17.1.1").mtu == "per_port"
    assert profile("cisco_ios", "C9300-48T", "16.12.9").mtu == "system"
    assert profile("cisco_ios", "WS-C3850-48T", None).mtu == "system"
    assert profile("frr_linux", None, None) is None


@pytest.mark.parametrize(("model", "release"), [("WS-C3850-48T", "16.12.9"), ("C9300-48T", "16.12.9")])
def test_a_switch_without_per_port_mtu_renders_system_mtu_and_reads_back_as_its_model(
        inventory_copy, tmp_path, model, release):
    """core1 as a 3850, or a 9300 before IOS XE 17.1.1: `system mtu 9000` once, no `mtu` on a
    switchport (those switches reject it), and each 1500-byte SVI says so (it would take the
    system MTU); read back, every switchport carries 9000 and the fidelity check holds."""
    inv = inventory_copy("sc-booth")
    inv.edit("host_vars/core1.yml", lambda d: d.update(model=model, release=release))
    result = build(inv.path, tmp_path / "build", run_tools=False)
    assert result.ok, result.findings
    text = (tmp_path / "build" / "sc-booth" / "configs" / "core1.cfg").read_text()
    assert "\nsystem mtu 9000\n" in text
    blocks = {block.split("\n", 1)[0]: block for block in text.split("\n!\n") if block.startswith("interface ")}
    switchports = [b for b in blocks.values() if " switchport mode " in b]
    assert switchports and not [b for b in switchports if "\n mtu " in b]
    assert "\n mtu 1500" in blocks["interface Vlan10"] and "\n mtu " not in blocks["interface Vlan30"]
    read = read_config(text, "cisco_ios", "core1")
    assert read.system_mtu == 9000 and read.interfaces["GigabitEthernet1/0/1"].mtu == 9000
    assert read.interfaces["Vlan10"].mtu == 1500


def test_the_management_gateway_is_a_default_route_in_the_management_vrf():
    """A booth whose switches all keep management in a VRF: the route is in that VRF, and read back."""
    net = load_network(ROOT / "inventories" / "sc-booth")
    net.settings.management.gateway = IPv4Address("198.18.0.1")
    models = derive_network(net)
    configs = single_file_configs(render_all(models, net.name))
    assert "\nip route vrf Mgmt-vrf 0.0.0.0 0.0.0.0 198.18.0.1\n" in configs["core1"]
    assert read_config(configs["core1"], "cisco_ios", "core1").access.gateway == IPv4Address("198.18.0.1")
    assert not [m for m in fidelity(models, configs) if m.device == "core1"]


def test_a_config_without_the_management_plane_reads_as_a_switch_nobody_can_reach():
    """The fidelity check names what a config lost: here the user and the vty lines."""
    net = load_network(ROOT / "inventories" / "sc-booth")
    models = derive_network(net)
    configs = single_file_configs(render_all(models, net.name))
    cut = configs["core1"].replace("username boothnet privilege 15 secret 9 ${BOOTHNET_ADMIN_SECRET_IOS}\n", "")
    cut = cut.replace("line vty 0 15\n transport input ssh\n", "")
    found = [str(m) for m in fidelity(models, {**configs, "core1": cut}) if m.device == "core1"]
    assert len(found) == 1 and "access" in found[0] and "users=('boothnet',)" in found[0] and "users=()" in found[0]


def test_scp_needs_aaa_exec_authorization_and_ssh_logs_in_local_users_either_way():
    """Cisco's Secure Copy guide: SCP needs AAA authorization of the user's exec, so the IOS configs
    carry AAA with the local user database (login and exec) beside `ip scp server enable`.
    A config without the authorization keeps SSH but not SCP; one from before AAA (`login local`
    on the vty lines) logs in local users too."""
    net = load_network(ROOT / "inventories" / "sc-booth")
    core1 = single_file_configs(render_all(derive_network(net), net.name))["core1"]
    access = read_config(core1, "cisco_ios", "core1").access
    assert (access.ssh, access.scp) == (True, True)
    no_authz = read_config(core1.replace("aaa authorization exec default local\n", ""), "cisco_ios", "core1").access
    assert (no_authz.ssh, no_authz.scp) == (True, False)
    before_aaa = core1.replace("aaa new-model\naaa authentication login default local\n"
                               "aaa authorization exec default local\n", "")
    before_aaa = before_aaa.replace("line vty 0 15\n", "line vty 0 15\n login local\n")
    old = read_config(before_aaa, "cisco_ios", "core1")
    assert (old.access.ssh, old.access.scp, old.unknown) == (True, False, [])
    # AAA on without a local default login list: the vty lines take nobody
    no_login = read_config(core1.replace("aaa authentication login default local\n", ""), "cisco_ios", "core1")
    assert not no_login.access.ssh


def test_every_port_of_a_named_model_that_nothing_uses_is_a_shut_access_port():
    """core1 names its model (C9300-48T): its uncabled ports are shut access ports, read back so;
    eos-core's switches name none, so no port of a model they may not be is invented."""
    for name, expect_unused in (("sc-booth", True), ("eos-core", False)):
        net = load_network(ROOT / "inventories" / name)
        models = derive_network(net)
        unused = [i.name for m in models.values() for i in m.interfaces if i.kind == "unused"]
        assert bool(unused) == expect_unused, (name, unused)
    net = load_network(ROOT / "inventories" / "sc-booth")
    models = derive_network(net)
    configs = single_file_configs(render_all(models, net.name))
    block = configs["core1"].split("interface GigabitEthernet1/0/5\n", 1)[1].split("!\n", 1)[0]
    assert block == " description unused\n switchport mode access\n shutdown\n"
    read = read_config(configs["core1"], "cisco_ios", "core1").interfaces["GigabitEthernet1/0/5"]
    assert (read.mode, read.access_vlan, read.shutdown) == ("access", 1, True)
    # planted: the port left out of the config reads as the switch's default (up, VLAN 1): named
    cut = configs["core1"].replace("interface GigabitEthernet1/0/5\n" + block + "!\n", "")
    found = [str(m) for m in fidelity(models, {**configs, "core1": cut}) if m.device == "core1"]
    assert found and all("GigabitEthernet1/0/5" in f for f in found), found
