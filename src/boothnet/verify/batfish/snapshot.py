"""Assemble a Batfish snapshot folder from rendered configs and the intent's cables."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from boothnet.trace import trace
from boothnet.verify.batfish.intent import IfaceRef, L1Link

Edge = L1Link | tuple[IfaceRef, IfaceRef] | tuple[tuple[str, str], tuple[str, str]]


class SnapshotError(ValueError):
    """The configs folder cannot become a snapshot (missing, empty, bad edge)."""


def _ends(edge: Edge) -> tuple[IfaceRef, IfaceRef]:
    if isinstance(edge, L1Link):
        return edge.a, edge.b
    a, b = edge
    return (
        a if isinstance(a, IfaceRef) else IfaceRef(*a),
        b if isinstance(b, IfaceRef) else IfaceRef(*b),
    )


def layer1_topology(edges: Iterable[Edge]) -> dict[str, Any]:
    """Batfish's layer1_topology.json: every cable in both directions (Batfish wants both)."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str, str]] = set()
    for edge in edges:
        a, b = _ends(edge)
        for x, y in ((a, b), (b, a)):
            key = (x.node, x.interface, y.node, y.interface)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                {
                    "node1": {"hostname": x.node, "interfaceName": x.interface},
                    "node2": {"hostname": y.node, "interfaceName": y.interface},
                }
            )
    return {"edges": out}


def build_snapshot_dir(configs: Path, edges: Iterable[Edge], out_dir: Path) -> Path:
    """Copy `configs/*.cfg` to `out_dir/configs/` and write `out_dir/batfish/layer1_topology.json`.

    The folder is rebuilt from scratch so stale configs from an earlier run never leak in.
    """
    files = sorted(configs.glob("*.cfg")) if configs.is_dir() else []
    if not files:
        raise SnapshotError(f"no *.cfg files in {configs}: render the configs first")
    edges = list(edges)
    nodes = {f.stem for f in files}
    for edge in edges:
        for end in _ends(edge):
            if end.node not in nodes:
                raise SnapshotError(
                    f"layer-1 edge names node {end.node!r} with no config in {configs}"
                )
    if out_dir.exists():
        shutil.rmtree(out_dir)
    (out_dir / "configs").mkdir(parents=True)
    for f in files:
        shutil.copy2(f, out_dir / "configs" / f.name)
    if edges:
        (out_dir / "batfish").mkdir()
        (out_dir / "batfish" / "layer1_topology.json").write_text(
            json.dumps(layer1_topology(edges), indent=2) + "\n"
        )
    return out_dir


def snapshot_name(stage: str, run_folder: Path) -> str:
    """``stage`` and a digest of the run's folder: two runs of one network on one service (two
    checkouts, two CI jobs) never load over each other's snapshot, and a rerun replaces its own."""
    return f"{stage}-{hashlib.sha1(str(run_folder.resolve()).encode()).hexdigest()[:8]}"


def init_snapshot(bf: Any, snapshot_dir: Path, name: str) -> str:
    """Upload the folder to the Batfish session `bf` (pybatfish Session) as snapshot `name`."""
    trace(f"load Batfish snapshot {name!r} from {snapshot_dir}")
    return bf.init_snapshot(str(snapshot_dir), name=name, overwrite=True)


def read_configs(configs: Path) -> dict[str, str]:
    """Config text per node (file stem), for checks Batfish does not model (ip mtu, adjust-mss)."""
    return {f.stem: f.read_text() for f in sorted(configs.glob("*.cfg"))}
