"""Live Batfish on the shared snapshots: needs BATFISH_HOST (skips loudly otherwise)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from boothnet.verify.batfish.report import Status
from boothnet.verify.batfish.review import review_change
from boothnet.verify.batfish.service import BatfishAsk
from boothnet.verify.batfish.verify import run_verify

pytestmark = pytest.mark.batfish

_spec = importlib.util.spec_from_file_location(
    "bf_recorded_live", Path(__file__).resolve().parents[2] / "unit" / "batfish" / "bf_recorded.py")
assert _spec and _spec.loader
rec = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rec)


def test_verify_base_reports_the_planted_findings(host, tmp_path):
    intent = rec.booth_intent()
    report = run_verify(intent, rec.configs_dir("base"), tmp_path, host=host,
                        require=True)
    assert report.check("references").status == Status.FAIL
    assert any("MISSING_ACL" in f.message for f in report.check("references").findings)
    assert any(f.device == "core1" and "eq 23" in (f.location or "")
               for f in report.check("acl_lines").findings)
    assert any("9214" in f.message for f in report.check("mtu").findings)
    assert report.check("ipsec").status == Status.PASS
    assert report.check("isolation").status == Status.PASS
    assert report.check("secure_network").status == Status.PASS
    assert (tmp_path / "verify.json").exists() and (tmp_path / "verify.md").exists()


def test_verify_change_breaks_isolation_and_secure_network(host, tmp_path):
    intent = rec.booth_intent()
    report = run_verify(intent, rec.configs_dir("change"), tmp_path, host=host,
                        require=True)
    assert report.check("isolation").status == Status.FAIL
    assert report.check("secure_network").status == Status.FAIL


def test_review_change_vs_base_flags_both_permits(host, tmp_path):
    result = review_change(rec.configs_dir("base"), rec.configs_dir("change"),
                           rec.booth_intent(), tmp_path, BatfishAsk(host, require=True))
    assert result.exit_code == 1
    assert {v.change.device for v in result.violations} == {"core1", "hgw"}
    assert (tmp_path / "review.html").exists()


@pytest.mark.parametrize("network", ["lab-mini", "sc-booth", "eos-core-ds", "acceptance/eos-gateway-ds"])
def test_the_reference_networks_verify_clean(host, network, tmp_path):
    """Every Batfish check PASSes on the reference intents; lab-mini's UDP service (NTP to the lab)
    crosses production and research, and its stateless return line is that service's reply;
    eos-core-ds's EOS IPv4/IPv6 gateway with the lines Batfish 0.36 cannot read on EOS left out
    of its view (platforms/batfish_blind.yml); the acceptance booth eos-gateway-ds (sc-booth-ds
    with an Arista core routing every VLAN in both families, its VPN beside it) the same way."""
    from boothnet.verify.stage import run_verify_stage

    root = Path(__file__).resolve().parents[3]
    inventory = root / "tests" / network if network.startswith("acceptance/") else root / "inventories" / network
    report = run_verify_stage(inventory, tmp_path, host=host, require=True)
    failed = {r.name: [f.one_line() for f in r.findings] for r in report.checks if r.status != Status.PASS}
    assert failed == {}
