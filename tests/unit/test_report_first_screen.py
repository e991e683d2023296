"""The report's first screen as a booth lead sees it: headless Chromium at 1366x768 shows the
verdict, the failures with what to do, and the wiring diagram with the failed cable red."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
from matplotlib import image

from boothnet.booth.lldp import CablingRow
from boothnet.intent import load_network
from boothnet.report.render import write_report
from boothnet.validate.results import Stage, ValidationResults
from tests.helpers import INVENTORIES


def screenshot(page: Path, out: Path) -> np.ndarray:
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1366,768", f"--screenshot={out}", page.as_uri()], capture_output=True,
                   timeout=120, check=True)
    return image.imread(out)[:, :, :3]


def red_pixels(pixels: np.ndarray) -> int:
    """Pixels of the diagram's fault red (#d50000)."""
    r, g, b = pixels[:, :, 0], pixels[:, :, 1], pixels[:, :, 2]
    return int(((r > 0.75) & (g < 0.15) & (b < 0.15)).sum())


def test_the_first_screen_shows_the_failed_cable_red_in_the_diagram(tmp_path: Path) -> None:
    net = load_network(INVENTORIES / "sc-booth")
    cause = "rsw1 Et49 sees core1 Gi1/0/47 (of C03); the intent says core1 Te1/1/1"
    failed = ValidationResults(network="sc-booth", stages=[Stage(name="cabling", status="FAIL")], cabling=[
        CablingRow(label="C05", cable="C05 core1 Te1/1/1 <-> rsw1 Et49", verdict="FAIL", cause=cause)])
    passed = failed.model_copy(update={"stages": [Stage(name="cabling", status="PASS")], "cabling": [
        CablingRow(label="C05", cable="C05 core1 Te1/1/1 <-> rsw1 Et49", verdict="PASS")]})
    shots = {}
    for name, res in (("failed", failed), ("passed", passed)):
        paths = write_report(res, tmp_path / name, net)
        shots[name] = screenshot(paths.html, tmp_path / f"{name}.png")
        if name == "failed":
            assert "Do: re-plug C05 as its label says (core1 Te1/1/1 &lt;-&gt; rsw1 Et49)" in paths.html.read_text()
    diagram_area = (slice(110, 768), slice(560, 1366))  # right of the failures, below the banner
    assert red_pixels(shots["failed"][diagram_area]) > 100  # the trunk drawn red, on the first screen
    assert red_pixels(shots["passed"][diagram_area]) == 0
