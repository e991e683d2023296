"""Faults in the middle of a run: a disk that fills while configs are written leaves the previous
configs whole and says so in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from boothnet.lab.scratch import copy_inventory
from tests.helpers import ROOT

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounts a small tmpfs (root; CI runs as root)")
BOOTHNET = str(Path(sys.executable).parent / "boothnet")


@pytest.fixture
def small_disk(tmp_path: Path):
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _configs(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_disk_that_fills_during_a_build_leaves_the_previous_configs_intact(small_disk: Path, tmp_path: Path) -> None:
    inv = copy_inventory(ROOT / "inventories" / "lab-mini", tmp_path / "inv", "lab-mini", "198.18.1.0/24")
    build = [BOOTHNET, "build", "-i", str(inv), "--build-dir", str(small_disk), "--no-tools"]
    assert subprocess.run(build, cwd=ROOT, capture_output=True, text=True).returncode == 0
    configs = small_disk / "lab-mini" / "configs"
    before = _configs(configs)
    assert "r1/frr.conf" in before
    # the intent changes (so every router's config would), and the disk is full but for a few KiB
    network_yml = inv / "group_vars" / "all" / "network.yml"
    data = yaml.safe_load(network_yml.read_text())
    data["network"]["ospf"].update(hello=2, dead=8)
    network_yml.write_text(yaml.safe_dump(data))
    filler = small_disk / "filler"
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=4k"], capture_output=True)  # tmpfs: pages of 4k
    run = subprocess.run(build, cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 74, run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "No space left on device; what was there before is left as it was" in run.stderr
    assert _configs(configs) == before  # the previous build, whole: no mix of old and new files
    assert sorted(p.name for p in (small_disk / "lab-mini").iterdir()) == [".lock", "configs", "configs.model.json",
                                                                           "configs.summary.json"]
    filler.unlink()
    assert subprocess.run(build, cwd=ROOT, capture_output=True, text=True).returncode == 0
    assert _configs(configs) != before and "hello-interval 2" in (configs / "r1" / "frr.conf").read_text()
