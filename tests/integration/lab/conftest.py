"""Fixtures of the netns lab tests: root only, every lab removed in a finalizer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from minilab import mini_spec  # noqa: E402

from boothnet.lab import names  # noqa: E402
from boothnet.lab.runner import lab_down, lab_up  # noqa: E402
from boothnet.lab.spec import LabSpec  # noqa: E402
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


def leftovers(network: str, state_dir: Path | None = None) -> list[str]:
    """Everything of lab ``network`` still on the machine, as readable lines."""
    found: list[str] = []
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    found += [f"netns {ln.split()[0]}" for ln in out.splitlines()
              if ln.startswith(f"{network}-")]
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    ours = {names.bridge_name(network)}
    for ln in links.splitlines():
        ifname = ln.split(":")[1].strip().split("@")[0]
        if ifname in ours or f"alias {names.alias(network, '')}" in ln:
            found.append(f"link {ifname}")
    patterns = [f"-N {network}-"]
    if state_dir is not None:
        patterns.append(f"sshd -f {state_dir}")
    for pat in patterns:
        res = subprocess.run(["pgrep", "-af", "--", pat], capture_output=True, text=True)
        found += [f"process {ln}" for ln in res.stdout.splitlines()]
    for base in (names.FRR_ETC, names.FRR_RUN):
        found += [f"dir {p}" for p in base.glob(f"{network}-*")]
    return found


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LabSpec, Path, dict]]:
    spec = mini_spec()
    state_dir = tmp_path_factory.mktemp("bnt-lab-state")
    lab_down(spec.network, state_dir, quiet)  # a crashed earlier run must not get in the way
    try:
        result = lab_up(spec, state_dir, quiet)
        yield spec, state_dir, result
    finally:
        lab_down(spec.network, state_dir, quiet)
