"""Rendered configs for the reference inventories match the committed golden files byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from boothnet.render.build import build
from tests.helpers import ROOT

GOLDEN = Path(__file__).parent


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("network", ["lab-mini", "sc-booth", "fw-booth", "eos-core", "sc-booth-ds", "eos-core-ds"])
def test_rendered_configs_match_golden(network, tmp_path):
    result = build(ROOT / "inventories" / network, tmp_path, run_tools=False)
    rendered, golden = _files(result.out_dir), _files(GOLDEN / network)
    assert sorted(rendered) == sorted(golden), "file set drifted: run `make golden` and review the diff"
    drifted = [name for name in golden if rendered[name] != golden[name]]
    assert not drifted, f"configs drifted from golden: {drifted}; run `make golden` and review the diff"


def test_build_is_deterministic(tmp_path):
    first = build(ROOT / "inventories" / "sc-booth", tmp_path / "one", run_tools=False)
    second = build(ROOT / "inventories" / "sc-booth", tmp_path / "two", run_tools=False)
    assert _files(first.out_dir) == _files(second.out_dir)


def test_every_device_of_the_reference_network_is_rendered(tmp_path):
    result = build(ROOT / "inventories" / "sc-booth", tmp_path, run_tools=False)
    assert result.devices == 6 and result.vlans == 24
    assert {"core1.cfg", "rsw1.cfg", "bgw1/swanctl.conf", "hgw1/nftables.nft", "brt1/frr.conf"} <= set(result.files)
    assert (result.out_dir / "rsw1.cfg").read_text().startswith("! device: rsw1 (DCS-7010T-48, EOS-4.28.0F)")
    assert (result.out_dir / "core1.cfg").read_text().startswith("!RANCID-CONTENT-TYPE: cisco")


def test_rebuild_of_unchanged_intent_changes_no_file(tmp_path):
    first = build(ROOT / "inventories" / "lab-mini", tmp_path, run_tools=False)
    assert sorted(first.changed) == sorted(first.files)
    (first.out_dir / "stale.cfg").write_text("left over from a removed device\n")
    second = build(ROOT / "inventories" / "lab-mini", tmp_path, run_tools=False)
    assert second.changed == ["stale.cfg"] and not (second.out_dir / "stale.cfg").exists()
    assert build(ROOT / "inventories" / "lab-mini", tmp_path, run_tools=False).changed == []
