"""Snapshot assembly: configs/ and batfish/layer1_topology.json in Batfish's format."""

from __future__ import annotations

import json

import pytest
from bf_recorded import booth_intent, configs_dir

from boothnet.verify.batfish.intent import IfaceRef
from boothnet.verify.batfish.snapshot import (
    SnapshotError,
    build_snapshot_dir,
    init_snapshot,
    layer1_topology,
    snapshot_name,
)


def test_build_snapshot_dir_writes_configs_and_layer1(tmp_path):
    out = build_snapshot_dir(configs_dir(), booth_intent().links, tmp_path / "snap")
    assert sorted(p.name for p in (out / "configs").iterdir()) == [
        "bgw.cfg", "core1.cfg", "hgw.cfg", "isp.cfg", "rsw1.cfg"]
    topo = json.loads((out / "batfish" / "layer1_topology.json").read_text())
    assert len(topo["edges"]) == 2 * len(booth_intent().links)  # both directions
    assert {"node1": {"hostname": "core1", "interfaceName": "GigabitEthernet0/1"},
            "node2": {"hostname": "rsw1", "interfaceName": "Ethernet1"}} in topo["edges"]
    assert {"node1": {"hostname": "rsw1", "interfaceName": "Ethernet1"},
            "node2": {"hostname": "core1", "interfaceName": "GigabitEthernet0/1"}} in topo["edges"]


def test_layer1_accepts_tuples_and_dedupes():
    a, b = ("core1", "Gi0/1"), ("rsw1", "Ethernet1")
    topo = layer1_topology([(a, b), (b, a), (IfaceRef(*a), IfaceRef(*b))])
    assert len(topo["edges"]) == 2


def test_stale_files_are_removed(tmp_path):
    out = tmp_path / "snap"
    (out / "configs").mkdir(parents=True)
    (out / "configs" / "old.cfg").write_text("hostname old\n")
    build_snapshot_dir(configs_dir(), [], out)
    assert not (out / "configs" / "old.cfg").exists()
    assert not (out / "batfish").exists()  # no edges: Batfish infers layer 3 only


def test_empty_configs_folder_is_an_error(tmp_path):
    with pytest.raises(SnapshotError, match="no \\*.cfg"):
        build_snapshot_dir(tmp_path, [], tmp_path / "snap")


def test_edge_to_unknown_node_is_an_error(tmp_path):
    with pytest.raises(SnapshotError, match="'ghost'"):
        build_snapshot_dir(configs_dir(), [(("core1", "Gi0/1"), ("ghost", "e1"))],
                           tmp_path / "snap")


def test_init_snapshot_uploads_the_folder(tmp_path):
    calls = []

    class FakeSession:
        def init_snapshot(self, upload, name=None, overwrite=False):
            calls.append((upload, name, overwrite))
            return name

    assert init_snapshot(FakeSession(), tmp_path, "verify") == "verify"
    assert calls == [(str(tmp_path), "verify", True)]


def test_two_run_folders_of_one_network_load_two_snapshots_and_a_rerun_its_own(tmp_path):
    first, second = tmp_path / "a" / "lab-mini" / "verify", tmp_path / "b" / "lab-mini" / "verify"
    assert snapshot_name("verify", first) != snapshot_name("verify", second)
    assert snapshot_name("verify", first) == snapshot_name("verify", first)
    assert snapshot_name("verify", first).startswith("verify-")
