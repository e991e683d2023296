"""Fixtures of the netns lab tests: root only, every lab removed in a finalizer."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from minilab import mini_spec

from boothnet.lab.runner import lab_down, lab_up
from boothnet.lab.spec import LabSpec
from boothnet.lab.state import LabState
from tests.helpers import quiet

NEEDED = ["ip", "ssh", "ssh-keygen", "/usr/sbin/sshd", "/usr/lib/frr/zebra", "vtysh", "ping"]


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "netns lab tests need root (namespaces, veths, sshd, FRR); run as root in CI"
    missing = [t for t in NEEDED if shutil.which(t) is None]
    return f"netns lab tests need {missing}" if missing else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = _skip_reason()
    if reason is None:
        return
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LabSpec, Path, LabState]]:
    spec = mini_spec()
    state_dir = tmp_path_factory.mktemp("bnt-lab-state")
    lab_down(spec.network, state_dir, quiet)  # a crashed earlier run must not get in the way
    try:
        result = lab_up(spec, state_dir, quiet)
        yield spec, state_dir, result
    finally:
        lab_down(spec.network, state_dir, quiet)
