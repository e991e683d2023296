"""BOOTHNET_REQUIRE_BATFISH=1 turns a skipped Batfish test into a failure (the pytest plugin)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SAMPLE = '''
import pytest

@pytest.mark.batfish
def test_needs_batfish():
    pytest.skip("no Batfish service")

def test_other_skip():
    pytest.skip("not about Batfish")
'''


@pytest.mark.parametrize(("require", "expected"), [("1", "1 failed, 1 skipped"), ("0", "2 skipped")])
def test_require_batfish_fails_skipped_batfish_tests(tmp_path, require, expected):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
        env={"BOOTHNET_REQUIRE_BATFISH": require, "PATH": "/usr/bin:/bin", "COLUMNS": "400"},
    )
    assert expected in run.stdout, run.stdout
    if require == "1":
        assert "BOOTHNET_REQUIRE_BATFISH=1 and this Batfish test skipped: no Batfish service" in run.stdout
