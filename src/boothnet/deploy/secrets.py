"""``${NAME}`` placeholders in rendered candidates: filled in at deploy, never printed.

Rendered configs keep secrets out of ``build/`` as placeholders (``swanctl.conf`` holds
``${BOOTHNET_VPN_PSK}``). The deploy fills them from the controller environment (passed to
the module as a ``no_log`` parameter) or, for a lab, from a file the lab generated
(``boothnet_vpn_psk_file``). Diffs, errors, results and controller backups show
``<secret>`` instead; comparisons run on the filled-in text, so a second deploy of an
unchanged intent still finds nothing to do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

PLACEHOLDER = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)\}")
MASK = "<secret>"
# swanctl.conf's ``secret = ...``, IOS's ``crypto isakmp key <key> address`` and a user's secret hash: a running
# config may hold a secret the controller no longer knows (the key was changed), so such
# lines are masked whatever their value.
_SECRET_LINE = re.compile(
    r"^([-+ ]?\s*(?:secret\s*=\s*|[-+]?crypto isakmp key (?:\d )?"
    r"|[-+]?username \S+ .*secret (?!(?:\d+ |sha512 )?\$\{)(?:\d+ |sha512 )?))(?!\$\{)[^\s]+", re.MULTILINE)


class SecretMissing(ValueError):
    """A candidate names a secret that neither the environment nor a secret file gives."""


def placeholders(parts: Mapping[str, str]) -> dict[str, list[str]]:
    """``{NAME: [parts that use it]}`` over every part of a candidate."""
    found: dict[str, list[str]] = {}
    for part, text in parts.items():
        for name in sorted(set(PLACEHOLDER.findall(text))):
            found.setdefault(name, []).append(part)
    return found


def _from_file(path: str | Path) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def resolve(
    parts: Mapping[str, str],
    given: Mapping[str, str | None],
    files: Mapping[str, str | Path] | None = None,
) -> dict[str, str]:
    """The value of every placeholder *parts* use: from *given* (the controller
    environment), else from *files* (``{NAME: path}``). All missing ones in one error."""
    files = files or {}
    values: dict[str, str] = {}
    missing: list[str] = []
    for name, used_in in sorted(placeholders(parts).items()):
        value = (given.get(name) or "").strip() or None
        if value is None and name in files:
            value = _from_file(files[name])
        if value is None:
            where = f" or the file {files[name]} (missing or empty)" if name in files else ""
            missing.append(f"${{{name}}} in {', '.join(used_in)}: set {name} in the controller environment{where}")
        else:
            values[name] = value
    if missing:
        raise SecretMissing("secret(s) not found, nothing deployed: " + "; ".join(missing))
    return values


def substitute(parts: Mapping[str, str], values: Mapping[str, str]) -> dict[str, str]:
    """*parts* with every ``${NAME}`` replaced (callers :func:`resolve` first)."""
    return {part: PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text) for part, text in parts.items()}


def mask(text: str, values: Iterable[str]) -> str:
    """*text* with every secret value, and the key of every swanctl ``secret =`` and IOS
    ``crypto isakmp key`` line, replaced by ``<secret>`` (longest first, so a secret that contains another is masked
    whole)."""
    for value in sorted({v for v in values if v}, key=len, reverse=True):
        text = text.replace(value, MASK)
    return _SECRET_LINE.sub(lambda m: m.group(1) + MASK, text)


def mask_parts(parts: Mapping[str, str], values: Iterable[str]) -> dict[str, str]:
    vals = list(values)
    return {part: mask(text, vals) for part, text in parts.items()}
