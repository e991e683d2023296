"""The lab's state file (build/<net>/lab/state.json): what lab_up made, for lab_down and health."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from boothnet.files import write_text_atomic

__all__ = ["read_state", "write_json", "write_state"]


def read_state(state_dir: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((Path(state_dir) / "state.json").read_text())
    except (OSError, ValueError):
        return None  # missing or torn: lab_down falls back to discovery
    return data if isinstance(data, dict) else None


def write_state(state_dir: Path, state: dict[str, Any]) -> None:
    write_json(Path(state_dir) / "state.json", state)


def write_json(path: Path, data: Any) -> None:
    # atomic: a kill never leaves a half-written state file
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
