"""Shared test helpers: the repository root and copies of reference inventories to break."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers import INVENTORIES, ROOT, live_order, live_scope  # noqa: F401 - ROOT for the conftests and tests below


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


LIVE_BATFISH_FIXTURES = {"host", "batfish_status"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that asks the live Batfish service is in the live tier; the live tier's units go out
    longest first (tests.helpers.LIVE_FIRST), then the offline tier's longest files (OFFLINE_FIRST), the order
    kept within each (a stable sort by module)."""
    for item in items:
        if LIVE_BATFISH_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.batfish)
    # on every run, not only under `--dist loadgroup`: xdist's scheduler takes the order its
    # workers collected, and a worker runs no scheduler of its own (its `dist` is "no")
    items.sort(key=lambda item: live_order(item.nodeid))


def pytest_xdist_make_scheduler(config: pytest.Config, log):  # xdist's scheduler
    """`--dist loadgroup`: the live tier's work units by live_scope(), a module or the Batfish
    modules one worker runs in turn. pytest-xdist 3.8's own groups (an `@group` suffix on node ids) are lost
    under pytest 9, whose node ids no longer read it. `--dist loadfile` (the offline tier): xdist's
    own files, in the collection's order."""
    # xdist would hand the units out by their count of tests, most first, which sent the longest
    # single-test modules (watch: 163 s; the intent fuzzer offline) out last; the collection's own
    # order is LIVE_FIRST's and OFFLINE_FIRST's
    config.option.loadscopereorder = False
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling


    class LiveUnits(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return live_scope(nodeid)

    return LiveUnits(config, log)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # pytest's hook
    """Under xdist, a test marked ``measures`` (it calls the measuring code itself, outside
    validate's stages) holds this machine's measurement turn for its whole protocol, so no two
    rate measurements meet."""
    if not hasattr(item.config, "workerinput") or item.get_closest_marker("measures") is None:
        return (yield)
    from boothnet.locks import measurement_turn

    with measurement_turn():
        return (yield)


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


@pytest.fixture
def traced(monkeypatch, capsys):
    """BOOTHNET_TRACE on for this test; calling the fixture's value returns the trace's events
    so far (and lets the test's other stderr through unread)."""
    monkeypatch.setenv("BOOTHNET_TRACE", "1")

    def events() -> list[str]:
        err = capsys.readouterr().err
        return [line.removeprefix("trace: ") for line in err.splitlines() if line.startswith("trace: ")]

    return events


@pytest.fixture(scope="session", autouse=True)
def one_calibration_per_run(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every test's build folder shares this run's calibrations (a figure of the machine, measured
    on scratch namespaces, not of any lab): measured once per run, as once per machine for a user.
    Under xdist the workers' base folders share their parent."""
    from boothnet.layout import CALIBRATION_ENV

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    os.environ.setdefault(CALIBRATION_ENV, str(shared / "calibration.json"))


@pytest.fixture(scope="session")
def host() -> str:
    """The live Batfish service, found as every command finds it (BATFISH_HOST, or the one
    `boothnet batfish up` started); a skip here fails under BOOTHNET_REQUIRE_BATFISH=1."""
    from boothnet.verify.batfish.service import find_host, probe

    status = probe(find_host())
    if not status.reachable:
        pytest.skip(f"LIVE BATFISH TESTS NOT RUN: {status.skip_reason}")
    return str(status.host)
