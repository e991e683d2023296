"""The lab's state file (build/<net>/lab/state.json): what lab_up made, for lab_down and health."""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from boothnet.files import write_text_atomic

__all__ = ["CONFIG_MODES", "STATE_VERSION", "ConfigMode", "LabState", "now", "read_state", "write_json", "write_state"]

STATE_VERSION = 1
#: "full": routers boot with their rendered configs; "day0": cabling, mgmt, sshd and FRR on a
#: hostname-only frr.conf, empty nftables, no interfaces.ip (what a deploy starts from).
ConfigMode = Literal["full", "day0"]
CONFIG_MODES: tuple[str, ...] = ("full", "day0")


def now() -> str:
    """A timestamp as state.json records it."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


@dataclass
class LabState:
    """One shape for a lab being built or up (everything lab_down needs to undo it, written
    before anything exists) and for one that is down (what was removed)."""

    network: str
    status: Literal["building", "up", "down"]
    version: int = STATE_VERSION
    spec_hash: str | None = None
    configs: ConfigMode = "full"
    vlan_mode: Literal["dot1q", "segment"] = "segment"
    kernel_vlan_mode: Literal["dot1q", "segment"] | None = None
    mgmt_subnet: str | None = None
    bridge: str | None = None
    bridge_address: str | None = None
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> kind, mgmt_address
    namespaces: dict[str, str] = field(default_factory=dict)  # node -> namespace
    mgmt_veths: dict[str, str] = field(default_factory=dict)
    frr_pathspaces: dict[str, str] = field(default_factory=dict)
    links: list[dict[str, Any]] = field(default_factory=list)
    pids: dict[str, dict[str, int]] = field(default_factory=dict)  # node (or "wan delay lines") -> process -> pid
    started: str | None = None
    finished: str | None = None
    up_seconds: float | None = None
    down_at: str | None = None
    down_seconds: float | None = None
    removed: dict[str, list[Any]] | None = None
    # what lab_up did this time (False: the same lab was up and healthy); never written
    changed: bool = True

    @property
    def up(self) -> bool:
        return self.status == "up"

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        del data["changed"]
        return {k: v for k, v in data.items() if v not in (None, {}, [])}


_ADAPTER = TypeAdapter(LabState)


def read_state(state_dir: Path) -> LabState | None:
    """state_dir's state.json, or None when missing, torn or of another shape (lab_down then
    falls back to discovery)."""
    try:
        data = json.loads((Path(state_dir) / "state.json").read_text())
        return _ADAPTER.validate_python({k: v for k, v in data.items() if k != "changed"})
    except (OSError, ValueError, AttributeError, ValidationError):
        return None


def write_state(state_dir: Path, state: LabState) -> None:
    write_json(Path(state_dir) / "state.json", state.to_json())


def write_json(path: Path, data: Any) -> None:
    # atomic: a kill never leaves a half-written state file
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
