"""The columns of Batfish's answer frames that several checks read."""

from __future__ import annotations

import pandas as pd


def _action_col(frame: pd.DataFrame) -> str | None:
    for c in ("Action", "Snapshot_Action"):
        if c in frame.columns:
            return c
    return None


def _traces_col(frame: pd.DataFrame) -> str | None:
    for c in ("Traces", "Snapshot_Traces"):
        if c in frame.columns:
            return c
    return None


def _line_col(frame: pd.DataFrame) -> str | None:
    for c in ("Line_Content", "Snapshot_Line_Content"):
        if c in frame.columns:
            return c
    return None

