"""Filters that run boothnet's Python package: their plugin files load without it, so
`ansible-doc` lists them on any controller; a filter used without it fails saying why."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ansible.errors import AnsibleFilterError


def needing_boothnet(filters: dict[str, Callable[..., Any]], missing: ImportError | None
                     ) -> dict[str, Callable[..., Any]]:
    """``filters`` as they are, or, when boothnet did not import (``missing``), each replaced by
    one that fails naming the filter and the import error."""
    if missing is None:
        return filters

    def unavailable(name: str) -> Callable[..., Any]:
        def fail(*_args: Any, **_kwargs: Any) -> Any:
            raise AnsibleFilterError(f"{name}: boothnet is not importable by the controller's Python ({missing}): "
                                     "run `make setup`, then ansible-playbook from .venv/bin")
        return fail

    return {name: unavailable(name) for name in filters}
