"""Starting a validate run or `boothnet watch` loads no matplotlib (pyplot alone takes longer to
import than the rest of boothnet): it is imported where a plot is drawn. In a fresh interpreter,
since this test process has long imported it."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT

# the validate and watch entry points as the CLI reaches them (none asks the catalog: it imports
# every check module), then what a run and a watch round ask of the catalog first
STARTS = """
import sys
import boothnet.cli, boothnet.cli.stages, boothnet.cli.watch
import boothnet.validate.stage, boothnet.validate.run, boothnet.pipeline
import boothnet.watch.loop, boothnet.watch.page, boothnet.watch.round
from boothnet.validate.checks import catalog, sections
from boothnet.watch import alarms
print("catalog asked at import:", catalog.cache_info().currsize > 0)
catalog(), sections(), alarms.causes(), alarms.dependents(), alarms.priority()
print(sorted(m for m in sys.modules if m.split(".")[0] == "matplotlib")[:5])
"""

# a plot drawn: then, and only then, matplotlib
DRAWS = """
import sys, tempfile
from pathlib import Path
from boothnet.validate.checks._plots import reachability_heatmap
from boothnet.validate.results import IsolationRow
row = IsolationRow(src="x", dst="y", src_zone="a", dst_zone="b", flow="icmp", expected="deny", observed="deny")
print("matplotlib" in sys.modules, end=" ")
with tempfile.TemporaryDirectory() as folder:
    reachability_heatmap([row], ["a", "b"], Path(folder) / "r.png")
print("matplotlib.pyplot" in sys.modules)
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_starting_validate_or_watch_imports_no_matplotlib() -> None:
    assert _run(STARTS).splitlines() == ["catalog asked at import: False", "[]"]


def test_drawing_a_plot_imports_it() -> None:
    assert _run(DRAWS) == "False True"
