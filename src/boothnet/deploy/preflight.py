"""Before a deploy touches a device: are the configs built from the intent as it is now?

The build writes nothing when the intent is invalid, so configs left by an earlier build
would otherwise be deployed as if they were current. Each configs folder has the build's
summary beside it (``<folder>.summary.json``) with the stamp of the intent it was built
from; the stamp of that intent is taken again and must match. Any problem refuses the
whole deploy with one message that says what to run (the build then reports every intent
error at once).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from boothnet.errors import Refusal
from boothnet.intent.stamp import IntentStamp, changed_files, stamp_intent
from boothnet.layout import REPO, summary_of

LabConfigs = Literal["full", "day0"]
MAX_NAMED = 5  # changed files named in the message; the rest are counted


class StaleConfigs(Refusal):
    """The configs to deploy were not built from the current intent: nothing is deployed."""

    def __init__(self, problems: list[str], rebuild: str):
        self.problems = problems
        self.rebuild = rebuild
        super().__init__(f"{'; '.join(problems)}; run `{rebuild}` first: nothing deployed")


@dataclass(frozen=True)
class ConfigsCheck:
    """One configs folder: the intent it was built from (when recorded) and what is wrong."""

    configs: Path
    intent: IntentStamp | None
    problems: list[str]


def show(path: Path) -> str:
    """*path* relative to the repository (where the rebuild commands run; a playbook's module
    runs in playbooks/), else to the working directory, else absolute."""
    path = Path(path).resolve()
    for base in (REPO, Path.cwd().resolve()):
        if path.is_relative_to(base):
            return str(path.relative_to(base))
    return str(path)


def _named(items: list[str]) -> str:
    more = len(items) - MAX_NAMED
    return ", ".join(items[:MAX_NAMED]) + (f" and {more} more" if more > 0 else "")


def check_configs(configs: Path, candidates: Mapping[str, Path]) -> ConfigsCheck:
    """Problems of one configs folder holding *candidates* (device -> its folder in it)."""
    where = show(configs)
    if not configs.is_dir():
        return ConfigsCheck(configs, None, [f"no configs in {where}"])
    summary_file = summary_of(configs)
    try:
        summary = json.loads(summary_file.read_text())
        built = IntentStamp.from_dict(summary["intent"]) if summary.get("intent") else None
    except FileNotFoundError:
        return ConfigsCheck(configs, None, [f"{where} have no build summary ({summary_file.name})"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return ConfigsCheck(configs, None, [f"{show(summary_file)} is unreadable ({exc!r})"])
    problems: list[str] = []
    if built is None:
        problems.append(f"{where} do not say which intent they were built from (an older build)")
    elif not Path(built.directory).is_dir():
        problems.append(f"{where} were built from {show(Path(built.directory))}, which is gone")
    else:
        now = stamp_intent(Path(built.directory))
        if now.digest != built.digest:
            changed = changed_files(built, now)
            detail = f" (changed: {_named(changed)})" if changed else ""
            problems.append(f"{where} were built from another version of {show(Path(built.directory))}{detail}")
    missing = sorted(device for device, folder in candidates.items() if not _has_candidate(Path(folder)))
    if missing:
        problems.append(f"{where} have no configs for {_named(missing)}")
    findings = summary.get("findings") or []
    if findings and not problems:
        problems.append(f"{where} failed the build's checks ({len(findings)} finding(s), first: {findings[0]})")
    return ConfigsCheck(configs, built, problems)


def _has_candidate(folder: Path) -> bool:
    """frr_linux renders a folder per device, IOS/EOS one file beside it (``core1.cfg``)."""
    return folder.is_dir() or any(folder.parent.glob(f"{folder.name}.*"))


def rebuild_command(intent: Path | None, network: str, lab_configs: LabConfigs | None) -> str:
    """What rebuilds the configs a deploy takes: the lab's rendering (lab-up, in the lab's
    config mode, which only re-renders a day-0 lab) or the build."""
    if intent is None or intent.parent == REPO / "inventories":
        net = intent.name if intent else network
        if lab_configs is None:
            return f"make build NET={net}"
        return f"make lab-up NET={net}" + (" DAY0=1" if lab_configs == "day0" else "")
    if lab_configs is None:
        return f"ansible-playbook -i {show(intent)} playbooks/build.yml"
    return f"ansible-playbook -i {show(intent)} playbooks/lab_up.yml" + (
        " -e boothnet_lab_configs=day0" if lab_configs == "day0" else ""
    )


def preflight(
    device_dirs: Mapping[str, Path], network: str, lab_configs: LabConfigs | None = None
) -> list[ConfigsCheck]:
    """Check every configs folder the devices' candidates come from (their parent folders);
    raise StaleConfigs with every problem found, else return the checks."""
    folders: dict[Path, dict[str, Path]] = {}
    for device, folder in device_dirs.items():
        folders.setdefault(Path(folder).resolve().parent, {})[device] = Path(folder)
    checks = [check_configs(configs, candidates) for configs, candidates in sorted(folders.items())]
    problems = [problem for check in checks for problem in check.problems]
    if problems:
        intent = next((Path(c.intent.directory) for c in checks if c.intent), None)
        raise StaleConfigs(problems, rebuild_command(intent, network, lab_configs))
    return checks
