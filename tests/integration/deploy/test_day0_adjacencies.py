"""Day-0 deploys of issue 33's second booth (core-edge/: an IOS core routing for two EOS
switches, an frr_linux edge router on a transit VLAN), each on a fresh day-0 lab:

- repeated BOOTHNET_DAY0_REPEATS times (default 4; `make fuzz` 20): every deploy confirms, and
  ospfd runs OSPF on every interface whose config names an area (the race of issue 33: an
  interface zebra announced after ospfd read its config kept its area but no OSPF);
- with the edge router's ospfd dead, the core's health check does not confirm: it reverts,
  naming the missing neighbour and the interface the intent puts it on.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest
import yaml

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="deploy lab tests need root (namespaces, FRR, sshd)"),
]

from boothnet.deploy.frr_linux.scripts.ospf_up import configured  # noqa: E402
from boothnet.lab.scratch import copy_inventory  # noqa: E402
from tests.helpers import ROOT, running_lab  # noqa: E402

NETWORK = "core-edge"
# an intermittent defect once (1 day-0 deploy in about 8 under CI: no OSPF hello crossed the transit
# VLAN br99 at all, on either router, for 120 s), its cause never found: four attempts per `make
# test` (as before it was seen), 20 in `make fuzz`. Not seen since: 40 attempts on 2026-11-27 (20
# beside a busy loop on one core, 20 beside the netns lab module run again and again) and 20 on
# 2026-11-29 beside the whole live tier (load average 16 on 2 cores) all confirmed, as has every CI
# run's attempt since. A failure shows each router's links, bridges and ospfd as they were 45 s
# into the deploy.
REPEATS = int(os.environ.get("BOOTHNET_DAY0_REPEATS", "4"))
INVENTORY = Path(__file__).parent / "core-edge"


def deploy(inventory: Path, build: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    res = subprocess.run([str(ROOT / ".venv/bin/ansible-playbook"), "-i", str(inventory),
                          str(ROOT / "playbooks/deploy.yml"), "-e", f"boothnet_build_dir={build}", *extra],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    summary = json.loads((build / NETWORK / "deploy" / "summary.json").read_text())
    return res, summary["devices"]


def routers(state_dir: Path) -> dict[str, dict]:
    return dict(yaml.safe_load((state_dir / "inventory.yml").read_text())["all"]["children"]["routers"]["hosts"])


def ospf_missing(state_dir: Path) -> list[str]:
    """Interfaces whose config names an OSPF area and on which ospfd runs no OSPF."""
    missing = []
    for node, hv in routers(state_dir).items():
        areas = configured((Path(hv["boothnet_config_dir"]) / "frr.conf").read_text())
        if not areas:
            continue
        ns, ps = hv["boothnet_netns"], hv["boothnet_frr_pathspace"]
        out = subprocess.run(["ip", "netns", "exec", ns, "vtysh", "-N", ps, "-c", "show ip ospf interface json"],
                             capture_output=True, text=True, check=True).stdout
        shown = json.loads(out or "{}").get("interfaces", {})
        missing += [f"{node}:{i}" for i in sorted(areas) if not shown.get(i, {}).get("ospfEnabled")]
    return missing


def snapshot(state_dir: Path) -> str:
    """What each router's links, bridges and ospfd show now: read when a day-0 deploy did not
    confirm, so that the intermittent defect above is seen, not only counted."""
    out = []
    for node, hv in routers(state_dir).items():
        ns, ps = hv["boothnet_netns"], hv["boothnet_frr_pathspace"]
        for argv in (["ip", "-br", "link"], ["ip", "-br", "addr"], ["bridge", "link", "show"],
                     ["vtysh", "-N", ps, "-c", "show ip ospf interface", "-c", "show ip ospf neighbor"]):
            res = subprocess.run(["ip", "netns", "exec", ns, *argv], capture_output=True, text=True, timeout=30)
            out.append(f"--- {node}: {' '.join(argv)}\n{res.stdout}{res.stderr}")
    return "\n".join(out)


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_day0_deploy_brings_ospf_up_on_every_interface_its_config_names(attempt, tmp_path):
    inventory = copy_inventory(INVENTORY, tmp_path / "inv", NETWORK, "198.18.5.0/24")
    with running_lab(inventory, tmp_path / "build", configs="day0") as (_, state_dir):
        # 60 s for the adjacencies: the lab's 1 s hellos and 4 s dead interval flap while the
        # machine is busy (seen at 30 s with another process on both cores)
        # seen while the health check waits (a failed deploy's device reverts before it returns)
        seen: list[str] = []
        during = threading.Timer(45, lambda: seen.append(snapshot(state_dir)))
        during.start()
        try:
            res, devices = deploy(state_dir / "inventory.yml", tmp_path / "build", "-e", "deploy_health_timeout=60")
        finally:
            during.cancel()
        assert res.returncode == 0, (res.stdout + res.stderr)[-3000:] + "\n45 s into the deploy:\n" + "".join(seen)
        assert {d: r["outcome"] for d, r in devices.items()} == dict.fromkeys(devices, "new-confirmed")
        assert ospf_missing(state_dir) == []


def test_an_intended_adjacency_that_does_not_form_is_reverted_by_name(tmp_path):
    inventory = copy_inventory(INVENTORY, tmp_path / "inv", NETWORK, "198.18.5.0/24")
    with running_lab(inventory, tmp_path / "build", configs="day0") as (_, state_dir):
        edge = routers(state_dir)["edge1"]
        subprocess.run(["ip", "netns", "exec", edge["boothnet_netns"], "pkill", "-f",
                        f"ospfd -N {edge['boothnet_frr_pathspace']}"], check=True)
        # the health check waits 15 s for the adjacency; unconfirmed, the device reverts at 30 s
        res, devices = deploy(state_dir / "inventory.yml", tmp_path / "build", "-e", "deploy_revert_in=30",
                              "-e", "deploy_health_timeout=15")
        assert res.returncode != 0
        core = devices["core1"]
        assert core["outcome"] == "reverted", core
        assert "OSPF on br99: no adjacency with edge1 (10.30.99.2), which the intent puts there" in core["reason"]
