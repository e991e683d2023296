"""Shared test helpers: the repository root and copies of reference inventories to break."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
INVENTORIES = ROOT / "inventories"


class InventoryCopy:
    """A reference inventory copied into a temp folder, edited through its YAML files."""

    def __init__(self, path: Path):
        self.path = path

    def load(self, relative: str):
        return yaml.safe_load((self.path / relative).read_text())

    def save(self, relative: str, data) -> None:
        (self.path / relative).write_text(yaml.safe_dump(data, sort_keys=False))

    def edit(self, relative: str, change) -> None:
        data = self.load(relative)
        change(data)
        self.save(relative, data)


@pytest.fixture
def inventory_copy(tmp_path, monkeypatch):
    """Copy inventories/<name> to ./inv under a temp cwd, so error paths read `inv/...`."""

    def make(name: str = "lab-mini") -> InventoryCopy:
        shutil.copytree(INVENTORIES / name, tmp_path / "inv")
        monkeypatch.chdir(tmp_path)
        return InventoryCopy(Path("inv"))

    return make


@pytest.fixture
def no_batfish(monkeypatch, tmp_path):
    """No Batfish for this test: BATFISH_HOST unset and no service `boothnet batfish up` started."""
    monkeypatch.delenv("BATFISH_HOST", raising=False)
    monkeypatch.setattr("boothnet.verify.batfish.service.STATE_DIR", tmp_path / "no-batfish")


@pytest.fixture(scope="session")
def host() -> str:
    """The live Batfish service, found as every command finds it (BATFISH_HOST, or the one
    `boothnet batfish up` started); a skip here fails under BOOTHNET_REQUIRE_BATFISH=1."""
    from boothnet.verify.batfish.service import find_host, probe

    status = probe(find_host())
    if not status.reachable:
        pytest.skip(f"LIVE BATFISH TESTS NOT RUN: {status.skip_reason}")
    return str(status.host)
