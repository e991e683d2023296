"""LabSpec <-> JSON, and the fingerprint that makes ``lab_up`` idempotent."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from boothnet.lab.spec import HostAddress, LabEnd, LabLink, LabNode, LabSpec

# Files of a router's config_dir that shape the running lab (a change means rebuild).
CONFIG_FILES = ("interfaces.ip", "frr.conf", "nftables.nft", "swanctl.conf")


def spec_to_dict(spec: LabSpec) -> dict[str, Any]:
    return dataclasses.asdict(spec)


def spec_from_dict(data: dict[str, Any]) -> LabSpec:
    """Build a LabSpec from its JSON form; unknown keys are an error (typos must not pass)."""
    try:
        nodes = [
            LabNode(
                name=n["name"],
                kind=n["kind"],
                mgmt_address=n["mgmt_address"],
                config_dir=n.get("config_dir"),
                addresses=[HostAddress(**a) for a in n.get("addresses", [])],
                routes=[(str(r[0]), str(r[1])) for r in n.get("routes", [])],
            )
            for n in data["nodes"]
        ]
        links = [
            LabLink(
                a=LabEnd(**lk["a"]),
                b=LabEnd(**lk["b"]),
                speed_mbps=int(lk["speed_mbps"]),
                mtu=int(lk["mtu"]),
                label=lk.get("label", ""),
                delay_ms=float(lk.get("delay_ms", 0)),
                jitter_ms=float(lk.get("jitter_ms", 0)),
                loss_pct=float(lk.get("loss_pct", 0)),
            )
            for lk in data["links"]
        ]
        spec = LabSpec(
            network=data["network"],
            vlan_mode=data["vlan_mode"],
            mgmt_subnet=data["mgmt_subnet"],
            nodes=nodes,
            links=links,
            port_map={k: dict(v) for k, v in data.get("port_map", {}).items()},
            intent=str(data.get("intent", "")),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"invalid LabSpec JSON: {exc!r}") from exc
    extra = set(data) - {f.name for f in dataclasses.fields(LabSpec)}
    if extra:
        raise ValueError(f"invalid LabSpec JSON: unknown keys {sorted(extra)}")
    return spec


def dumps_spec(spec: LabSpec) -> str:
    return json.dumps(spec_to_dict(spec), indent=2, sort_keys=True) + "\n"


def loads_spec(text: str) -> LabSpec:
    return spec_from_dict(json.loads(text))


def dump_spec(spec: LabSpec, path: Path) -> None:
    Path(path).write_text(dumps_spec(spec))


def load_spec(path: Path) -> LabSpec:
    return loads_spec(Path(path).read_text())


def spec_hash(spec: LabSpec, with_configs: bool = True) -> str:
    """sha256 over the spec and the content of every router config file it points at, so
    a re-rendered config also counts as a different lab (unless ``with_configs`` is False:
    a day-0 lab does not boot from them)."""
    h = hashlib.sha256(json.dumps(spec_to_dict(spec), sort_keys=True).encode())
    for node in sorted(spec.nodes, key=lambda n: n.name):
        if not node.config_dir or not with_configs:
            continue
        for name in CONFIG_FILES:
            p = Path(node.config_dir) / name
            if p.is_file():
                h.update(f"\0{node.name}/{name}\0".encode())
                h.update(p.read_bytes())
    return h.hexdigest()
