"""The deploy steps the Ansible modules call: one function per module, no Ansible here.

Works with any NAPALM driver through the same path: ``frr_linux`` gets the multi-part
candidate, the adjacency check and the device-side revert reason; ``ios``/``eos`` get a
single-file candidate (the build's ``<configs>/<device>.cfg``) and their own commit-confirm.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import napalm
from napalm.base.exceptions import (
    CommitError,
    ConnectionException,
    MergeConfigException,
    ReplaceConfigException,
)

from boothnet.deploy import health as hc
from boothnet.deploy import secrets as sec
from boothnet.deploy.parts import CandidateError, load_parts
from boothnet.deploy.results import DeviceResult, backup_path, write_backup
from boothnet.platforms import platforms

#: Errors that mean "the device refused the candidate (or a secret is missing); nothing
#: was applied".
REJECTED = (ReplaceConfigException, MergeConfigException, CandidateError, sec.SecretMissing)
PASSWORD_ENV = "BOOTHNET_DEPLOY_PASSWORD"


@dataclass
class Target:
    """How to reach one device. Secrets come from the environment or vault, never files."""

    hostname: str
    username: str
    driver: str = "frr_linux"
    password: str = ""
    optional_args: dict[str, Any] = field(default_factory=dict)
    timeout: int = 30

    def open(self) -> Any:
        cls = napalm.get_network_driver(self.driver)
        password = self.password or os.environ.get(PASSWORD_ENV, "")
        dev = cls(self.hostname, self.username, password, timeout=self.timeout,
                  optional_args=dict(self.optional_args))
        dev.open()
        return dev


@dataclass
class Secrets:
    """Values for the candidate's ``${NAME}`` placeholders: *given* from the controller
    environment, *files* (``{NAME: path}``) as the fallback (a lab's generated PSK)."""

    given: Mapping[str, str | None] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)


def single_file(driver: str, config_dir: Path) -> Path:
    """The one config file the build writes for a device of a single-file platform (ios, eos):
    its name comes from the platform's files in capabilities.yml, e.g. ``<configs>/core1.cfg``
    for ``config_dir`` = ``<configs>/core1``."""
    platform = next(p for p in platforms().values() if p.napalm_driver == driver)
    (pattern,) = platform.files
    return config_dir.parent / pattern.format(device=config_dir.name)


def candidate(driver: str, config_dir: Path, secrets: Secrets | None = None) -> tuple[Any, dict[str, str]]:
    """The candidate to load (frr_linux: dict of parts; ios/eos: the text of the device's one
    config file) with placeholders filled in, and the secret values used.
    Raises :class:`~boothnet.deploy.secrets.SecretMissing` before any device is touched."""
    secrets = secrets or Secrets()
    if driver == "frr_linux":
        parts = load_parts(config_dir)
    else:  # ios / eos: one file, replace semantics
        parts = {"running.cfg": single_file(driver, config_dir).read_text(encoding="utf-8")}
    values = sec.resolve(parts, secrets.given, secrets.files)
    filled = sec.substitute(parts, values)
    return (filled if driver == "frr_linux" else filled["running.cfg"]), values


@contextmanager
def _masked(values: Mapping[str, str]) -> Iterator[None]:
    """Errors leave this block with every secret value masked in their message."""
    try:
        yield
    except Exception as exc:
        text = str(exc)
        masked = sec.mask(text, values.values())
        if masked == text:
            raise
        try:
            new = type(exc)(masked)
        except Exception:  # noqa: BLE001 - an exception type with another signature
            new = RuntimeError(masked)
        raise new from None


def _ospf(dev: Any) -> dict[str, list[dict[str, str]]]:
    return dev.get_ospf_neighbors() if hasattr(dev, "get_ospf_neighbors") else {}


def config(
    target: Target,
    config_dir: Path,
    *,
    revert_in: int | None,
    check: bool,
    backup_root: Path | None = None,
    device: str = "",
    secrets: Secrets | None = None,
) -> dict[str, Any]:
    """Load, diff and (unless *check* or no diff) commit with a revert timer.

    Returns ``changed``, ``diff``, ``parts`` (changed part names), ``committed``,
    ``backup`` (controller folder) and ``ospf_before`` (for the health check).
    Raises a :data:`REJECTED` error when the device refuses the candidate or a secret is
    missing. Secret values never leave in the diff, the backup or an error message.
    """
    cand, values = candidate(target.driver, config_dir, secrets)
    with _masked(values):
        return _config(target, cand, values, revert_in, check, backup_root, device)


def _config(
    target: Target,
    cand: Any,
    values: Mapping[str, str],
    revert_in: int | None,
    check: bool,
    backup_root: Path | None,
    device: str,
) -> dict[str, Any]:
    dev = target.open()
    try:
        dev.load_replace_candidate(config=cand)
        if hasattr(dev, "compare_parts"):
            # compared on the filled-in text (idempotent), shown masked
            per_part = {k: sec.mask(v, values.values()) for k, v in dev.compare_parts().items() if v}
            diff = "".join(per_part.values())
        else:
            diff = sec.mask(dev.compare_config(), values.values())
            per_part = {"config": diff} if diff else {}
        out: dict[str, Any] = {"changed": bool(diff), "diff": diff, "parts": sorted(per_part),
                               "committed": False, "backup": None, "ospf_before": {}}
        if check or not diff:
            dev.discard_config()
            return out
        out["ospf_before"] = _ospf(dev)
        if hasattr(dev, "get_running_parts"):
            dev.commit_config(message=f"boothnet deploy {device}", revert_in=revert_in)
            running = dev.last_backup
        else:
            running = {"running.cfg": dev.get_config(retrieve="running")["running"]}
            dev.commit_config(message=f"boothnet deploy {device}", revert_in=revert_in)
        out["committed"] = True
        if backup_root is not None:
            # the device keeps its own unmasked backup for the revert; this one is a record
            folder = write_backup(backup_root, sec.mask_parts(running, values.values()))
            (folder / "changes.diff").write_text(diff, encoding="utf-8")
            out["backup"] = str(folder)
        return out
    finally:
        dev.close()


def health(
    target: Target, config_dir: Path, ospf_before: dict[str, list[dict[str, str]]],
    timeout: float, secrets: Secrets | None = None,
) -> hc.HealthReport:
    """The health report after a commit (a fresh session, so management is really tested)."""
    report = hc.HealthReport()
    cand, values = candidate(target.driver, config_dir, secrets)
    try:
        dev = target.open()
    except (ConnectionException, OSError) as exc:
        report.management.append(f"management unreachable after commit: {exc}")
        return report
    try:
        if hasattr(dev, "revert_reason") and not dev.has_pending_commit():
            # Reached only once the timer had restored the backup: new sessions were cut.
            report.management.append(
                "management unreachable until the device reverted by itself "
                f"({dev.revert_reason() or 'commit no longer pending'})")
            return report
        if target.driver == "frr_linux":
            expected = hc.expected_adjacencies(cand, ospf_before)
            report.adjacencies = hc.wait_for(
                lambda: hc.adjacency_failures(expected, _ospf(dev)), timeout)
            dev.load_replace_candidate(config=cand)
            with _masked(values):
                left = [p for p, d in dev.compare_parts().items() if d]
            if left:
                report.device.append(f"running differs from the candidate in {', '.join(left)}")
        else:
            facts = dev.get_facts()
            if not facts.get("hostname"):
                report.device.append("device returned no facts")
    finally:
        dev.close()
    return report


def confirm(target: Target) -> None:
    dev = target.open()
    try:
        dev.confirm_commit()
    finally:
        dev.close()


def rollback(target: Target) -> None:
    dev = target.open()
    try:
        dev.rollback()
    finally:
        dev.close()


def wait_for_revert(target: Target, timeout: float, interval: float = 2.0) -> dict[str, Any]:
    """Wait until the device has no pending commit (its timer restored the backup).

    Returns ``reverted`` (True once the device says so), ``reachable`` and ``reason``.
    """
    end = time.monotonic() + timeout
    last = "not reached"
    while True:
        try:
            dev = target.open()
            try:
                if not dev.has_pending_commit():
                    why = dev.revert_reason() if hasattr(dev, "revert_reason") else None
                    return {"reverted": True, "reachable": True,
                            "reason": why or "no pending commit left on the device"}
                last = "commit still pending"
            finally:
                dev.close()
        except (ConnectionException, OSError, CommitError) as exc:
            last = f"unreachable: {exc}"
        if time.monotonic() >= end:
            return {"reverted": False, "reachable": not last.startswith("unreachable"),
                    "reason": last}
        time.sleep(interval)


def outcome(
    device: str,
    commit: dict[str, Any] | None,
    health_report: dict[str, Any] | None,
    confirmed: bool,
    revert: dict[str, Any] | None,
    error: str = "",
    check: bool = False,
    seconds: float = 0.0,
) -> DeviceResult:
    """Which config is in force on *device*, from what each step returned."""
    parts = list((commit or {}).get("parts", []))
    backup = (commit or {}).get("backup")
    if commit is None or not commit.get("committed"):
        if error:
            return DeviceResult(device, "failed-before-apply", error, parts, backup, seconds)
        if check and commit and commit.get("changed"):
            return DeviceResult(device, "check-only", "would change", parts, backup, seconds)
        return DeviceResult(device, "unchanged", "", parts, backup, seconds)
    if confirmed:
        return DeviceResult(device, "new-confirmed", "", parts, backup, seconds)
    why = []
    if health_report and not health_report.get("healthy", health_report.get("ok", False)):
        why.append("health check failed: " + str(health_report.get("reason", "")))
    if error:
        why.append(error)
    if revert and revert.get("reverted"):
        why.append(f"device: {revert.get('reason', '')}")
        return DeviceResult(device, "reverted", "; ".join(why), parts, backup, seconds)
    why.append(f"revert not confirmed by the device ({(revert or {}).get('reason', 'n/a')})")
    return DeviceResult(device, "unknown", "; ".join(why), parts, backup, seconds)


def backup_folder(build_dir: Path, network: str, device: str) -> Path:
    return backup_path(build_dir, network, device)
