"""calibration.json: measured once per key, kept; a file that is not an object is measured again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import boothnet.locks as locks
from boothnet.layout import CALIBRATION_ENV
from boothnet.validate.perf.calibrate import _cached


@pytest.mark.parametrize("left", ["[1, 2]", "{torn", ""])
def test_a_calibration_file_that_is_not_an_object_is_measured_again_and_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, left: str) -> None:
    monkeypatch.setattr(locks, "LAB_LOCK_DIR", tmp_path / "locks")
    monkeypatch.delenv(CALIBRATION_ENV)  # this build folder's own file, not the run's
    (tmp_path / "calibration.json").write_text(left)
    measured: list[Path] = []

    def measure(work: Path) -> dict[str, float]:
        measured.append(work)
        return {"bps": 1e9}

    assert _cached(tmp_path, "k", measure, "a figure", lambda _: None) == {"bps": 1e9}
    assert _cached(tmp_path, "k", measure, "a figure", lambda _: None) == {"bps": 1e9}  # kept: not measured again
    assert measured == [tmp_path]
    assert json.loads((tmp_path / "calibration.json").read_text()) == {"k": {"bps": 1e9}}
