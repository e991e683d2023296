"""Property: any mutation of a reference intent either builds (and its configs pass the offline
lint) or fails with boothnet's own error naming a file and a field, never a traceback, and never
leaves a partial write under build/.

Mutations: drop, duplicate, retype, rename and perturb a field or value anywhere in one file's
YAML tree; truncate the file; insert bytes that are not UTF-8. `make test` runs a few hundred
examples (BOOTHNET_FUZZ_EXAMPLES, default 300); `make fuzz` many thousands.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boothnet.errors import IntentInvalid
from boothnet.render.build import build
from tests.helpers import ROOT

EXAMPLES = int(os.environ.get("BOOTHNET_FUZZ_EXAMPLES", "300"))
NETWORKS = ("lab-mini", "sc-booth")
FILES = {net: sorted(str(p.relative_to(ROOT / "inventories" / net))
                     for p in (ROOT / "inventories" / net).rglob("*.yml")) for net in NETWORKS}
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-70000, 70000), st.floats(allow_nan=False),
                    st.text(max_size=40), st.sampled_from(["10.0.10.0", "10.0.10.255", "198.18.1.11", "0.0.0.0/0",
                                                          "vlan:users", "zone:research", "r1:eth1", "any"]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.text(max_size=8), SCALARS, max_size=3))


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a node in a YAML tree (keys and list indexes)."""
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*prefix, index))
    return out


def _parent(tree: Any, path: tuple) -> Any:
    for part in path[:-1]:
        tree = tree[part]
    return tree


@st.composite
def mutated(draw) -> tuple[str, str, bytes, str]:
    """(network, file, new bytes, what was done)."""
    network = draw(st.sampled_from(NETWORKS))
    relative = draw(st.sampled_from(FILES[network]))
    original = (ROOT / "inventories" / network / relative).read_bytes()
    kind = draw(st.sampled_from(["drop", "duplicate", "retype", "rename", "perturb", "truncate", "bytes"]))
    if kind == "truncate":
        cut = draw(st.integers(0, len(original)))
        return network, relative, original[:cut], f"truncate at {cut}"
    if kind == "bytes":
        at = draw(st.integers(0, len(original)))
        junk = draw(st.binary(min_size=1, max_size=4).filter(lambda b: not _utf8(b)))
        return network, relative, original[:at] + junk + original[at:], f"insert {junk!r} at {at}"
    tree = yaml.safe_load(original)
    paths = [p for p in _paths(tree) if p]
    if not paths:
        return network, relative, original, "unchanged (empty file)"
    path = draw(st.sampled_from(paths))
    parent, last = _parent(tree, path), path[-1]
    if kind == "drop":
        del parent[last]
    elif kind == "duplicate" and isinstance(parent, list):
        parent.insert(last, parent[last])
    elif kind == "rename" and isinstance(parent, dict):
        parent[f"{last}x"] = parent.pop(last)
    elif kind == "perturb" and isinstance(parent[last], int) and not isinstance(parent[last], bool):
        parent[last] += draw(st.sampled_from([-1, 1, 255, -4096, 65536]))
    elif kind == "perturb" and isinstance(parent[last], str):
        parent[last] = draw(st.sampled_from([parent[last][:-1], parent[last] + "0", parent[last].upper(),
                                             parent[last].replace(".", ". ")]))
    else:
        parent[last] = draw(VALUES)
    return network, relative, yaml.safe_dump(tree, sort_keys=False).encode(), f"{kind} {path}"


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_intent_builds_cleanly_or_fails_with_a_named_error(case):
    network, relative, data, what = case
    work = Path(tempfile.mkdtemp(prefix="bn-fuzz-"))
    try:
        inventory = work / "inv"
        shutil.copytree(ROOT / "inventories" / network, inventory)
        (inventory / relative).write_bytes(data)
        out = work / "build"
        try:
            result = build(inventory, out, run_tools=False)
        except IntentInvalid as exc:
            assert exc.errors, what
            for error in exc.errors:
                assert error.file and error.path, f"{what}: {error}"
            assert not out.exists() or not any(p.is_file() for p in out.rglob("*")), f"{what}: partial write"
            return
        assert result.ok, f"{what}: built, but the offline lint found {result.findings}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
