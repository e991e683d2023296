"""Issue 68: a check is its module. For every check of the catalog, its row type's name and its
wording (its table's title and header, its empty-table sentence, its stage's action) appear in
src/ only in its own module and the modules its class extends (``_measured.py`` for the measured
checks, ``wan.py`` for the sweep), besides the shared modules below, each with why. What is not
moved yet is listed in KNOWN by check: moving it fails this test until the entry goes, and a new
leak fails it too."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from boothnet.validate.checks import LiveCheck, catalog

SRC = Path(__file__).resolve().parents[2] / "src" / "boothnet"

# shared on purpose: they name a row type without being any check's logic
SHARED = {
    # report.json's schema: ValidationResults types each field a check stores its rows in; a row
    # type it names cannot move into its check without the results' fields coming from the
    # catalog (the checks import the results, so the results cannot import the checks)
    "validate/results.py": "the results' schema types each check's field",
    # the package's names kept importable for the report's callers (tests import them from here)
    "report/__init__.py": "boothnet.report re-exports the schema's row types",
}
# a row type several checks share is no one check's: the measured checks' rows, which the tools'
# parsers (validate/perf/) make and the lanes (validate/run.py) and the WAN code fill
SHARED_ROWS = {"ThroughputResult": "throughput, backbone, loss, wan and wan sweep rows, made by the tools"}

# not moved yet, by check: the files beyond its own that still name its row type or wording
KNOWN: dict[str, set[str]] = {
    # booth/lldp.py defines CablingRow: the booth tool's cabling-check (cli/booth.py, deploy/lldp.py)
    # judges the same rows outside a validate run
    "cabling": {"booth/lldp.py", "cli/booth.py", "deploy/lldp.py"},
    # the VPN check's inner-MTU rows (a DF ping and a transfer through the tunnel) join the MTU
    # table: it makes MtuRows, stored through the MTU check's store()
    "mtu": {"validate/checks/vpn.py"},
    # validate/perf/schema.py defines RttRow and validate/perf/wan_probes.py probes it
    "wan rtt": {"validate/perf/schema.py", "validate/perf/wan_probes.py"},
}


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def _sources() -> dict[str, str]:
    return {str(p.relative_to(SRC)): _text(p) for p in sorted(SRC.rglob("*.py"))}


@cache
def _literals(rel: str) -> tuple[object, ...]:
    """Every string and tuple-of-strings literal of a module (docstrings are longer than a title)."""
    found: list[object] = []
    for node in ast.walk(ast.parse(_sources()[rel])):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.Tuple):
            words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if words and len(words) == len(node.elts):
                found.append(tuple(words))
    return tuple(found)


def _own(check: LiveCheck) -> set[str]:
    """Its module and those of the classes it extends (base.py: the defaults every check has)."""
    return {str(Path(*klass.__module__.split(".")[1:]).with_suffix(".py")) for klass in type(check).__mro__
            if klass.__module__.startswith("boothnet.validate.checks")}


def _wording(check: LiveCheck) -> list[object]:
    said = [check.title, check.header, check.empty, check.stage_action]
    defaults = [LiveCheck.title, LiveCheck.header, LiveCheck.empty, LiveCheck.stage_action]
    return [w for w, default in zip(said, defaults, strict=True) if w != default]


def _named_outside(check: LiveCheck) -> set[str]:
    """The files beyond its own and the shared ones that name its row type or say its wording."""
    outside = set(_sources()) - _own(check) - set(SHARED)
    found = set()
    row = check.row_type.__name__ if check.row_type is not None else None
    if row is not None and row not in SHARED_ROWS:
        pattern = re.compile(rf"\b{row}\b")
        found |= {rel for rel in outside if pattern.search(_sources()[rel])}
    for words in _wording(check):
        found |= {rel for rel in outside if words in _literals(rel)}
    return found


def test_each_checks_row_type_and_wording_live_in_its_own_module() -> None:
    leaks = {check.name: named for check in catalog() if (named := _named_outside(check))}
    assert leaks == KNOWN, (
        "a check's row type or wording named outside its module (move it there, or list it in KNOWN "
        f"with why): {leaks}")


def test_every_check_with_rows_declares_its_row_type() -> None:
    """What the contract greps for: each check whose rows the report tables has a row type."""
    assert [check.name for check in catalog() if check.has_rows and check.row_type is None] == []


def test_the_contract_sees_a_leak() -> None:
    """Planted: a module outside the check that names the MTU row type, and one that titles the
    isolation table, are found; a docstring that mentions the title in a sentence is not."""
    mtu = next(check for check in catalog() if check.name == "mtu")
    _sources()["watch/planted.py"] = "from boothnet.validate.results import MtuRow\n"
    try:
        assert _named_outside(mtu) == KNOWN["mtu"] | {"watch/planted.py"}
    finally:
        del _sources()["watch/planted.py"]
    isolation = next(check for check in catalog() if check.name == "isolation")
    _sources()["report/planted.py"] = '"""The Isolation matrix, drawn."""\nTITLE = "Isolation matrix"\n'
    _sources()["report/quiet.py"] = '"""The Isolation matrix, drawn."""\n'
    try:
        assert _named_outside(isolation) == {"report/planted.py"}
    finally:
        del _sources()["report/planted.py"], _sources()["report/quiet.py"]
