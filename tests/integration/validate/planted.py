"""What the planted-fault modules share: a lab-mini lab under a module's own name, its floor view,
and the small tools to plant and undo faults in it (tests/integration/validate/conftest.py holds
the fixtures that bring it up)."""

from __future__ import annotations

import re
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


def tc_state(ends: list[tuple[str, str]]) -> list[str]:
    """Each end's qdiscs and classes as tc shows them: a fault planted in the shaping is undone
    when this reads as it did before (a measurement would say the same, at a measurement's cost).
    htb prints a counter among its settings (frames sent before its classes existed): left out."""
    return [re.sub(r" direct_packets_stat \d+", "", subprocess.run(
        ["tc", "-n", ns, what, "show", "dev", dev], capture_output=True, text=True, check=True).stdout)
        for ns, dev in ends for what in ("qdisc", "class")]


def nft_ruleset(network: str, node: str) -> str:
    """``node``'s nftables ruleset without its counters: a planted rule is undone when this reads
    as it did before."""
    return subprocess.run(["ip", "netns", "exec", f"{network}-{node}", "nft", "-s", "list", "ruleset"],
                          capture_output=True, text=True, check=True).stdout


def failed(rows: list) -> list:
    """The rows that did not pass, but for those the machine's load decided (cpu_bound)."""
    return [r for r in rows if r.verdict != "PASS" and not cpu_bound(r)]
