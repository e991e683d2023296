"""A remediation preview without the switch: from a running config (the last backup of a device,
or any saved ``show running-config``) and boothnet's rendered candidate, the exact commands that
would change the device and the commands that would take it back, by hier_config."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hier_config import Platform as HierPlatform
from hier_config import WorkflowRemediation, get_hconfig

from boothnet.deploy.steps import single_file
from boothnet.layout import Layout
from boothnet.platforms import Platform


class NoRemediation(Exception):  # a refusal with its reason, not a crash
    """What a preview needs is missing: says what and how to get it."""


@dataclass(frozen=True)
class Remediation:
    device: str
    running: Path  # the running config it starts from
    candidate: Path
    remediation: str  # commands that turn the running config into the candidate
    rollback: str  # commands that take the candidate back to the running config

    def write(self, out_dir: Path) -> list[Path]:
        out_dir.mkdir(parents=True, exist_ok=True)
        paths = [out_dir / f"{self.device}.remediation.cfg", out_dir / f"{self.device}.rollback.cfg"]
        for path, text in zip(paths, (self.remediation, self.rollback), strict=True):
            path.write_text(text + ("\n" if text else ""))
        return paths


def _text(config) -> str:  # a hier_config HConfig
    return "\n".join(child.cisco_style_text() for child in config.all_children_sorted())


def remediation(device: str, platform: Platform, running: Path, candidate: Path) -> Remediation:
    _need_driver(device, platform)
    hier = HierPlatform[platform.hier_config]
    flow = WorkflowRemediation(get_hconfig(hier, running.read_text(encoding="utf-8")),
                               get_hconfig(hier, candidate.read_text(encoding="utf-8")))
    return Remediation(device, running, candidate, _text(flow.remediation_config), _text(flow.rollback_config))


def _need_driver(device: str, platform: Platform) -> None:
    if not platform.hier_config:
        raise NoRemediation(f"{device}: platform {platform.name} has no hier_config driver (hier_config in "
                            "capabilities.yml); IOS and EOS have")


def preview(layout: Layout, device: str, platform: Platform, running: Path | None = None) -> Remediation:
    """The device's remediation from ``running`` (default: its newest backup) to its rendered config."""
    _need_driver(device, platform)
    running = running or newest_backup(layout, device)
    if not running.is_file():
        raise NoRemediation(f"{device}: --running {running}: no such file")
    return remediation(device, platform, running, candidate_of(layout, device, platform))


def candidate_of(layout: Layout, device: str, platform: Platform) -> Path:
    path = single_file(platform, layout.configs() / device)
    if not path.is_file():
        raise NoRemediation(f"{device}: no rendered candidate at {path}: `boothnet build -n {layout.network}` first")
    return path


def newest_backup(layout: Layout, device: str) -> Path:
    """The running config a deploy saved last before it committed (``backups/<device>/<ts>/running.cfg``)."""
    found = sorted(layout.backups(device).glob("*/running.cfg"))
    if not found:
        raise NoRemediation(f"{device}: no backup under {layout.backups(device)} (a deploy saves one before each "
                            "commit); give a saved `show running-config` with --running")
    return found[-1]
