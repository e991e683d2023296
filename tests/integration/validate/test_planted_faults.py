"""lab-mini from its intent: the whole validation passes, and each planted fault fails naming its cause."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from boothnet.intent import load_network
from boothnet.lab.plan import plan_lab
from boothnet.lab.runner import detect_vlan_mode, lab_down, lab_up
from boothnet.lab.shaping import shape
from boothnet.report.render import write_report
from boothnet.report.summary import summarize
from boothnet.validate.stage import run_validate
from boothnet.verify.batfish.service import find_host, probe

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces (CI runs as root)"),
]
INVENTORY = Path("inventories/lab-mini")


@pytest.fixture
def lab(tmp_path):
    spec, result = plan_lab(INVENTORY, detect_vlan_mode(), tmp_path)
    assert result.ok, result.findings
    state_dir = tmp_path / spec.network / "lab"
    try:
        lab_up(spec, state_dir, progress=lambda _: None)
        yield tmp_path
    finally:
        lab_down(spec.network, state_dir, progress=lambda _: None)
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert "lab-mini-" not in left


def _failures(build_root: Path, throughput: bool = False):
    results = run_validate(INVENTORY, build_root, throughput=throughput)
    paths = write_report(results, build_root / results.network / "report")
    assert paths.html.exists() and paths.markdown.exists()
    return summarize(results)


def test_clean_lab_passes_with_throughput(lab):
    summary = _failures(lab, throughput=True)
    assert summary.overall == "PASS", summary.failures


@pytest.mark.batfish
def test_every_isolation_row_has_batfish_answer_beside_the_live_result(lab):
    if not probe(find_host()).reachable:
        pytest.skip(f"LIVE BATFISH TESTS NOT RUN: {probe(find_host()).skip_reason}")
    results = run_validate(INVENTORY, lab, throughput=False)
    rows = results.isolation
    hosts_vlans = {e.vlan for e in load_network(INVENTORY).endpoints.values()}
    pairs = {(r.src_zone, r.dst_zone) for r in rows}
    assert pairs == {(a, b) for a in hosts_vlans for b in hosts_vlans if a != b}  # every ordered pair
    assert all(r.batfish == r.observed for r in rows), [r for r in rows if r.batfish != r.observed]
    assert {r.batfish for r in rows} == {"permit", "deny"}
    assert next(s for s in results.stages if s.name == "isolation (Batfish)").status == "PASS"


def test_lowered_mtu_fails_the_probe_naming_the_link(lab):
    subprocess.run(["ip", "-n", "lab-mini-r2", "link", "set", "eth1", "mtu", "1500"], check=True)
    summary = _failures(lab)
    subjects = [f.subject for f in summary.failures if f.section == "mtu"]
    assert len(subjects) == 1 and subjects[0].startswith("link h3 -- r2:eth1"), summary.failures


def test_removed_deny_rule_fails_isolation_naming_the_flow(lab):
    # drift on the device: the research-to-users deny line is gone, the default is now permit
    subprocess.run(
        ["ip", "netns", "exec", "lab-mini-r2", "nft", "flush", "chain", "inet", "boothnet", "LAB_IN"], check=True
    )
    summary = _failures(lab)
    failures = [f for f in summary.failures if f.section == "isolation"]
    subjects = " ".join(f.subject for f in failures)
    assert "(h3 -> h1)" in subjects and "tcp/22" in subjects, summary.failures
    if probe(find_host()).reachable:  # the configs still deny it: Batfish and the lab disagree
        assert any("live lab permit, Batfish deny" in f.message for f in failures), failures


def test_link_shaped_below_intent_fails_throughput_naming_the_path(lab):
    shape("lab-mini-r2", "eth2", 100)
    shape("lab-mini-h4", "eth0", 100)
    summary = _failures(lab, throughput=True)
    subjects = [f.subject for f in summary.failures if f.section == "throughput"]
    assert subjects and all("lab: h3 -> h4" in s for s in subjects), summary.failures
