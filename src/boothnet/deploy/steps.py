"""The deploy steps the Ansible modules call: one function per module, no Ansible here.

Works with any NAPALM driver through the same path: ``frr_linux`` gets the multi-part
candidate, the adjacency check and the device-side revert reason; ``ios``/``eos`` get a
single-file candidate (the build's ``<configs>/<device>.cfg``) and their own commit-confirm.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from napalm.base import get_network_driver
from napalm.base.exceptions import (
    CommitConfirmException,
    MergeConfigException,
    ReplaceConfigException,
)

from boothnet import layout
from boothnet.booth.cables import same_port
from boothnet.deploy import health as hc
from boothnet.deploy import secrets as sec
from boothnet.deploy.driver import ConfigDevice, PartsDevice
from boothnet.deploy.owned import carry_switch_owned
from boothnet.deploy.parts import CandidateError, load_parts
from boothnet.deploy.results import DeviceResult, backup_path, write_backup
from boothnet.platforms import Platform, platforms
from boothnet.poll import poll
from boothnet.readback import READ_PLATFORMS, read_config

#: Errors that mean "the device refused the candidate (or a secret is missing); nothing
#: was applied". NAPALM ios raises CommitConfirmException only before applying: no
#: `archive`, a timer out of range, or the device asking for archive.
REJECTED = (ReplaceConfigException, MergeConfigException, CommitConfirmException, CandidateError,
            sec.SecretMissing)


class MissingPorts(ReplaceConfigException):
    """The candidate configures ports the device does not have: nothing was applied."""


def missing_ports(platform: Platform, candidate: str, have: list[str]) -> list[str]:
    """Interfaces *candidate* configures that are neither created by configuring them (SVIs,
    loopbacks: the platform's logical_interfaces) nor in *have*, the device's interface list."""
    named = re.findall(r"^interface (\S+)", candidate, flags=re.M)
    return [n for n in named if not n.startswith(platform.logical_interfaces)
            and not any(same_port(n, port) for port in have)]


class PendingCommit(CommitConfirmException):
    """Another session's commit waits for its confirmation on the device: nothing was applied.
    (NAPALM ios raises CommandErrorException, eos CommitError, at that point; neither says
    whether anything was applied, so the deploy asks before it commits.)"""
PASSWORD_ENV = "BOOTHNET_DEPLOY_PASSWORD"


@dataclass
class Target:
    """How to reach one device. Secrets come from the environment or vault, never files.

    *platform* is the intent's platform name (capabilities.yml); *driver* the NAPALM driver,
    by default the platform's (a test inventory may name a driver with a recorded transport).
    """

    hostname: str
    username: str
    driver: str = ""
    password: str = ""
    optional_args: dict[str, Any] = field(default_factory=dict)
    timeout: int = 30
    platform: str = "frr_linux"
    enable_secret: str = ""

    def __post_init__(self) -> None:
        self.driver = self.driver or self.capabilities.napalm_driver

    @property
    def capabilities(self) -> Platform:
        return platforms()[self.platform]

    def identity(self) -> dict[str, Any]:
        """Which driver, over which transport, and whether a simulated device answers."""
        cls = get_network_driver(self.driver)
        transport = self.optional_args.get("transport") or self.capabilities.napalm_transport
        return {"driver": self.driver, "transport": transport, "simulated": bool(getattr(cls, "SIMULATED", False))}

    def open(self) -> Any:
        cls = get_network_driver(self.driver)
        password = self.password or os.environ.get(PASSWORD_ENV, "")
        optional = dict(self.optional_args)
        if self.enable_secret and self.capabilities.deploy.enable_secret_arg:
            optional.setdefault(self.capabilities.deploy.enable_secret_arg, self.enable_secret)
        dev = cls(self.hostname, self.username, password, timeout=self.timeout, optional_args=optional)
        dev.open()
        return dev


@dataclass
class Secrets:
    """Values for the candidate's ``${NAME}`` placeholders: *given* from the controller
    environment, *files* (``{NAME: path}``) as the fallback (a lab's generated PSK)."""

    given: Mapping[str, str | None] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)


def single_file(platform: Platform, config_dir: Path) -> Path:
    """The one config file the build writes for a device of a single-file platform (ios, eos):
    its name comes from the platform's files in capabilities.yml, e.g. ``<configs>/core1.cfg``
    for ``config_dir`` = ``<configs>/core1``."""
    (pattern,) = platform.files
    return config_dir.parent / pattern.format(device=config_dir.name)


def candidate(platform: Platform, config_dir: Path, secrets: Secrets | None = None) -> tuple[Any, dict[str, str]]:
    """The candidate to load (frr_linux: dict of parts; ios/eos: the text of the device's one
    config file) with placeholders filled in, and the secret values used.
    Raises :class:`~boothnet.deploy.secrets.SecretMissing` before any device is touched."""
    secrets = secrets or Secrets()
    multi = len(platform.files) > 1
    if multi:
        parts = load_parts(config_dir)
    else:  # ios / eos: one file, replace semantics
        parts = {"running.cfg": single_file(platform, config_dir).read_text(encoding="utf-8")}
    values = sec.resolve(parts, secrets.given, secrets.files)
    filled = sec.substitute(parts, values)
    return (filled if multi else filled["running.cfg"]), values


def model_of(config_dir: Path) -> dict[str, Any]:
    """The build's model of the device (``<build>/configs.model.json``, written beside the
    configs): what the health check expects of an IOS/EOS device."""
    models = json.loads(layout.model_of(config_dir.parent).read_text(encoding="utf-8"))
    return dict(models[config_dir.name])


def model_or_empty(config_dir: Path) -> dict[str, Any]:
    """The device's model, or nothing for a candidate folder not written by a build (a test's)."""
    try:
        return model_of(config_dir)
    except (OSError, KeyError, ValueError):
        return {}


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
        except Exception:  # an exception type with another signature
            new = RuntimeError(masked)
        raise new from None


def _ospf(dev: ConfigDevice) -> dict[str, list[dict[str, str]]]:
    return dev.get_ospf_neighbors() if isinstance(dev, PartsDevice) else {}


def _close(dev: Any) -> None:
    """Close a session that may already be gone (the case a revert timer exists for)."""
    with suppress(Exception):  # a dead transport fails to close in driver-specific ways
        dev.close()


@dataclass
class DeployRun:
    """What each step of one device's deploy returned (``outcome`` reads it)."""

    commit: dict[str, Any] | None = None
    health: dict[str, Any] | None = None
    confirmed: bool = False
    revert: dict[str, Any] | None = None
    error: str = ""

    def result(self, device: str, check: bool, seconds: float, target: Target | None = None) -> DeviceResult:
        """The device's record; with ``target``, it names the driver and transport that ran."""
        record = outcome(device, self.commit, self.health, self.confirmed, self.revert,
                         error=self.error, check=check, seconds=seconds)
        return replace(record, **target.identity()) if target else record


@dataclass
class Job:
    """One device's deploy, as the playbook gives it: the config folder, where its backup goes,
    its secrets and its timers (the revert timer, the health check's wait, the margin after the
    revert timer before the device counts as not reverted)."""

    device: str
    target: Target
    config_dir: Path
    backup_root: Path | None = None
    secrets: Secrets | None = None
    revert_in: int = 120
    health_timeout: float = 30
    revert_margin: float = 30


def deploy(job: Job, *, check: bool, session: Any = None) -> DeployRun:
    """One device, one session: load, diff, back up, commit with a revert timer, check health
    over a second session, then confirm on the first; else leave the commit unconfirmed and
    wait for the device to revert by itself. Never raises for a device problem: the run says
    what happened, and :meth:`DeployRun.result` which config is in force.

    *session*: a session to the device already open (the run's, kept for its other steps);
    it stays open. Without it the deploy opens and closes its own."""
    target, config_dir, revert_in = job.target, job.config_dir, job.revert_in
    run = DeployRun()
    prepared = _prepare(target, config_dir, revert_in, job.secrets)
    if isinstance(prepared, str):
        run.error = prepared
        return run
    cand, values = prepared
    masked = lambda exc: sec.mask(f"{exc}", values.values())  # noqa: E731
    try:
        dev = session or target.open()
    except Exception as exc:  # every driver has its own connect errors
        run.error = f"unreachable before apply: {masked(exc)}"
        return run
    try:
        try:
            cand, carried = _with_switch_owned(dev, target, cand)
            run.commit = _load_and_commit(dev, target, cand, values, revert_in, check, job.backup_root, job.device)
            run.commit["carried"] = carried
        except REJECTED as exc:
            run.error = f"rejected before apply: {masked(exc)}"
            return run
        except _CommitUnknown as exc:
            # the commit may have reached the device: only its own timer can undo it now
            run.commit, run.error = exc.partial, f"commit interrupted: {masked(exc.__cause__)}"
        except Exception as exc:  # before the commit: nothing was applied
            run.error = f"failed before apply: {type(exc).__name__}: {masked(exc)}"
            return run
        else:
            if not run.commit["committed"]:
                return run
            _confirm_if_healthy(run, dev, health(target, config_dir, cand, values, run.commit["ospf_before"],
                                                 job.health_timeout), masked)
        if not run.confirmed:
            run.revert = wait_for_revert(target, revert_in + job.revert_margin)
        return run
    finally:
        if session is None:
            _close(dev)


def _with_switch_owned(dev: ConfigDevice, target: Target, cand: Any) -> tuple[Any, list[str]]:
    """The candidate with what the switch keeps of its own (boothnet.deploy.owned), read from its
    running config now, and the sections carried."""
    owned = target.capabilities.switch_owned
    if not owned or not isinstance(cand, str):
        return cand, []
    return carry_switch_owned(cand, dev.get_config(retrieve="running")["running"], owned)


def _prepare(target: Target, config_dir: Path, revert_in: int, secrets: Secrets | None
             ) -> tuple[Any, Mapping[str, str]] | str:
    """The candidate and its secrets' values, or why the deploy stops before touching the device."""
    problem = target.capabilities.revert_in_problem(revert_in)
    if problem:
        return f"refused before any change: {problem}"
    try:
        cand, values = candidate(target.capabilities, config_dir, secrets)
    except REJECTED as exc:
        return f"rejected before apply: {exc}"
    lockout = access_lost(target, cand)
    return f"refused before any change: {lockout}" if lockout else (cand, values)


def access_lost(target: Target, cand: Any) -> str | None:
    """Why committing *cand* (a full replace) would shut this deploy out of the device, or None:
    its user, and the transport it came in by, must be in the candidate (docs/deploy.md)."""
    if not isinstance(cand, str) or target.platform not in READ_PLATFORMS:
        return None
    access = read_config(cand, target.platform, target.hostname).access
    transport = target.optional_args.get("transport") or target.capabilities.napalm_transport
    needs = {"a privilege-15 user " + repr(target.username): target.username in access.users,
             "SSH logins (IOS: aaa authentication login default local, line vty with transport input ssh)":
                 access.ssh or transport != "ssh",
             "eAPI (management api http-commands, no shutdown)": access.eapi or transport != "https",
             "the SCP server (ip scp server enable with aaa authorization exec default local), which NAPALM ios "
                 "copies the candidate with":
                 access.scp or target.platform != "cisco_ios"}
    missing = [what for what, present in needs.items() if not present]
    if not missing:
        return None
    return (f"the candidate would lock this deploy out of {target.hostname}: it has no {', no '.join(missing)} "
            f"(a full replace removes what the candidate lacks; users it has: {', '.join(access.users) or 'none'}; "
            "network.management in the intent)")


def _confirm_if_healthy(run: DeployRun, dev: ConfigDevice, report: hc.HealthReport,
                        masked: Callable[[BaseException], str]) -> None:
    run.health = {"healthy": report.ok, "reason": report.reason, **report.as_dict()}
    if report.ok:
        try:
            dev.confirm_commit()
            run.confirmed = True
        except Exception as exc:  # the session died after the commit
            run.error = f"session lost before confirming: {masked(exc)}"


class _CommitUnknown(Exception):
    def __init__(self, partial: dict[str, Any]) -> None:
        super().__init__("commit interrupted")
        self.partial = partial


def _load_and_commit(
    dev: ConfigDevice,
    target: Target,
    cand: Any,
    values: Mapping[str, str],
    revert_in: int,
    check: bool,
    backup_root: Path | None,
    device: str,
) -> dict[str, Any]:
    """Load, diff and (unless *check* or no diff) commit with a revert timer.

    Returns ``changed``, ``diff``, ``parts`` (changed part names), ``committed``,
    ``backup`` (controller folder) and ``ospf_before`` (for the health check).
    Raises a :data:`REJECTED` error when the device refuses the candidate, and
    :class:`_CommitUnknown` when the commit itself fails in a way that may have applied it.
    Secret values never leave in the diff or the backup.
    """
    dev.load_replace_candidate(config=cand)
    per_part = _masked_diff(dev, values)
    diff = "".join(per_part.values())
    out: dict[str, Any] = {"changed": bool(diff), "diff": diff, "parts": sorted(per_part),
                           "committed": False, "backup": None, "ospf_before": {}}
    if diff and not isinstance(dev, PartsDevice):
        _refuse_missing_ports(dev, target, cand, device)
    if check or not diff:
        dev.discard_config()
        return out
    out["ospf_before"] = _ospf(dev)
    takes_own_backup = isinstance(dev, PartsDevice)  # while committing
    if dev.has_pending_commit():
        dev.discard_config()
        raise PendingCommit(f"a commit is already pending on {device or target.hostname} (another session's "
                            "commit-confirm): nothing applied; confirm it or let it revert, then deploy again")
    running = None if takes_own_backup else {"running.cfg": dev.get_config(retrieve="running")["running"]}
    message = {"message": f"boothnet deploy {device}"} if target.capabilities.deploy.commit_message else {}
    try:
        dev.commit_config(revert_in=revert_in, **message)
    except REJECTED:
        raise
    except Exception as exc:
        out["committed"] = True
        raise _CommitUnknown(out) from exc
    out["committed"] = True
    if takes_own_backup:
        running = dev.last_backup  # type: ignore[attr-defined]  # set by a PartsDevice's commit (driver.py)
    if backup_root is not None:
        assert running is not None  # read before the commit, or the device's own backup
        # the device keeps its own unmasked backup for the revert; this one is a record
        folder = write_backup(backup_root, sec.mask_parts(running, values.values()))
        (folder / "changes.diff").write_text(diff, encoding="utf-8")
        out["backup"] = str(folder)
    return out


def _masked_diff(dev: ConfigDevice, values: Mapping[str, str]) -> dict[str, str]:
    """The loaded candidate's diff per changed part (one part, "config", where the device has no
    parts), its secrets masked."""
    if isinstance(dev, PartsDevice):
        # compared on the filled-in text (idempotent), shown masked
        return {k: sec.mask(v, values.values()) for k, v in dev.compare_parts().items() if v}
    diff = sec.mask(dev.compare_config(), values.values())
    return {"config": diff} if diff else {}


def _refuse_missing_ports(dev: ConfigDevice, target: Target, cand: Any, device: str) -> None:
    missing = missing_ports(target.capabilities, cand, list(dev.get_interfaces()))
    if missing:
        dev.discard_config()
        raise MissingPorts(f"{device or target.hostname} has no port {', '.join(missing)}: the candidate "
                           "configures it, the device's interface list does not have it (a port name "
                           "wrong in the intent's host_vars, or another switch model)")


def health(
    target: Target, config_dir: Path, cand: Any, values: Mapping[str, str],
    ospf_before: dict[str, list[dict[str, str]]], timeout: float,
) -> hc.HealthReport:
    """The health report after a commit, over a *new* session (so management is really tested);
    *cand* and *values*: the filled-in candidate and its secrets, as committed."""
    report = hc.HealthReport()
    try:
        dev: ConfigDevice = target.open()
    except Exception as exc:  # every driver has its own connect errors
        report.management.append(f"management unreachable after commit: {sec.mask(str(exc), values.values())}")
        return report
    try:
        if isinstance(dev, PartsDevice) and not dev.has_pending_commit():
            # Reached only once the timer had restored the backup: new sessions were cut.
            report.management.append(
                "management unreachable until the device reverted by itself "
                f"({dev.revert_reason() or 'commit no longer pending'})")
            return report
        if isinstance(dev, PartsDevice):  # expectations from the candidate and the intent's adjacencies
            intended = hc.intended_neighbors(model_or_empty(config_dir))
            expected = hc.expected_adjacencies(cand, ospf_before)
            report.adjacencies = hc.wait_for(
                lambda: hc.adjacency_failures(expected, _ospf(dev), intended), timeout, clock=time.monotonic,
                sleep=time.sleep)
            dev.load_replace_candidate(config=cand)
            with _masked(values):
                left = [p for p, d in dev.compare_parts().items() if d]
            if left:
                report.device.append(f"running differs from the candidate in {', '.join(left)}")
        else:
            _hardware_health(dev, target.capabilities, config_dir, cand, timeout, report)
    except Exception as exc:  # a session that dies mid-check is a failed check
        report.management.append(f"health check session failed: {sec.mask(str(exc), values.values())}")
    finally:
        _close(dev)
    return report


OSPF_NEIGHBORS = "show ip ospf neighbor"


def _hardware_health(
    dev: Any, platform: Platform, config_dir: Path, cand: str, timeout: float, report: hc.HealthReport,
) -> None:
    """IOS/EOS: the intent's interfaces up, its OSPF neighbors Full (the drivers have no
    OSPF getter: ntc-templates parses the CLI), and nothing left between running and candidate."""
    model = model_of(config_dir)
    expected, intended = hc.expected_from_model(model), hc.intended_neighbors(model)
    if not dev.get_facts().get("hostname"):
        report.device.append("device returned no facts")
    report.interfaces = hc.interface_failures(expected.interfaces_up, dev.get_interfaces())

    def ospf_failures() -> list[str]:
        text = dev.cli([OSPF_NEIGHBORS])[OSPF_NEIGHBORS]
        return hc.adjacency_failures(set(expected.ospf_full),
                                     hc.ospf_neighbors_from_cli(platform.netmiko_device_type, text), intended)

    if expected.ospf_full:
        report.adjacencies = hc.wait_for(ospf_failures, timeout, clock=time.monotonic, sleep=time.sleep)
    dev.load_replace_candidate(config=cand)
    try:
        left = dev.compare_config()
    finally:
        dev.discard_config()
    if left:
        # the changed lines, not a diff's headers and context
        lines = left.splitlines()
        changed = [line for line in lines if line[:1] in "+-" and not line.startswith(("+++", "---"))] or lines
        report.device.append(f"running differs from the candidate after the commit: {'; '.join(changed[:3])}")


def wait_for_revert(target: Target, timeout: float, interval: float = 2.0) -> dict[str, Any]:
    """Wait until the device has no pending commit (its timer restored the backup).

    Returns ``reverted`` (True once the device says so), ``reachable`` and ``reason``.
    """
    def ask() -> dict[str, Any]:
        try:
            dev = target.open()
            try:
                if not dev.has_pending_commit():
                    why = dev.revert_reason() if isinstance(dev, PartsDevice) else None
                    why = why or "no pending commit left on the device"
                    return {"reverted": True, "reachable": True, "reason": why}
                return {"reverted": False, "reachable": True, "reason": "commit still pending"}
            finally:
                dev.close()
        except Exception as exc:  # every driver has its own connect errors
            return {"reverted": False, "reachable": False, "reason": f"unreachable: {exc}"}

    return poll(ask, lambda answer: answer["reverted"], timeout, interval, clock=time.monotonic, sleep=time.sleep)


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
