"""FRR's dry run and `nft -c` over a build: all files in one run of each tool, and file by file,
naming the device and the tool's line, as soon as one of them fails."""

from __future__ import annotations

import shutil

import pytest

from boothnet.render.build import check_with_tools
from boothnet.run import Run
from boothnet.status import Status
from tests.helpers import INVENTORIES

pytestmark = pytest.mark.skipif(not (shutil.which("vtysh") and shutil.which("nft")), reason="needs frr and nftables")


@pytest.fixture
def built(tmp_path):
    from boothnet.render.build import build

    run = Run(INVENTORIES / "lab-mini", tmp_path)
    result = build(run, tmp_path, run_tools=False)
    return result.out_dir, run.models("hardware")


def test_clean_configs_pass_device_by_device(built):
    out_dir, models = built
    checks = check_with_tools(out_dir, models)
    routers = sorted(name for name, m in models.items() if m.platform == "frr_linux")
    assert sorted(checks) == sorted([f"frr dry run {r}" for r in routers] + [f"nft -c {r}" for r in routers])
    assert {c.status for c in checks.values()} == {Status.PASS}


def test_a_broken_file_fails_naming_its_device_and_line(built):
    out_dir, models = built
    frr = out_dir / "r2" / "frr.conf"
    frr.write_text(frr.read_text().replace("router ospf", "router ospf\n ospf bogus-command", 1))
    nft = out_dir / "r1" / "nftables.nft"
    nft.write_text(nft.read_text().replace("accept", "acept", 1))
    checks = check_with_tools(out_dir, models)
    failed = {label: str(c) for label, c in checks.items() if c.status != Status.PASS}
    assert sorted(failed) == ["frr dry run r2", "nft -c r1"]
    assert "Unknown command" in failed["frr dry run r2"] and "bogus-command" in failed["frr dry run r2"]
    assert failed["nft -c r1"].startswith(f"FAIL: {nft}:") and "Error: syntax error" in failed["nft -c r1"]
