"""Subcommands for the later stages (lab, deploy, verify, validate, report)."""

from __future__ import annotations


def register(sub, add) -> None:  # noqa: ANN001 - argparse internals
    return None
