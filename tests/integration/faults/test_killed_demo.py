"""A demo killed at each stage boundary, with SIGTERM and with SIGKILL, as a user's Ctrl-C or a
closed laptop would: `lab-down` then leaves nothing of the lab behind, and the next demo passes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = [pytest.mark.lab,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces (CI runs as root)")]
BOOTHNET = str(Path(sys.executable).parent / "boothnet")
# the demo's stage lines: killed right after each one starts, so at each boundary
BOUNDARIES = [("[1/5]", signal.SIGKILL), ("[2/5]", signal.SIGTERM), ("[3/5]", signal.SIGKILL),
              ("[4/5]", signal.SIGTERM)]


def _leftovers() -> list[str]:
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    processes = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return ([line for line in namespaces.splitlines() if line.startswith("lab-mini-")]
            + [line for line in links.splitlines() if "boothnet:lab-mini" in line]
            + [line for line in processes.splitlines() if " -N lab-mini-" in line or "lab-mini/lab/nodes" in line])


def _demo(build: Path, kill_at: str | None = None, sig: int = signal.SIGTERM) -> tuple[int, str]:
    argv = [BOOTHNET, "demo", "-n", "lab-mini", "--build-dir", str(build)]  # lab-mini: 2 paths to measure
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if kill_at and line.startswith(kill_at):
            os.killpg(proc.pid, sig)  # the whole run, as a terminal's Ctrl-C or a closed session does
            break
    proc.wait()
    rest = proc.stdout.read() if proc.stdout else ""
    return proc.returncode, "".join(seen) + rest


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build folder: the rerun finds what the killed demos left in it."""
    return tmp_path_factory.mktemp("killed-demo")


def test_a_demo_killed_at_each_stage_leaves_nothing_after_lab_down(build: Path) -> None:
    for marker, sig in BOUNDARIES:
        code, out = _demo(build, marker, sig)
        assert code == -sig, f"killed at {marker}: exit {code}\n{out}"
        down = subprocess.run([BOOTHNET, "lab-down", "-n", "lab-mini", "--build-dir", str(build)], cwd=ROOT,
                              capture_output=True, text=True)
        assert down.returncode == 0, down.stderr
        assert _leftovers() == [], f"after a kill at {marker} and lab-down"


def test_the_demo_rerun_in_the_killed_runs_folder_passes(build: Path) -> None:
    code, out = _demo(build)
    subprocess.run([BOOTHNET, "lab-down", "-n", "lab-mini", "--build-dir", str(build)], cwd=ROOT,
                   capture_output=True, text=True)
    assert _leftovers() == []
    assert code == 0, out
    assert "PASS: all" in out
