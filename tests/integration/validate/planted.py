"""What the planted-fault modules share: a lab-mini lab under a module's own name, its floor view,
and the small tools to plant and undo faults in it (tests/integration/validate/conftest.py holds
the fixtures that bring it up)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import cpu_bound

SEED = 2026  # a fixed isolation sample: the tests plant on ports it holds


def inventory_of(build: Path) -> Path:
    """The module's copy of lab-mini, beside the lab's build folder."""
    return build.parent / "inv"


def sh(*argv: str) -> None:
    subprocess.run(list(argv), check=True, capture_output=True)


def nft(network: str, node: str, *rule: str) -> None:
    sh("ip", "netns", "exec", f"{network}-{node}", "nft", *rule)


def failed(rows: list) -> list:
    """The rows that did not pass, but for those the machine's load decided (cpu_bound)."""
    return [r for r in rows if r.verdict != "PASS" and not cpu_bound(r)]
