"""A topology checked against containerlab's own JSON schema and its references."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import regex
import yaml

from boothnet.lab.clab.base import CLAB_MGMT_IF, SCHEMA_RELATIVE, ClabInvalid


def find_schema(explicit: Path | None = None) -> Path:
    """The shared schema: ``explicit``, ``$BOOTHNET_SHARED/containerlab``, or ``shared/``
    beside the repository (``../shared`` from the repo root, the CI layout)."""
    if explicit is not None:
        if not explicit.is_file():
            raise FileNotFoundError(f"containerlab schema: no file at {explicit}")
        return explicit
    candidates: list[Path] = []
    if env := os.environ.get("BOOTHNET_SHARED"):
        candidates.append(Path(env))
    here = Path(__file__).resolve()
    candidates += [Path.cwd().resolve().parent / "shared"] + [p.parent / "shared" for p in here.parents]
    for candidate in candidates:
        if (candidate / SCHEMA_RELATIVE).is_file():
            return (candidate / SCHEMA_RELATIVE).resolve()
    tried = ", ".join(str(c / SCHEMA_RELATIVE) for c in dict.fromkeys(candidates))
    raise FileNotFoundError(f"containerlab schema not found (tried {tried}); pass --schema or set BOOTHNET_SHARED")


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    # The schema uses \p{N}/\p{L}, which Python's re lacks: match with the regex package.
    if validator.is_type(instance, "string") and not regex.search(pattern, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def validator_for(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """The Draft the schema names ($schema: draft-07), with ``pattern`` through ``regex``."""
    base = jsonschema.validators.validator_for(schema)
    # the metaschema checks each pattern is a regex: with the same engine that runs them
    formats = jsonschema.FormatChecker()
    formats.checks("regex", raises=regex.error)(regex.compile)
    problems = list(base(base.META_SCHEMA, format_checker=formats).iter_errors(schema))
    if problems:
        raise jsonschema.SchemaError.create_from(jsonschema.exceptions.best_match(problems))
    return jsonschema.validators.extend(base, {"pattern": _pattern})(schema)


def _json_path(parts: Any) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _deepest(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """For anyOf/oneOf (nine link types), the errors of the branch the instance meant:
    branches whose ``type`` discriminator does not match are dropped, then the branch
    that got furthest wins (for a veth link: the endpoint that lacks its interface)."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return [error]
    branches: dict[int, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)

    def discriminator_failed(errors: list[jsonschema.ValidationError]) -> bool:
        return any(list(e.relative_path) == ["type"] and e.validator in ("const", "enum") for e in errors)

    candidates = [errs for errs in branches.values() if not discriminator_failed(errs)] or list(branches.values())
    best = max(candidates, key=lambda errs: (max(len(e.absolute_path) for e in errs), -len(errs)))
    return [deep for e in best for deep in _deepest(e)]


def schema_errors(topology: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    errors = sorted(validator_for(schema).iter_errors(topology), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{_json_path(deep.absolute_path)}: {deep.message}" for error in errors for deep in _deepest(error)]


def reference_errors(topology: dict[str, Any]) -> list[str]:
    """What containerlab checks beyond its schema: endpoints name defined nodes, no
    interface is wired twice, ``eth0`` stays the management interface."""
    nodes = (topology.get("topology") or {}).get("nodes") or {}
    seen: dict[str, str] = {}
    errors: list[str] = []
    for i, link in enumerate((topology.get("topology") or {}).get("links") or []):
        for j, end in enumerate(link.get("endpoints") or [] if isinstance(link, dict) else []):
            if not isinstance(end, dict) or "node" not in end or "interface" not in end:
                continue  # the schema reports the shape
            where, ref = f"$.topology.links[{i}].endpoints[{j}]", f"{end['node']}:{end['interface']}"
            if end["node"] not in nodes:
                errors.append(f"{where}: node {end['node']!r} is not defined in topology.nodes")
            if end["interface"] == CLAB_MGMT_IF:
                errors.append(f"{where}: {ref}: {CLAB_MGMT_IF} is containerlab's management interface")
            if ref in seen:
                errors.append(f"{where}: {ref} is already wired at {seen[ref]}")
            seen.setdefault(ref, where)
    return errors


def check_topology(topology: dict[str, Any], schema: dict[str, Any], source: str) -> None:
    """Raise ClabInvalid with every schema and reference error of ``topology``."""
    errors = schema_errors(topology, schema) + reference_errors(topology)
    if errors:
        raise ClabInvalid(source, errors)


def validate_file(path: Path, schema_path: Path) -> None:
    """Check a written ``*.clab.yml`` (what containerlab reads) against the schema."""
    schema = _load_json(schema_path)
    check_topology(yaml.safe_load(path.read_text()), schema, str(path))


def _load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


# --- translation -----------------------------------------------------------------------


