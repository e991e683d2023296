"""Candidate parts, diff normalization, health expectations and result records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boothnet.deploy import health, parts, results, steps


def test_frr_normalization_ignores_banner_and_order_within_flat_blocks() -> None:
    running = ("Building configuration...\n\nCurrent configuration:\n!\nfrr version 8.4.4\n"
               "interface eth1\n ip ospf dead-interval 4\n ip ospf hello-interval 1\nexit\n!\nend\n")
    candidate = "interface eth1\n ip ospf hello-interval 1\n ip ospf dead-interval 4\n!\n"
    assert parts.normalize_frr(running) == parts.normalize_frr(candidate)
    assert parts.unified("frr.conf", parts.normalize_frr(running),
                         parts.normalize_frr(candidate)) == ""


def test_nft_normalization_drops_counter_values() -> None:
    a = "table inet f {\n\tchain c {\n\t\ttcp dport 22 counter packets 12 bytes 720 accept\n"
    b = "table inet f {\n\tchain c {\n\t\ttcp dport 22 counter accept\n"
    assert parts.normalize_nft(a) == parts.normalize_nft(b)


def test_candidate_folder_rules(tmp_path: Path) -> None:
    (tmp_path / "nftables.nft").write_text("table inet f {}\n")
    with pytest.raises(parts.CandidateError, match="must start with 'flush ruleset'"):
        parts.load_parts(tmp_path)
    (tmp_path / "interfaces.sh").write_text("")
    with pytest.raises(parts.CandidateError, match="unknown candidate part"):
        parts.load_parts(tmp_path)
    loaded = parts.load_parts({"frr.conf": "x", "interfaces.ip": "y"})
    assert list(loaded) == ["interfaces.ip", "frr.conf"]  # apply order


FRR = """router ospf
 network 10.0.0.0/30 area 0
 network 10.1.0.0/24 area 0
 network 10.2.0.0/24 area 0
 passive-interface br1
exit
interface eth2
 ip ospf network point-to-point
"""
IFS = """addr add 10.0.0.1/30 dev eth1
addr add 10.0.0.5/30 dev eth2
addr add 10.1.0.1/24 dev br1
addr add 10.2.0.1/24 dev br2
"""


def test_expected_adjacencies_from_candidate() -> None:
    cand = {"frr.conf": FRR.replace("10.0.0.0/30", "10.0.0.0/29"), "interfaces.ip": IFS}
    assert health.active_ospf_interfaces(cand["frr.conf"], IFS) == {"eth1", "eth2", "br2"}
    before = {"eth1": [{"state": "Full"}], "br2": [{"state": "Init"}]}
    # eth1 had a Full neighbor, eth2 is point-to-point, br2 (hosts only) expects none.
    assert health.expected_adjacencies(cand, before) == {"eth1", "eth2"}
    fails = health.adjacency_failures({"eth1", "eth2"}, {"eth1": [{"state": "Full"}]})
    assert fails == ["OSPF on eth2: expected a Full neighbor, found no neighbor"]


def test_outcomes() -> None:
    committed = {"committed": True, "changed": True, "parts": ["frr.conf"], "backup": "/b"}
    assert steps.outcome("r1", committed, {"healthy": True}, True, None).outcome == "new-confirmed"
    r = steps.outcome("r1", committed, {"healthy": False, "reason": "OSPF on eth1: x"}, False,
                      {"reverted": True, "reason": "reverted at T"})
    assert (r.outcome, r.in_force) == ("reverted", "previous")
    assert "OSPF on eth1" in r.reason and "reverted at T" in r.reason
    lost = steps.outcome("r1", committed, None, False, {"reverted": False, "reason": "unreachable"})
    assert lost.outcome == "unknown"
    rej = steps.outcome("r1", None, None, False, None, error="frr.conf rejected by vtysh: line 2")
    assert (rej.outcome, rej.in_force) == ("failed-before-apply", "previous")
    assert steps.outcome("r1", {"committed": False, "changed": False}, None, False,
                         None).outcome == "unchanged"
    assert steps.outcome("r1", {"committed": False, "changed": True}, None, False, None,
                         check=True).outcome == "check-only"


def test_records_keep_summary_current(tmp_path: Path) -> None:
    results.record(tmp_path, results.DeviceResult("r1", "new-confirmed"))
    results.record(tmp_path, results.DeviceResult("r2", "reverted", "health check failed"))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["counts"] == {"new-confirmed": 1, "reverted": 1}
    assert summary["ok"] is False
    assert summary["devices"]["r2"]["in_force"] == "previous"
    table = results.summary_table(results.load_results(tmp_path))
    assert "r2      reverted       previous  -       -         health check failed" in table


def test_backup_path_layout(tmp_path: Path) -> None:
    p = results.backup_path(tmp_path, "sc-booth", "core1", "20260101T000000Z")
    assert p == tmp_path / "sc-booth" / "backups" / "core1" / "20260101T000000Z"
