"""Interface state: parsing, rendering running state from recorded ip -j, delta."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boothnet.deploy import ifstate

CASES = Path(__file__).parent / "cases"


def load(case: str) -> tuple[ifstate.State, ifstate.State]:
    d = CASES / case
    running = ifstate.from_ip_json(json.loads((d / "link.json").read_text()),
                                   json.loads((d / "addr.json").read_text()))
    return running, ifstate.parse_batch((d / "candidate.ip").read_text())


def test_unchanged_intent_renders_identically_and_has_no_delta() -> None:
    running, target = load("bridge_veth")
    assert ifstate.render_batch(ifstate.restrict(running, target)) == ifstate.render_batch(target)
    assert ifstate.delta(running, target) == []


def test_recorded_state_ignores_link_local_and_unmanaged_interfaces() -> None:
    running, target = load("bridge_veth")
    restricted = ifstate.restrict(running, target)
    assert set(restricted) == {"eth0", "eth1", "br9"}  # lo is not in the candidate
    assert all(not a.startswith("fe80") for i in restricted.values() for a in i.addrs)
    assert restricted["br9"].kind == "bridge"


def test_changed_address_deletes_before_adding() -> None:
    running, target = load("bridge_veth")
    target["br9"].addrs = {"198.18.210.145/28"}
    assert ifstate.delta(running, target) == [
        "addr del 198.18.210.129/28 dev br9",
        "addr add 198.18.210.145/28 dev br9",
    ]


def test_bridge_dropped_from_intent_is_deleted_when_in_scope() -> None:
    running, target = load("bridge_veth")
    del target["br9"]
    assert ifstate.delta(running, target) == []  # not in scope: untouched
    assert ifstate.delta(running, target, scope={"br9"}) == ["link del br9"]


def test_vlan_with_wrong_id_is_recreated() -> None:
    running, target = load("vlan_synth")
    expected = (CASES / "vlan_synth" / "expected_delta.ip").read_text().splitlines()
    assert ifstate.delta(running, target) == expected


def test_mtu_raised_on_parent_before_child_and_lowered_child_first() -> None:
    running, _ = load("vlan_synth")
    up = ifstate.parse_batch("link set eth1 mtu 9100\nlink add link eth1 name eth1.110 type "
                             "vlan id 110\nlink set eth1.110 mtu 9100\n"
                             "addr add 10.110.0.1/24 dev eth1.110\n")
    assert ifstate.delta(running, up) == ["link set eth1 mtu 9100", "link set eth1.110 mtu 9100"]
    down = ifstate.parse_batch(ifstate.render_batch(up).replace("9100", "1500"))
    assert ifstate.delta(running, down) == ["link set eth1.110 mtu 1500", "link set eth1 mtu 1500"]


def test_missing_port_fails_before_apply() -> None:
    running, _ = load("bridge_veth")
    with pytest.raises(ifstate.IfStateError, match="interfaces not on the device: eth7"):
        ifstate.delta(running, ifstate.parse_batch("link set eth7 up\n"))
    with pytest.raises(ifstate.IfStateError, match="parent eth9 does not exist"):
        ifstate.delta(running, ifstate.parse_batch(
            "link add link eth9 name eth9.5 type vlan id 5\n"))


@pytest.mark.parametrize("line, message", [
    ("ip link set eth0 up", "unsupported statement"),
    ("link set eth0 mtu big", "invalid literal"),
    ("addr add 10.0.0.300/24 dev eth0", "not an address"),
    ("link set averyveryverylongname up", "not a Linux interface name"),
])
def test_parse_errors_name_the_line(line: str, message: str) -> None:
    with pytest.raises(ifstate.IfStateError, match=f"line 2: .*{message}"):
        ifstate.parse_batch("link set eth0 up\n" + line + "\n")


def test_render_is_canonical_and_reparses() -> None:
    _, target = load("vlan_synth")
    text = ifstate.render_batch(target)
    assert ifstate.render_batch(ifstate.parse_batch(text)) == text
    shuffled = "\n".join(reversed((CASES / "vlan_synth" / "candidate.ip").read_text().split("\n")))
    assert ifstate.render_batch(ifstate.parse_batch(shuffled)) == text
