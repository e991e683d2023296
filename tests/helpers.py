"""Helpers the tests share, importable as ``tests.helpers`` (pytest's pythonpath is the repo)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INVENTORIES = ROOT / "inventories"


def quiet(_message: str) -> None:
    """A progress sink for stages run in tests."""


def errors_of(inv) -> list[str]:  # noqa: ANN001 - an InventoryCopy
    """Every error of the intent at `inv`, as the loader words them; the test fails if it loads."""
    import pytest

    from boothnet.errors import IntentInvalid
    from boothnet.intent import load_network

    with pytest.raises(IntentInvalid) as caught:
        load_network(inv.path)
    return [str(e) for e in caught.value.errors]
