"""The show-floor generator: exact device counts, a valid intent, the same bytes every time."""

from __future__ import annotations

from ipaddress import IPv4Network

import pytest

from boothnet.derive import derive_network
from boothnet.intent import load_network
from boothnet.platforms import platforms
from boothnet.tools.showfloor import floor_size, showfloor_files, write_showfloor

TAKEN = [IPv4Network(n) for n in ("198.18.0.0/24", "198.18.1.0/24", "198.18.200.0/24", "198.18.210.0/24",
                                  "198.18.230.0/24")]


@pytest.mark.parametrize("devices", [4, 50, 200, 500])
def test_exactly_the_devices_asked_for(devices):
    size = floor_size(devices)
    assert 2 + size.distribution + size.booths == devices
    assert size.booths <= 24 * size.distribution
    assert not any(size.mgmt_subnet.overlaps(t) for t in TAKEN)


def test_management_subnet_fits_devices_and_lab_hosts():
    size = floor_size(500)
    assert size.endpoints == 4 * size.booths
    assert size.mgmt_subnet.num_addresses - 2 >= 10 + 500 + size.endpoints
    assert floor_size(50, hosts_per_vlan=0).mgmt_subnet.prefixlen == 24


@pytest.mark.parametrize("bad", [{"devices": 3}, {"devices": 50, "booths_per_dist": 49},
                                 {"devices": 50, "hosts_per_vlan": 25}, {"devices": 4000}])
def test_impossible_floors_are_refused(bad):
    with pytest.raises(ValueError):
        floor_size(**bad)


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    out = tmp_path_factory.mktemp("floor") / "floor60"
    write_showfloor(out, floor_size(60), "floor60")
    return load_network(out)


def test_generated_floor_passes_validation(floor):
    size = floor_size(60)
    assert len(floor.devices) == 60
    assert len(floor.vlans) == 2 * size.booths
    assert len(floor.endpoints) == size.endpoints
    zones = {v.zone for v in floor.vlans}
    assert zones == {"production", "research"}
    assert all(floor.vlan_mtu(v) == 9000 for v in floor.vlans if v.zone == "research")


def test_vlan_ids_avoid_every_platforms_reserved_range(floor):
    reserved = set().union(*(p.reserved_vlans for p in platforms().values()))
    assert not reserved & {v.id for v in floor.vlans}


def test_each_booth_has_its_own_policy_before_the_zone_rules(floor):
    names = [r.name for r in floor.policy.rules]
    assert names[:2] == ["booth001-noc-ssh", "booth001-demo"]
    last = f"booth{floor_size(60).booths:03d}-demo"
    assert names.index("research-not-to-production") > names.index(last)


def test_derives_acls_on_the_distribution_gateways(floor):
    models = derive_network(floor)
    dist = models["dist01"]
    assert {a.name for a in dist.acls} >= {"BOOTH001_PROD_IN", "BOOTH001_RES_IN"}
    assert models["booth001"].acls == [] and models["booth001"].platform == "cisco_ios"
    assert {models[f"booth00{i}"].platform for i in (1, 2, 3)} == {"cisco_ios", "arista_eos", "frr_linux"}


def test_same_sizes_give_the_same_bytes(tmp_path):
    a = write_showfloor(tmp_path / "a", floor_size(30), "f")
    b = write_showfloor(tmp_path / "b", floor_size(30), "f")
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    assert showfloor_files(floor_size(30), "f") == showfloor_files(floor_size(30), "f")


def test_rewriting_a_smaller_floor_leaves_no_stale_host_vars(tmp_path):
    write_showfloor(tmp_path / "f", floor_size(40), "f")
    write_showfloor(tmp_path / "f", floor_size(20), "f")
    assert len(list((tmp_path / "f" / "host_vars").glob("*.yml"))) == 20
    assert len(load_network(tmp_path / "f").devices) == 20
