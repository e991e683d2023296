"""What a switch keeps of its own, carried into a full-replace candidate.

A Catalyst's running config holds sections no intent says (its stack members, licence level,
self-signed certificate, its control-plane policy). A `configure replace` with a file that lacks
them would remove them, and the one it may not remove (`control-plane` / `service-policy input
system-cpp-policy`) makes the device refuse the replace and, with `revert trigger error`, undo
it whole. The deploy copies those sections, as the running config has them, into the candidate
(the platform's `switch_owned` in capabilities.yml), so a replace changes only what boothnet
renders, and the diff after the commit is empty."""

from __future__ import annotations

import re
from collections.abc import Iterable


def sections(config: str) -> list[list[str]]:
    """The top-level sections of an IOS-style config: a line and its indented children
    (`!` separators, the `show running-config` header and `end` left out)."""
    out: list[list[str]] = []
    for line in config.splitlines():
        if not line.strip() or line.startswith("!") or line == "end" or line.startswith(
                ("Building configuration", "Current configuration")):
            continue
        if line[0].isspace() and out:
            out[-1].append(line)
        elif not line[0].isspace():
            out.append([line])
    return out


def carry_switch_owned(candidate: str, running: str, owned: Iterable[str]) -> tuple[str, list[str]]:
    """The candidate with every switch-owned section of the running config it lacks, before its
    `end`; and the first line of each section carried. A section the candidate has itself stays
    the candidate's."""
    patterns = [re.compile(pattern) for pattern in owned]
    have = {section[0] for section in sections(candidate)}
    carried = [section for section in sections(running)
               if section[0] not in have and any(p.match(section[0]) for p in patterns)]
    if not carried:
        return candidate, []
    block = "".join("\n".join(section) + "\n!\n" for section in carried)
    head, found, tail = candidate.rpartition("\nend")
    text = f"{head}\n{block}end{tail}" if found else f"{candidate.rstrip()}\n{block}"
    return text, [section[0] for section in carried]
