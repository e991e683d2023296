"""The lab's state file as a typed LabState: what lab_up wrote before this type reads the same,
and a file that is missing, torn or of another shape reads as no state (lab_down discovers)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

import boothnet.lab as lab_surface
from boothnet.lab.state import LabState, read_state, write_state

# state.json as lab_up wrote it (a lab-mini lab with one WAN delay line), before LabState
WRITTEN_UP = {
    "bridge": "bnmini-mgmt", "bridge_address": "198.18.0.1/24", "configs": "full",
    "finished": "2026-11-26T10:00:09+0000",
    "frr_pathspaces": {"r1": "lab-mini-r1"}, "kernel_vlan_mode": "segment", "mgmt_subnet": "198.18.0.0/24",
    "links": [{"a": "r1:eth3", "b": "r2:eth3", "label": "r1:eth3--r2:eth3", "mtu": 9000, "speed_mbps": 622}],
    "mgmt_veths": {"r1": "bnmini-r1-m"}, "namespaces": {"r1": "lab-mini-r1"}, "network": "lab-mini",
    "nodes": {"r1": {"kind": "router", "mgmt_address": "198.18.0.11/24"}},
    "pids": {"r1": {"ospfd": 4242, "sshd": 4250}, "wan delay lines": {"r1:eth3--r2:eth3": 4201}},
    "spec_hash": "3f2a", "started": "2026-11-26T10:00:00+0000", "status": "up", "up_seconds": 9.1,
    "version": 1, "vlan_mode": "segment",
}
WRITTEN_DOWN = {"version": 1, "network": "lab-mini", "status": "down", "down_at": "2026-11-26T10:05:00+0000",
                "down_seconds": 1.2, "removed": {"namespaces": ["lab-mini-r1"], "processes": [{"pid": 4242}]}}


def test_an_up_state_file_reads_and_writes_back_unchanged(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text(json.dumps(WRITTEN_UP))
    state = read_state(tmp_path)
    assert state is not None and state.up and state.pids["wan delay lines"] == {"r1:eth3--r2:eth3": 4201}
    write_state(tmp_path, state)
    assert json.loads((tmp_path / "state.json").read_text()) == WRITTEN_UP


def test_a_down_state_file_reads_as_down_with_what_was_removed(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text(json.dumps(WRITTEN_DOWN))
    state = read_state(tmp_path)
    assert state is not None and state.status == "down" and not state.namespaces
    assert state.removed == WRITTEN_DOWN["removed"]
    write_state(tmp_path, state)
    assert read_state(tmp_path) == state


def test_what_lab_up_did_this_time_is_never_written(tmp_path: Path) -> None:
    write_state(tmp_path, dataclasses.replace(LabState(network="n", status="up"), changed=False))
    assert "changed" not in json.loads((tmp_path / "state.json").read_text())
    assert read_state(tmp_path) == LabState(network="n", status="up")


@pytest.mark.parametrize("text", ["", '{"network": "lab-mi', "[1, 2]", '{"status": "up"}',
                                  json.dumps({**WRITTEN_UP, "status": "half"}),
                                  json.dumps({**WRITTEN_UP, "pids": {"r1": {"ospfd": "not a pid"}}})],
                         ids=["empty", "torn", "list", "no network", "unknown status", "bad pid"])
def test_a_file_that_is_no_state_reads_as_none(tmp_path: Path, text: str) -> None:
    (tmp_path / "state.json").write_text(text)
    assert read_state(tmp_path) is None


def test_no_file_reads_as_none(tmp_path: Path) -> None:
    assert read_state(tmp_path) is None


def test_the_labs_public_names_resolve_and_load_only_when_used() -> None:
    # a fresh interpreter: a delay line (python -m boothnet.lab.delayline) must not load the lab's planner
    code = ("import sys, boothnet.lab as lab; assert 'boothnet.lab.plan' not in sys.modules; "
            "[getattr(lab, n) for n in lab.__all__]; assert 'boothnet.lab.plan' in sys.modules; "
            "print(len(lab.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out) == len(lab_surface.__all__) > 20
