"""Route closure: every declared throughput path has a route there and back in the derived configs."""

from __future__ import annotations

from ipaddress import IPv4Network

from boothnet.derive import derive_network
from boothnet.derive.reach import route_problems
from boothnet.intent import load_network
from tests.helpers import INVENTORIES


def _home_behind_the_show_router(inv) -> None:  # an InventoryCopy
    """fw-booth plus a home router reached only through the unmanaged show router, and a path to it."""
    inv.edit("hosts.yml", lambda d: (
        d["all"]["children"]["network_devices"]["hosts"].update(home1=None),
        d["all"]["children"]["endpoints"]["hosts"].update(
            homepc={"vlan": "home-lan", "address": "10.90.1.10", "attach": "home1:eth2", "role": "server"})))
    inv.edit("group_vars/all/links.yml", lambda d: d["links"].append(
        {"a": "home1:eth1", "b": "show1:eth2", "mode": "routed", "speed": 1000, "mtu": 1500, "delay_ms": 20,
         "addresses": {"a": "203.0.113.6/30", "b": "203.0.113.5/30"}}))
    inv.edit("group_vars/all/vlans.yml", lambda d: d["vlans"].append(
        {"id": 90, "name": "home-lan", "zone": "production", "subnet": "10.90.1.0/24", "gateway": "home1",
         "mtu": 1500}))
    inv.edit("host_vars/show1.yml", lambda d: d["ports"].append({"name": "eth2", "speed": 1000}))
    inv.save("host_vars/home1.yml", {"role": "router", "platform": "frr_linux", "mgmt_address": "198.18.3.20",
                                     "router_id": "10.90.255.1",
                                     "ports": [{"name": "eth1", "speed": 1000}, {"name": "eth2", "speed": 1000}]})
    inv.edit("group_vars/all/throughput.yml", lambda d: d["throughput"].update(
        paths=[{"name": "office-to-home", "from": "office1", "to": "homepc"}]))


def test_every_reference_path_is_routed_there_and_back():
    for name in ("sc-booth", "lab-mini", "fw-booth", "eos-core"):
        net = load_network(INVENTORIES / name)
        assert route_problems(net, derive_network(net)) == [], name


def test_a_home_router_behind_the_show_router_gets_its_way_back(inventory_copy):
    inv = inventory_copy("fw-booth")
    _home_behind_the_show_router(inv)
    net = load_network(inv.path)
    models = derive_network(net)
    assert [(str(r.prefix), str(r.next_hop)) for r in models["home1"].routes] == [("0.0.0.0/0", "203.0.113.5")]
    assert ("10.90.1.0/24", "203.0.113.6") in [(str(r.prefix), str(r.next_hop)) for r in models["show1"].routes]
    assert route_problems(net, models) == []


def test_a_hop_without_a_route_back_is_named(inventory_copy):
    inv = inventory_copy("fw-booth")
    _home_behind_the_show_router(inv)
    net = load_network(inv.path)
    models = derive_network(net)
    models["home1"].routes = []  # the home router as it was: a hostname and nothing else
    assert list(map(str, route_problems(net, models))) == [
        f"{inv.path}/group_vars/all/throughput.yml: throughput.paths[0]: 'office-to-home': a route there and back "
        "between office1 and homepc: on the way back, home1 has no route to 10.20.10.11"]
    models["show1"].routes = [r for r in models["show1"].routes if r.prefix != IPv4Network("10.90.1.0/24")]
    assert "on the way there, show1 has no route to 10.90.1.10" in str(route_problems(net, models)[0])


def test_a_path_without_a_route_back_refuses_the_build_naming_it(inventory_copy, tmp_path):
    """sc-booth without its uplink: the booth has no way to the show router, so the bulk transfer
    home (r01-fs -> bulk1) has no route; the build refuses the intent and writes nothing."""
    import pytest

    from boothnet.errors import IntentInvalid
    from boothnet.render.build import build

    inv = inventory_copy("sc-booth")
    inv.edit("group_vars/all/network.yml", lambda d: d.pop("uplink"))
    with pytest.raises(IntentInvalid) as refused:
        build(inv.path, tmp_path / "build", run_tools=False)
    assert [str(e) for e in refused.value.errors] == [
        f"{inv.path}/group_vars/all/throughput.yml: throughput.paths[2]: 'bulk-to-home': a route there and back "
        "between r01-fs and bulk1: on the way back, show1 has no route to 10.110.1.20",
        f"{inv.path}/group_vars/all/throughput.yml: throughput.paths[2]: 'bulk-to-home': a route there and back "
        "between r01-fs and bulk1: on the way there, core1 has no route to 10.201.1.10"]
    assert not (tmp_path / "build").exists() or not any((tmp_path / "build").rglob("*.cfg"))
