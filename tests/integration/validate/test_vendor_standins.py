"""The lab runs what the IOS and EOS configs read as: eos-core's stand-ins (an EOS gateway, an IOS
gateway, a routed link with OSPF between them) built from configs with a line planted out, as a
booth team's hand edit would leave them (`boothnet lab-up --configs DIR`). Each fails validate
by name; the clean configs converge (the same lab, every planted fault restored before the next)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from boothnet.lab.runner import detect_vlan_mode
from boothnet.render.build import render_all
from boothnet.run import Run
from boothnet.validate.access import lab_access
from boothnet.validate.checks.convergence import wait_converged
from boothnet.validate.drift import lab_targets
from boothnet.validate.floor import reach_floor
from boothnet.validate.floor.ansible_runner import inventory_connections
from boothnet.validate.plan import isolation_plan
from tests.helpers import running_lab

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces (CI runs as root)"),
]
INVENTORY = Path("inventories/eos-core")
SEED = 2026


def _edited_configs(folder: Path, device: str, line: str) -> Path:
    """The rendered IOS/EOS configs, `line` taken out of `device`'s (it must be there)."""
    run = Run(INVENTORY, folder / "render")
    folder.mkdir(parents=True, exist_ok=True)
    for f in render_all(run.models("hardware"), run.net.name):
        text = f.text
        if f.device == device:
            assert line in text, f"{device}.cfg has no {line!r}: the planted fault needs updating"
            text = text.replace(line, "", 1)
        (folder / f.path).write_text(text)
    return folder


@pytest.fixture
def lab_of(tmp_path: Path) -> Iterator:
    """A context manager: eos-core's lab up with the stand-ins built from `configs`."""
    from contextlib import contextmanager

    @contextmanager
    def up(configs: Path | None) -> Iterator[Run]:
        run = Run(INVENTORY, tmp_path / "build")
        run.vendor_configs = configs
        with running_lab(run, tmp_path / "build", vlan_mode=detect_vlan_mode()):
            yield run

    return up


def _converge(run: Run, access=None, timeout_s: float = 20):
    net = run.net
    return wait_converged(net, access or lab_access(net, run.layout.lab.resolve()),
                          isolation_plan(net, SEED).flows, timeout_s)


def test_the_configs_as_rendered_converge(lab_of) -> None:
    with lab_of(None) as run:
        stage = _converge(run, timeout_s=60)
    assert stage.status == "PASS", stage.reason


def test_an_eos_gateway_without_ip_routing_fails_reachability_naming_it(lab_of, tmp_path) -> None:
    configs = _edited_configs(tmp_path / "edited", "es1", "ip routing\n")
    with lab_of(configs) as run:
        stage = _converge(run)
    assert stage.status == "FAIL"
    assert "h1 -> h3" in stage.reason, stage.reason
    assert "es1 routes no IPv4 although it is the gateway of" in stage.reason, stage.reason
    assert "cs1 routes" not in stage.reason


def test_an_ios_interface_without_the_ospf_timers_fails_convergence_naming_the_adjacency(lab_of, tmp_path) -> None:
    configs = _edited_configs(tmp_path / "edited", "cs1", " ip ospf hello-interval 1\n ip ospf dead-interval 4\n")
    with lab_of(configs) as run:
        stage = _converge(run)  # the lab's own path: the flows that do not cross
        lab_dir = run.layout.lab
        hosts = inventory_connections([str(INVENTORY), str(lab_dir / "inventory.yml")])
        with reach_floor(run.net, lab_targets(lab_dir), hosts, detect_vlan_mode()) as floor:
            floor_stage = _converge(run, floor)  # the floor's path also reads each device's neighbours
    assert stage.status == floor_stage.status == "FAIL"
    assert "h1 -> h3" in stage.reason, stage.reason
    assert "no adjacency with cs1 (10.4.0.2)" in floor_stage.reason, floor_stage.reason
