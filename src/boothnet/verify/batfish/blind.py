"""What Batfish 0.36 cannot read on a platform (platforms/batfish_blind.yml), left out of the
Batfish view, with what decides it instead.

Each form in the data is a line Batfish leaves unrecognized on that platform, proved by a live
answer recorded in the repo. The view leaves out exactly the lines of those forms, in the stanza
the form names, and nothing else: a line of any other form (a template printing a wrong one)
reaches Batfish and fails "Configs parse cleanly". What was left out goes into the report, per
device and form, with what decided it (the read-back, the offline IPv6 evaluator); an IPv6 ACL
the model binds, whose binding line is a left-out form, is accepted as unused in the view by
name (one the model binds nowhere is still dead config).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

import boothnet.platforms
from boothnet.verify.batfish.intent import AcceptedUnused

if TYPE_CHECKING:
    from boothnet.derive import DeviceModel

DATA = Path(boothnet.platforms.__file__).parent / "batfish_blind.yml"


@dataclass(frozen=True)
class Source:
    """The recorded live answer that shows the form unrecognized."""

    batfish: str
    answer: str  # parseWarning answer, relative to the repo
    config: str  # the probe config asked, relative to the repo
    lines: tuple[int, ...]  # the probe's lines of this form the answer lists as unrecognized

    def __str__(self) -> str:
        return f"recorded answer {self.answer}: {self.config} lines {', '.join(map(str, self.lines))} unrecognized"


@dataclass(frozen=True)
class BlindForm:
    """A line form Batfish cannot read on one platform."""

    platform: str
    id: str
    form: str
    stanza: re.Pattern[str] | None  # the stanza header it sits under; None: a top-level line
    line: re.Pattern[str]
    cannot: str
    decided_by: str
    source: Source
    unused: str | None = None  # structure type the IPv6 ACLs it binds become in the view: unused

    def matches(self, text: str, header: str | None) -> re.Match[str] | None:
        """The line's match, when `text` (a config line as printed) is of this form in the stanza
        headed by `header` (None: at top level)."""
        indented = text[:1].isspace()
        if self.stanza is None:
            if indented:
                return None
        elif not indented or header is None or not self.stanza.fullmatch(header):
            return None
        return self.line.fullmatch(text.strip())


def _compile(spec: Mapping[str, Any], key: str) -> re.Pattern[str]:
    pattern = str(spec[key])
    for word, expression in (spec.get("where") or {}).items():
        pattern = pattern.replace(f"{{{word}}}", str(expression))
    return re.compile(pattern)


def _form(platform: str, spec: Mapping[str, Any]) -> BlindForm:
    src = spec["source"]
    return BlindForm(
        platform=platform, id=str(spec["id"]), form=str(spec["form"]),
        stanza=re.compile(str(spec["stanza"])) if spec.get("stanza") else None,
        line=_compile(spec, "line"), cannot=str(spec["cannot"]), decided_by=" ".join(str(spec["decided_by"]).split()),
        source=Source(str(src["batfish"]), str(src["answer"]), str(src["config"]), tuple(int(n) for n in src["lines"])),
        unused=str(spec["unused"]) if spec.get("unused") else None)


@cache
def blind_forms() -> dict[str, tuple[BlindForm, ...]]:
    """Platform -> the line forms Batfish 0.36 cannot read on it."""
    data = yaml.safe_load(DATA.read_text()) or {}
    return {platform: tuple(_form(platform, spec) for spec in specs) for platform, specs in data.items()}


@dataclass(frozen=True)
class LeftOut:
    """One line the view left out."""

    device: str
    form: BlindForm
    line: int  # in the config as rendered for the view, before leaving out
    text: str  # as printed, indentation stripped
    stanza: str | None  # its stanza's header
    name: str | None  # the structure it names (an ACL), where the form has one


def leave_out(device: str, text: str, forms: Iterable[BlindForm]) -> tuple[str, list[LeftOut]]:
    """`text` without its lines of `forms`, and those lines. A stanza's header is its last
    unindented line; indented lines belong to it."""
    forms = tuple(forms)
    kept: list[str] = []
    gone: list[LeftOut] = []
    header: str | None = None
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        bare = line.rstrip("\r\n")
        if bare and not bare[:1].isspace():
            header = None if bare.startswith("!") else bare
        for form in forms:
            found = form.matches(bare, header)
            if found:
                gone.append(LeftOut(device, form, number, bare.strip(), header if bare[:1].isspace() else None,
                                    found.groupdict().get("name")))
                break
        else:
            kept.append(line)
    return "".join(kept), gone


def ipv6_bindings(model: DeviceModel) -> list[str]:
    """The IPv6 ACLs the model binds to interfaces (`ipv6 access-group`), in order, once each."""
    names = [n for i in model.interfaces
             for n in (i.acl6_in, i.acl6_out, i.binding.acl6 if i.binding else None) if n]
    return list(dict.fromkeys(names))


def accepted_unused(models: Mapping[str, DeviceModel]) -> tuple[AcceptedUnused, ...]:
    """The IPv6 ACLs a device binds where its platform's binding line is a blind form (its
    `unused`): Batfish, not reading the binding, reports them unused. Accepted by name, with why;
    an IPv6 ACL the model binds nowhere is not accepted (dead config still fails)."""
    out = []
    for name, model in sorted(models.items()):
        for form in blind_forms().get(model.platform, ()):
            if form.unused:
                out += [AcceptedUnused(name, form.unused, acl, (
                    f"its `{form.form}` is left out of the view (Batfish {form.source.batfish} cannot read it "
                    f"on {form.platform}); decided instead by {form.decided_by}"))
                    for acl in ipv6_bindings(model)]
    return tuple(out)


@dataclass(frozen=True)
class BlindView:
    """What the Batfish view left out, for the report."""

    left_out: tuple[LeftOut, ...] = ()

    def notes(self, shown: int = 4) -> list[str]:
        """One line per device and form (the data's order): which lines (the first `shown`), what
        Batfish cannot check without them, what decides it instead."""
        by: dict[tuple[str, int], list[LeftOut]] = {}
        for gone in self.left_out:
            order = blind_forms()[gone.form.platform].index(gone.form)
            by.setdefault((gone.device, order), []).append(gone)
        notes = []
        for (device, _), lines in sorted(by.items()):
            form = lines[0].form
            where = "; ".join(f"{g.stanza}: {g.text}" if g.stanza else g.text for g in lines[:shown])
            if len(lines) > shown:
                where += f"; and {len(lines) - shown} more"
            notes.append(f"{device}: `{form.form}` left out of the view ({len(lines)} line"
                         f"{'s' if len(lines) != 1 else ''}: {where}): Batfish {form.source.batfish} cannot read "
                         f"it on {form.platform} ({form.source}), so Batfish does not check {form.cannot}; "
                         f"decided instead by {form.decided_by}")
        return notes


def leave_out_blind(configs: Path, platform_of: Mapping[str, str]) -> BlindView:
    """Rewrite each `<device>.cfg` under `configs` without the lines its platform's Batfish cannot
    read (idempotent); what was left out."""
    forms = blind_forms()
    gone: list[LeftOut] = []
    for device, platform in sorted(platform_of.items()):
        path = configs / f"{device}.cfg"
        if platform not in forms or not path.is_file():
            continue
        text = path.read_text()
        view, left = leave_out(device, text, forms[platform])
        if left:
            path.write_text(view)
            gone += left
    return BlindView(tuple(gone))
