"""The parts of an frr_linux candidate and the text normalizations the diffs rely on."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path

INTERFACES = "interfaces.ip"
FRR = "frr.conf"
NFT = "nftables.nft"
SWANCTL = "swanctl.conf"
#: Apply order: addresses first (FRR and strongSwan bind to them), then the firewall.
PARTS: tuple[str, ...] = (INTERFACES, NFT, FRR, SWANCTL)


class CandidateError(ValueError):
    """A candidate folder or dict that is not an frr_linux candidate."""


def load_parts(source: str | Path | Mapping[str, str]) -> dict[str, str]:
    """The parts of a candidate folder (or a ready dict), in apply order.

    Unknown files in a folder are an error rather than silently ignored: a renamed part
    would otherwise drop out of the deploy unnoticed.
    """
    if isinstance(source, Mapping):
        parts = {str(k): str(v) for k, v in source.items()}
    else:
        folder = Path(source)
        if not folder.is_dir():
            raise CandidateError(f"candidate folder {folder} does not exist")
        parts = {
            p.name: p.read_text(encoding="utf-8")
            for p in folder.iterdir()
            if p.is_file() and not p.name.startswith(".")
        }
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise CandidateError(
            f"unknown candidate part(s) {', '.join(unknown)}; expected some of {', '.join(PARTS)}"
        )
    if not parts:
        raise CandidateError("the candidate has no parts")
    if NFT in parts and not _first_statement(parts[NFT]).startswith("flush ruleset"):
        # Without it `nft -f` would add to the running ruleset instead of replacing it.
        raise CandidateError(f"{NFT} must start with 'flush ruleset'")
    return {name: parts[name] for name in PARTS if name in parts}


def _first_statement(text: str) -> str:
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            return line
    return ""


_FRR_NOISE = re.compile(
    r"^(Building configuration\.\.\.|Current configuration:|frr version .*|end|!.*|exit|exit-.*)$"
)


def normalize_frr(text: str) -> str:
    """FRR config without banners, version, separators and block ends.

    Lines inside a flat block (one indentation level) are sorted: FRR prints
    ``ip ospf dead-interval`` before ``hello-interval`` whatever order the file had, and
    that order carries no meaning. Blocks with nested sub-blocks keep their order.
    """
    blocks: list[list[str]] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or _FRR_NOISE.match(line.strip()):
            continue
        if line.startswith(" ") and blocks:
            blocks[-1].append(line)
        else:
            blocks.append([line])
    out: list[str] = []
    for head, *body in blocks:
        flat = all(b.startswith(" ") and not b.startswith("  ") for b in body)
        out += [head, *(sorted(body) if flat else body)]
    return "".join(f"{line}\n" for line in out)


def frr_running_as_file(show_running: str) -> str:
    """``show running-config`` as a loadable frr.conf (the banner lines are not commands)."""
    lines = show_running.splitlines()
    while lines and not lines[0].startswith(("!", "frr ")):
        lines.pop(0)
    return "".join(f"{line}\n" for line in lines)


_NFT_COUNTER = re.compile(r"\bcounter packets \d+ bytes \d+")


def normalize_nft(listing: str) -> str:
    """``nft list ruleset`` output with stateful values dropped (``-s`` does the same)."""
    lines = [_NFT_COUNTER.sub("counter", line.rstrip()) for line in listing.splitlines()]
    return "".join(f"{line}\n" for line in lines if line.strip())


def normalize_text(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    return "".join(f"{line}\n" for line in lines if line.strip())


def unified(part: str, running: str, candidate: str) -> str:
    """A unified diff of one part, empty when equal."""
    return "".join(
        difflib.unified_diff(
            running.splitlines(keepends=True),
            candidate.splitlines(keepends=True),
            fromfile=f"running/{part}",
            tofile=f"candidate/{part}",
        )
    )
