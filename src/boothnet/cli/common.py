"""Helpers every subcommand shares: the inventory it names and progress lines on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def inventory_path(args: argparse.Namespace) -> Path:
    path = Path(args.inventory or f"inventories/{args.network}")
    if not (path / "hosts.yml").exists():
        sys.exit(f"boothnet: no inventory at {path} (expected {path}/hosts.yml)")
    return path


def progress(message: str) -> None:
    print(f"  .. {message}", file=sys.stderr, flush=True)
