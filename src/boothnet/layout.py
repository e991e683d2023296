"""Every path of a network's run under ``build/<network>/``, named once.

The playbooks get the same names through the ``boothnet_layout`` lookup plugin, so neither
side builds a ``build/...`` string of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# The repository this package runs from: its playbooks/, inventories/ and templates/.
REPO = Path(__file__).resolve().parents[2]
# where calibrations are kept when not in the build folder: runs in many build folders on one
# machine (the test suite's) measure each figure once
CALIBRATION_ENV = "BOOTHNET_CALIBRATION"


def summary_of(configs: Path) -> Path:
    """``<build>/configs`` -> ``<build>/configs.summary.json``: the build's summary beside its configs."""
    return configs.with_name(f"{configs.name}.summary.json")


def model_of(configs: Path) -> Path:
    """``<build>/configs`` -> ``<build>/configs.model.json``: the derived models beside the configs."""
    return configs.with_name(f"{configs.name}.model.json")


@dataclass(frozen=True)
class Layout:
    build_root: Path
    network: str

    @property
    def root(self) -> Path:
        return self.build_root / self.network

    def configs(self, subdir: str = "configs") -> Path:
        """The hardware configs (default), or ``lab/configs``, ``batfish/configs``, ``clab/configs``."""
        return self.root / subdir

    @property
    def lab(self) -> Path:
        return self.root / "lab"

    @property
    def lab_inventory(self) -> Path:
        return self.lab / "inventory.yml"

    @property
    def verify(self) -> Path:
        return self.root / "verify"

    @property
    def validate_snapshot(self) -> Path:
        return self.root / "validate" / "snapshot"

    @property
    def deploy(self) -> Path:
        return self.root / "deploy"

    @property
    def deploy_check(self) -> Path:
        """Where a ``--check`` deploy records what it would do."""
        return self.root / "deploy-check"

    @property
    def deploy_summary(self) -> Path:
        return self.deploy / "summary.json"

    def backups(self, device: str) -> Path:
        return self.root / "backups" / device

    @property
    def review(self) -> Path:
        """The ACL review's report."""
        return self.root / "review"

    @property
    def report(self) -> Path:
        return self.root / "report"

    @property
    def graph(self) -> Path:
        """The wiring diagram (``boothnet graph``)."""
        return self.root / "graph"

    @property
    def cabling(self) -> Path:
        """The cabling sheet (``boothnet cabling``)."""
        return self.root / "cabling"

    @property
    def cabling_check(self) -> Path:
        """What ``boothnet cabling-check`` read from the booth's switches."""
        return self.root / "cabling-check"

    @property
    def remediation(self) -> Path:
        """``boothnet remediation``'s commands per device."""
        return self.root / "remediation"

    @property
    def runs(self) -> Path:
        """Every validate run kept, one folder per run (``runs/<timestamp>/``)."""
        return self.root / "runs"

    @property
    def watch(self) -> Path:
        """watch's history (watch.sqlite) and page (index.html)."""
        return self.root / "watch"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    # shared by every network of this build folder
    @property
    def batfish_service(self) -> Path:
        return self.build_root / "batfish"

    @property
    def calibration(self) -> Path:
        """This machine's measured figures (validate.perf.calibrate), or the file CALIBRATION_ENV names."""
        return Path(os.environ.get(CALIBRATION_ENV) or self.build_root / "calibration.json")
