"""Helpers every subcommand shares: the inventory it names and progress lines on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from boothnet.run import Run


def inventory_path(args: argparse.Namespace) -> Path:
    path = Path(args.inventory or f"inventories/{args.network}")
    if not (path / "hosts.yml").exists():
        sys.exit(f"boothnet: no inventory at {path} (expected {path}/hosts.yml)")
    return path


def progress(message: str) -> None:
    print(f"  .. {message}", file=sys.stderr, flush=True)


def run_of(args: argparse.Namespace) -> Run:
    """The command's Run (its intent loaded once, whichever step asks first: the lock, the stages)."""
    from boothnet.run import Run

    if getattr(args, "run", None) is None:
        args.run = Run(inventory_path(args), Path(args.build_dir))
    return args.run
