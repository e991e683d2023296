"""The running lab of a planted-fault module: lab-mini copied under the module's NETWORK and
management subnet MGMT, so that two such modules run side by side on two workers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from boothnet.intent import Network
from boothnet.lab.scratch import copy_inventory
from boothnet.lab.state import read_state
from boothnet.run import Run
from boothnet.validate.access import Access, lab_access
from boothnet.validate.checks.convergence import wait_converged
from boothnet.validate.drift import lab_targets
from boothnet.validate.floor import reach_floor
from boothnet.validate.floor.ansible_runner import inventory_connections
from boothnet.validate.plan import isolation_plan
from tests.helpers import ROOT, running_lab
from tests.integration.validate.planted import SEED, inventory_of


@pytest.fixture(scope="module")
def lab(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Network, Path]]:
    build = tmp_path_factory.mktemp("planted") / "build"
    inventory = copy_inventory(ROOT / "inventories" / "lab-mini", inventory_of(build), request.module.NETWORK,
                               request.module.MGMT)
    run = Run(inventory, build)
    with running_lab(run, build):
        assert wait_converged(run.net, lab_access(run.net), isolation_plan(run.net, SEED).flows).status == "PASS"
        yield run.net, build


@pytest.fixture(scope="module")
def floor(lab: tuple[Network, Path]) -> Iterator[Access]:
    """The running lab as a floor: hosts over Ansible's connections, devices over NAPALM, each
    reached at its management address (the intent's inventory and the lab's, as validate-hw)."""
    net, build = lab
    lab_dir = build / net.name / "lab"
    hosts = inventory_connections([str(inventory_of(build)), str(lab_dir / "inventory.yml")])
    with reach_floor(net, lab_targets(lab_dir), hosts, read_state(lab_dir).vlan_mode) as access:
        yield access


@pytest.fixture(params=["lab", "floor"])
def access(request: pytest.FixtureRequest, lab: tuple[Network, Path]) -> Access:
    """Each planted fault caught both ways: in the lab's namespaces, and through the floor path."""
    return lab_access(lab[0]) if request.param == "lab" else request.getfixturevalue("floor")
