"""How FrrLinuxDriver works on the device: commands on exec channels as root, files written
0600, batches of both on one channel, and the scripts it ships (``scripts/``, kept as files)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from napalm.base.exceptions import CommitError
from napalm_device_types.channel import CommandResult

from boothnet.deploy import ifstate

SCRIPTS = Path(__file__).parent / "scripts"
_IFSTATE_SOURCE = Path(ifstate.__file__)
_OSPF_UP_SOURCE = SCRIPTS / "ospf_up.py"
# One exec channel for many steps: clear folders, write files, run commands (scripts/batch.py)
_BATCH_PY = (SCRIPTS / "batch.py").read_text(encoding="utf-8")
# Applies the parts present in folder $1. "strict" stops at the first failure (a commit,
# whose caller then restores the backup); "best-effort" applies every part it can (a
# revert must bring back as much as possible even if one part fails).
_APPLY_SH = (SCRIPTS / "apply.sh").read_text(encoding="utf-8")
# The commit-confirm timer, started with setsid so it survives the SSH session.
_REVERT_SH = (SCRIPTS / "revert.sh").read_text(encoding="utf-8")


class DeviceShell:
    """Commands and files on the device, for FrrLinuxDriver (a napalm-linux LinuxDriver)."""

    hostname: str
    state_dir: str
    python: str
    frr_reload: str
    pathspace: str | None
    frr_conf_path: str
    swanctl_conf: str
    swanctl_uri: str | None
    strongswan_conf: str | None
    _tools_ready: bool

    if TYPE_CHECKING:  # napalm-linux's LinuxDriver, beside this mixin in FrrLinuxDriver
        def run_command(self, command: str, **kw: Any) -> Any: ...
        def _is_root(self) -> bool: ...
        def _install_file_as_root(self, path: str, text: str) -> Any: ...

    def _sh(self, command: str, *, stdin: str | None = None, timeout: float = 120) -> Any:
        """Run *command* as root on an exec channel (real exit status, stderr apart)."""
        return self.run_command(
            command,
            privileged=True,
            timeout=timeout,
            stdin=stdin.encode() if stdin is not None else None,
        )

    def _must(self, command: str, what: str, **kw: Any) -> str:
        return self._ok(self._sh(command, **kw), what)

    def _put(self, path: str, text: str) -> None:
        """Write *text* to *path* on the device (as root; parents created)."""
        q = shlex.quote(path)
        if self._is_root():
            # 0600: candidate parts may hold secrets (swanctl.conf's filled-in PSK)
            cmd = f"umask 077 && mkdir -p \"$(dirname {q})\" && cat > {q}.tmp && mv -f {q}.tmp {q}"
            self._must(cmd, f"writing {path}", stdin=text)
            return
        self._must(f"mkdir -p \"$(dirname {q})\"", f"creating the folder of {path}")
        r = self._install_file_as_root(path, text)
        if r.exit_code != 0:
            raise CommitError(f"{self.hostname}: writing {path} failed: {_err(r)}")

    def _batch(
        self, files: Mapping[str, str], commands: Mapping[str, str], clear: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        """Clear *clear*, write *files* and run *commands* (name -> shell line) in order, as
        root: one exec channel as root, step by step over sudo. Results by name."""
        if not self._is_root():
            for folder in clear:
                self._must(f"rm -rf {shlex.quote(folder)}", f"clearing {folder}")
            for path, text in files.items():
                self._put(path, text)
            return {name: self._sh(cmd) for name, cmd in commands.items()}
        job = json.dumps({"clear": list(clear), "files": dict(files), "commands": list(commands.items())})
        out = self._must(f"{self.python} -c {shlex.quote(_BATCH_PY)}", "running a batch", stdin=job)
        return {name: CommandResult(stdout, stderr, code)
                for name, (code, stdout, stderr) in json.loads(out).items()}

    def _sd(self, *rel: str) -> str:
        return "/".join([self.state_dir, *rel])

    def _ensure_tools(self) -> None:
        """Ship the helper and the scripts (idempotent; once per session)."""
        if not self._tools_ready:
            self._batch(self._tools(), {})
            self._tools_ready = True

    def _tools(self) -> dict[str, str]:
        """The helper and the scripts, by their path on the device."""
        swan_env = f"STRONGSWAN_CONF={shlex.quote(self.strongswan_conf)}" if (
            self.strongswan_conf) else ""
        subs = {
            "@SD@": shlex.quote(self.state_dir),
            "@PYTHON@": shlex.quote(self.python),
            "@FRR_RELOAD@": shlex.quote(self.frr_reload),
            "@PATHSPACE_ARG@": f"--pathspace {shlex.quote(self.pathspace)}"
            if self.pathspace
            else "",
            "@PATHSPACE@": shlex.quote(self.pathspace or ""),
            "@FRR_CONF@": shlex.quote(self.frr_conf_path),
            "@SWANCTL_CONF@": shlex.quote(self.swanctl_conf),
            "@SWAN_URI@": f"--uri {shlex.quote(self.swanctl_uri)}" if self.swanctl_uri else "",
            "@SWAN_ENV@": swan_env,
        }
        return {
            self._sd("bin", "ifstate.py"): _IFSTATE_SOURCE.read_text(encoding="utf-8"),
            self._sd("bin", "ospf_up.py"): _OSPF_UP_SOURCE.read_text(encoding="utf-8"),
            self._sd("bin", "apply.sh"): _subst(_APPLY_SH, subs),
            self._sd("bin", "revert.sh"): _subst(_REVERT_SH, subs),
        }

    # ------------------------------------------------------------------ running state

    def _ok(self, result: Any, what: str) -> str:
        """The stdout of a command that ran (alone or in a batch), or CommitError naming *what*."""
        if result.exit_code != 0:
            raise CommitError(f"{self.hostname}: {what} failed: {_err(result)}")
        return str(result.stdout)



def _err(result: Any) -> str:
    text = (str(result.stderr).strip() or str(result.stdout).strip())
    return text or f"exit status {result.exit_code}"


def _subst(template: str, subs: Mapping[str, str]) -> str:
    for key, value in subs.items():
        template = template.replace(key, value)
    return template


