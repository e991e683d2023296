"""What proves an IOS or EOS command: every command form a config prints, and its evidence.

No IOS or EOS device runs here, so a line's only proof that a real switch takes it is evidence:
a recorded session of a real device of that family printing or accepting the line (NAPALM's,
ntc-templates' and genielibs' test data), or a vendor guide's title, release and section. The
evidence is data, one file per platform (``evidence/<platform>.yml``), one entry per command
*form*: the line with its values abstracted and keyed by the section it sits in, e.g.
``interface/ switchport access vlan <n>``.

Placeholders: ``<ip>`` ``<mask>`` ``<prefix>`` (IPv4 address, netmask or wildcard, a/len),
``<ip6>`` ``<prefix6>``, ``<mac>`` (dotted), ``<n>`` (a number or a list/range of numbers),
``<ifname>``, ``<name>`` (an identifier with a capital letter: ACL, route-map, VRF names),
``<word>`` (the value after ``hostname``, ``name``, ``path``, ``username``, ``key``),
``<secret>`` (a value holding ``$``), ``<text>`` (the rest of a ``description``). In an ACL
entry (``permit``/``deny`` then a protocol) every address specification is ``<addr>``: ``any``,
``host <ip>``, ``<ip> <wildcard>``, a prefix; a leading sequence number is dropped (EOS prints
one in its running config, the templates let EOS number the entries).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from ipaddress import IPv4Address, IPv6Address, IPv6Network, ip_network
from pathlib import Path
from typing import Any

import yaml

EVIDENCE_DIR = Path(__file__).parent / "evidence"
PLATFORMS = ("cisco_ios", "arista_eos")

_MAC = re.compile(r"[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}")
_NUMBERS = re.compile(r"\d+(?:[-,]\d+)*")
_IFNAME = re.compile(
    r"(?:FastEthernet|GigabitEthernet|TwoGigabitEthernet|FiveGigabitEthernet|TenGigabitEthernet|"
    r"TwentyFiveGigE|FortyGigabitEthernet|HundredGigE|AppGigabitEthernet|Ethernet|Management|"
    r"Port-[Cc]hannel|Loopback|Vlan|Tunnel)\d+(?:/\d+)*(?:\.\d+)?")
# the value after one of these words is a name, whatever it looks like
_WORD_AFTER = frozenset({"hostname", "name", "path", "username", "key"})
# ... and after these, an ACL, route-map, prefix-list, VRF or crypto name (unless a keyword follows)
_NAME_AFTER = frozenset({"access-list", "extended", "standard", "access-group", "traffic-filter", "route-map",
                         "prefix-list", "definition", "forwarding", "transform-set", "map", "vrf", "instance"})
_NOT_NAMES = frozenset({"extended", "standard", "definition", "forwarding", "instance", "prefix-list", "permit",
                        "deny", "seq", "in", "out", "ipv4", "ipv6", "ip"})


def _dotted(token: str, previous: str) -> str:
    value = int(IPv4Address(token))
    inverse = value ^ 0xFFFFFFFF
    netmask = token.startswith("255.") and (inverse & (inverse + 1)) == 0
    wildcard = token.startswith("0.") and value != 0 and (value & (value + 1)) == 0
    if netmask or wildcard or (value == 0 and previous == "<ip>"):
        return "<mask>"
    return "<ip>"


def _token(token: str, previous: str, before: str) -> str:
    if before in _WORD_AFTER and previous == before:
        return "<word>"
    if before in _NAME_AFTER and previous == before and token not in _NOT_NAMES and not token[:1].isdigit():
        return "<name>"
    if "$" in token:
        return "<secret>"
    if previous == "secret" and token.isdigit():  # the hash type is syntax: 5, 8, 9, sha512
        return token
    return _value(token, previous)


def _value(token: str, previous: str) -> str:
    if _NUMBERS.fullmatch(token):
        return "<n>"
    if _MAC.fullmatch(token):
        return "<mac>"
    if _IFNAME.fullmatch(token):
        return "<ifname>"
    try:
        if "/" in token:
            return "<prefix6>" if isinstance(ip_network(token, strict=False), IPv6Network) else "<prefix>"
        if ":" in token:
            IPv6Address(token)
            return "<ip6>"
        if token.count(".") == 3:
            return _dotted(token, previous)
    except ValueError:
        pass
    return "<name>" if any(c.isupper() for c in token) else token


def line_form(line: str) -> str:
    """The line's command form, without its indentation: values become placeholders."""
    tokens = line.split()
    if not tokens:
        return ""
    if tokens[0] == "description" or tokens[:2] == ["no", "description"]:
        head = tokens.index("description") + 1
        return " ".join(tokens[:head] + (["<text>"] if tokens[head:] else []))
    out: list[str] = []
    for index, token in enumerate(tokens):
        previous = out[-1] if out else ""
        before = tokens[index - 1] if index else ""
        out.append(_token(token, previous, before))
    if out[0] == "<n>" and out[1:2] in (["permit"], ["deny"]):  # an ACL entry's sequence number
        out = out[1:]
    if out[0] in ("permit", "deny") and len(out) > 2:
        out = out[:2] + _addresses(out[2:])
    return " ".join(out)


def _addresses(rest: list[str]) -> list[str]:
    """An ACL entry's address specifications, whatever their spelling, as ``<addr>``:
    ``any``, ``host <ip>``, ``<ip> <mask>`` (IOS wildcard), ``<prefix>`` (EOS, IPv6)."""
    out: list[str] = []
    index = 0
    while index < len(rest):
        pair = rest[index:index + 2]
        if pair[0] in ("any", "<prefix>", "<prefix6>"):
            out.append("<addr>")
            index += 1
        elif pair in (["host", "<ip>"], ["host", "<ip6>"], ["<ip>", "<mask>"]):
            out.append("<addr>")
            index += 2
        else:
            out.append(rest[index])
            index += 1
    return out


def section_kind(form: str) -> str:
    """A section's kind: its form's leading words, up to its first value (``interface``,
    ``ip access-list extended``, ``router ospf``, ``management api http-commands``)."""
    words: list[str] = []
    for word in form.split():
        if word.startswith("<"):
            break
        words.append(word)
    return " ".join(words)


@dataclass(frozen=True)
class Line:
    number: int  # 1-based, in the config text
    text: str  # as printed, indentation kept
    form: str  # "interface/ switchport mode access"; a top-level line has no section prefix


def config_lines(config_text: str) -> list[Line]:
    """Every command line of an IOS/EOS config with its context-aware form (comments skipped).
    A line's section is the nearest line above it indented less; sections nest."""
    stack: list[tuple[int, str]] = []  # (indent, kind) of the open sections
    lines: list[Line] = []
    for number, raw in enumerate(config_text.splitlines(), start=1):
        text = raw.rstrip()
        stripped = text.lstrip()
        if not stripped or stripped.startswith("!"):
            continue
        indent = len(text) - len(stripped)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        form = line_form(stripped)
        prefix = "/".join(kind for _, kind in stack)
        lines.append(Line(number, text, f"{prefix}/ {form}" if prefix else form))
        stack.append((indent, section_kind(form)))
    return lines


def forms(config_text: str) -> set[str]:
    """The set of command forms a config prints."""
    return {line.form for line in config_lines(config_text)}


@cache
def evidence(platform: str) -> dict[str, list[dict[str, Any]]]:
    """The platform's evidence file: command form -> its evidence items."""
    data = yaml.safe_load((EVIDENCE_DIR / f"{platform}.yml").read_text(encoding="utf-8"))
    return {entry["form"]: entry["evidence"] for entry in data["forms"]}


def unevidenced(platform: str, config_text: str) -> list[tuple[int, str, str]]:
    """(line number, line, form) of every line whose form has no evidence entry."""
    known = evidence(platform)
    return [(line.number, line.text, line.form) for line in config_lines(config_text) if line.form not in known]


UNPROVEN = "unproven.yml"


@cache
def unproven(platform: str) -> dict[str, str]:
    """The forms of *platform* the templates print with no evidence found yet (``evidence/unproven.yml``):
    form -> why (what was searched). A ratchet: the list may only shrink (see ``unproven_problems``)."""
    data = yaml.safe_load((EVIDENCE_DIR / UNPROVEN).read_text(encoding="utf-8")) or {}
    return {entry["form"]: entry.get("why", "") for entry in (data.get(platform) or [])}


def unproven_problems(platform: str, printed: set[str]) -> list[str]:
    """What is wrong with *platform*'s unproven list, given every form the configs print: an entry
    without its why, listed twice, no longer printed, or that now has evidence (then it must go)."""
    data = yaml.safe_load((EVIDENCE_DIR / UNPROVEN).read_text(encoding="utf-8")) or {}
    known = evidence(platform)
    problems: list[str] = []
    seen: set[str] = set()
    for entry in data.get(platform) or []:
        form = entry.get("form", "")
        where = f"{UNPROVEN} {platform}: {form!r}"
        if not form or form in seen:
            problems.append(f"{where}: form missing or listed twice")
        seen.add(form)
        if not str(entry.get("why", "")).strip():
            problems.append(f"{where}: no why (what was searched)")
        if form in known:
            problems.append(f"{where}: has evidence in {platform}.yml now; take it off the list")
        if form not in printed:
            problems.append(f"{where}: no config prints it any more; take it off the list")
    return problems


def evidence_problems(platform: str, root: Path) -> list[str]:
    """What is wrong with the platform's evidence file: an item missing a field, a recorded line
    whose form is not the entry's, a committed excerpt (a path under *root*) that is missing or
    lacks the line. A cited repository file is not read here: its fields must be present."""
    data = yaml.safe_load((EVIDENCE_DIR / f"{platform}.yml").read_text(encoding="utf-8"))
    sources = data.get("sources") or {}
    problems: list[str] = []
    seen: set[str] = set()
    for entry in data["forms"]:
        form = entry.get("form", "")
        where = f"{platform}: {form!r}"
        if not form or form in seen:
            problems.append(f"{where}: form missing or listed twice")
        seen.add(form)
        items = entry.get("evidence") or []
        if not items:
            problems.append(f"{where}: no evidence")
        for item in items:
            problems += [f"{where}: {p}" for p in _item_problems(form, item, sources, root)]
    return problems


_FIELDS = {"recorded": ("repo", "path", "line"), "guide": ("title", "section", "url")}


def _item_problems(form: str, item: dict[str, Any], sources: dict[str, Any], root: Path) -> list[str]:
    kind = item.get("kind")
    if kind not in _FIELDS:
        return [f"evidence kind {kind!r} is neither recorded nor guide"]
    problems = [f"{kind} evidence lacks {name}" for name in _FIELDS[kind] if not str(item.get(name, "")).strip()]
    if problems or kind == "guide":
        return problems
    if item["repo"] not in sources:
        problems.append(f"repository {item['repo']} is not listed under sources (commit, licence)")
    command = form.split("/ ", 1)[-1] if "/ " in form else form
    if line_form(item["line"]) != command:
        problems.append(f"recorded line {item['line']!r} has the form {line_form(item['line'])!r}, not {command!r}")
    excerpt = item.get("excerpt")
    if excerpt:
        path = root / excerpt
        if not path.is_file():
            problems.append(f"excerpt {excerpt} does not exist")
        elif item["line"] not in path.read_text(encoding="utf-8").splitlines():
            problems.append(f"excerpt {excerpt} lacks the line {item['line']!r}")
    return problems
