"""The commit-confirm timer of FrrLinuxDriver, on the device: armed before a commit applies,
it restores the backup unless confirm_commit takes ``pending`` first (scripts/revert.sh)."""

from __future__ import annotations

import json
import shlex
import time

from napalm.base.exceptions import CommitConfirmException, CommitError

from boothnet.deploy.frr_linux.shell import DeviceShell, _err


class RevertTimer(DeviceShell):
    """Arm, disarm, confirm and roll back; what the timer did and why."""

    def _arm(self, seconds: int, message: str) -> None:
        info = json.dumps({"armed": time.time(), "revert_in": seconds, "message": message})
        self._put(self._sd("pending"), info + "\n")
        sd = shlex.quote(self.state_dir)
        self._must(
            f"rm -f {sd}/reverted {sd}/pending.pid; "
            f"setsid -f sh {sd}/bin/revert.sh {seconds} </dev/null >{sd}/timer.log 2>&1; "
            f"for i in $(seq 50); do [ -s {sd}/pending.pid ] && exit 0; sleep 0.05; done; "
            "echo 'revert timer did not start' >&2; exit 1",
            "arming the revert timer",
        )

    def _disarm(self, marker: str = "confirmed") -> bool:
        """Take ``pending`` from the timer and stop it; False if the timer took it first."""
        sd = shlex.quote(self.state_dir)
        r = self._sh(
            f"mv {sd}/pending {sd}/{marker} 2>/dev/null || exit 3; "
            f"p=$(cat {sd}/pending.pid 2>/dev/null); [ -n \"$p\" ] && kill -TERM -- -$p "
            f"2>/dev/null; rm -f {sd}/pending.pid; exit 0"
        )
        return bool(r.exit_code == 0)

    def has_pending_commit(self) -> bool:
        sd = shlex.quote(self.state_dir)
        # "reverting": the timer took the commit and is restoring the backup right now.
        r = self._sh(f"[ -e {sd}/reverting ] || {{ [ -e {sd}/pending ] && "
                     f"kill -0 $(cat {sd}/pending.pid) 2>/dev/null; }}")
        return bool(r.exit_code == 0)

    def confirm_commit(self) -> None:
        if not self._disarm("confirmed"):
            why = self.revert_reason() or "no commit is pending"
            raise CommitConfirmException(f"{self.hostname}: cannot confirm: {why}")

    def revert_reason(self) -> str | None:
        """Why the timer last restored the backup, if it did since the last commit."""
        r = self._sh(f"cat {shlex.quote(self._sd('reverted'))} 2>/dev/null")
        return r.stdout.strip() or None if r.exit_code == 0 else None

    def rollback(self) -> None:
        """Restore the backup taken by the last commit (stopping a pending timer first)."""
        self._ensure_tools()
        self._disarm("rolledback")
        b = shlex.quote(self._sd("backup"))
        r = self._sh(f"[ -d {b} ] || {{ echo 'no backup to roll back to' >&2; exit 1; }}; "
                     f"sh {self._sd('bin', 'apply.sh')} {b} best-effort", timeout=300)
        if r.exit_code != 0:
            raise CommitError(f"{self.hostname}: rollback: {_err(r)}")

    # ------------------------------------------------------------------ getters

