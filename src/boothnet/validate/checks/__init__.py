"""The catalog of live checks: every module of this package that defines ``CHECK`` (a
``LiveCheck``), in their ``order``. Adding a check is adding a module here; the validate run,
the report and watch find it in ``CATALOG``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from boothnet.validate.checks.base import Context, LiveCheck, Moved, Suspect

__all__ = ["Context", "LiveCheck", "Moved", "Suspect", "catalog", "sections"]


@cache
def catalog() -> tuple[LiveCheck, ...]:
    checks = []
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("_") or module.name == "base":
            continue
        found = getattr(importlib.import_module(f"{__name__}.{module.name}"), "CHECK", None)
        if isinstance(found, LiveCheck):
            checks.append(found)
    return tuple(sorted(checks, key=lambda check: check.order))


def sections() -> dict[str, LiveCheck]:
    """Each section with rows, by the first check filed under it (the catalog's order)."""
    out: dict[str, LiveCheck] = {}
    for check in catalog():
        if check.has_rows:
            out.setdefault(check.section, check)
    return out
