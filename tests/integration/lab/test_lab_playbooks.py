"""lab_up.yml, validate.yml and lab_down.yml as a user runs them: the lab of an intent up through
the collection's boothnet_lab module, its generated inventory named, validated (and failed with a
firewall flushed), then nothing of it left."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from boothnet.lab.names import ns_name
from boothnet.lab.scratch import copy_inventory
from tests.helpers import INVENTORIES, ROOT, leftovers

pytestmark = pytest.mark.lab
NETWORK = "lab-pb"
MGMT_SUBNET = "198.18.205.0/24"  # used by no other lab, test or benchmark


def _play(playbook: str, inventory: Path, build: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inventory),
                           f"playbooks/{playbook}", "-e", f"boothnet_build_dir={build}", *extra],
                          cwd=ROOT, capture_output=True, text=True, check=False)


def test_lab_up_and_down_playbooks(tmp_path: Path) -> None:
    inventory = copy_inventory(INVENTORIES / "lab-mini", tmp_path / "inv", NETWORK, MGMT_SUBNET)
    build = tmp_path / "build"
    try:
        up = _play("lab_up.yml", inventory, build)
        assert up.returncode == 0, up.stdout[-3000:]
        assert f"inventory: {build / NETWORK / 'lab' / 'inventory.yml'}" in up.stdout
        lab_inventory = yaml.safe_load((build / NETWORK / "lab" / "inventory.yml").read_text())
        assert lab_inventory["all"]["vars"]["boothnet_lab_network"] == NETWORK
        assert len(leftovers(NETWORK, build / NETWORK / "lab")) > 10  # the lab runs
        again = _play("lab_up.yml", inventory, build)
        assert again.returncode == 0 and "changed=0" in again.stdout, again.stdout[-3000:]
        quick = [f"-e validate_{part}=false" for part in ("throughput", "vpn_resilience", "wan_sweep")]
        valid = _play("validate.yml", inventory, build, *" ".join(quick).split())
        assert valid.returncode == 0 and "PASS" in valid.stdout, valid.stdout[-3000:]
        # r1 forwards everything: flows the policy denies get through, and validate.yml names them
        subprocess.run(["ip", "netns", "exec", ns_name(NETWORK, "r1"), "nft", "flush", "ruleset"], check=True)
        leaky = _play("validate.yml", inventory, build, *" ".join(quick).split())
        assert leaky.returncode == 2, leaky.stdout[-3000:]
        assert "newly FAIL: isolation h2 -> h3 tcp/22" in leaky.stdout, leaky.stdout[-3000:]
        assert "newly FAIL: drift r1" in leaky.stdout
    finally:
        down = _play("lab_down.yml", inventory, build)
    assert down.returncode == 0, down.stdout[-3000:]
    assert leftovers(NETWORK, build / NETWORK / "lab") == []
