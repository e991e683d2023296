"""NAPALM driver for ``frr_linux``: Linux + FRR + nftables + strongSwan, over SSH.

Builds on napalm-linux's :class:`LinuxDriver` (its SSH connection, exec channels and
getters) and adds config management on a four-part candidate (see
:mod:`boothnet.deploy.parts`). Everything that must outlive the SSH session lives on the
device under ``state_dir``::

    bin/ifstate.py   interface state helper (this package's stdlib-only module)
    bin/apply.sh     applies a folder of parts: strict (commit) or best-effort (revert)
    bin/revert.sh    the commit-confirm timer
    candidate/       the parts being committed
    backup/          the running parts taken just before the last commit (+ ``scope``)
    pending          present while a commit awaits confirmation; the timer and
                     confirm_commit race for it with an atomic rename
    reverted         why and when the timer last restored the backup

optional_args (besides napalm-linux's and netmiko's, e.g. ``key_file``):
``pathspace`` (FRR ``-N``), ``state_dir``, ``frr_conf_path``, ``frr_reload``,
``swanctl_conf``, ``swanctl_uri``, ``strongswan_conf``, ``known_hosts`` (an OpenSSH
known_hosts file: the host's key is required, never trusted on first use), ``netns``
(informational), ``python`` (device interpreter for the helper), ``lldp_socket`` (lldpd's
control socket, for a device that runs more than one lldpd: each lab node has its own).
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from napalm.base.exceptions import (
    CommitConfirmException,
    CommitError,
    ConnectionException,
    MergeConfigException,
    ReplaceConfigException,
)
from napalm_device_types.channel import CommandResult
from napalm_linux import LinuxDriver

from boothnet.booth.lldp import parse_lldpcli
from boothnet.deploy import ifstate
from boothnet.deploy.known_hosts import host_keys
from boothnet.deploy.parts import (
    FRR,
    INTERFACES,
    NFT,
    PARTS,
    SWANCTL,
    CandidateError,
    frr_running_as_file,
    load_parts,
    normalize_frr,
    normalize_nft,
    normalize_text,
    unified,
)

_IFSTATE_SOURCE = Path(ifstate.__file__)

# One exec channel for many steps (each channel costs about 0.1 s on a lab node): clear
# folders, write files (0600: candidate parts may hold the filled-in PSK), run commands;
# prints {name: [exit, stdout, stderr]}.
_BATCH_PY = r"""
import json, os, shutil, subprocess, sys
job = json.load(sys.stdin)
os.umask(0o077)
for d in job["clear"]:
    shutil.rmtree(d, ignore_errors=True)
for path, text in job["files"].items():
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
out = {}
for name, cmd in job["commands"]:
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    out[name] = [r.returncode, r.stdout, r.stderr]
print(json.dumps(out))
"""

# Applies the parts present in folder $1. "strict" stops at the first failure (a commit,
# whose caller then restores the backup); "best-effort" applies every part it can (a
# revert must bring back as much as possible even if one part fails).
_APPLY_SH = r"""#!/bin/sh
# boothnet: apply the frr_linux parts in folder $1 ($2 = strict | best-effort)
dir=$1; mode=$2; rc=0
step() { if ! "$@"; then rc=1; echo "boothnet-apply: failed: $*" >&2;
         [ "$mode" = strict ] && exit 1; fi; }
if [ -f "$dir/interfaces.ip" ]; then
  scope=$(cat "$dir/scope" 2>/dev/null)
  step @PYTHON@ @SD@/bin/ifstate.py apply "$dir/interfaces.ip" --scope "$scope"
fi
[ -f "$dir/nftables.nft" ] && step nft -f "$dir/nftables.nft"
if [ -f "$dir/frr.conf" ]; then
  step @PYTHON@ @FRR_RELOAD@ --reload --stdout --log-level error @PATHSPACE_ARG@ "$dir/frr.conf"
  step install -m 640 -o frr -g frr "$dir/frr.conf" @FRR_CONF@
fi
if [ -f "$dir/swanctl.conf" ]; then
  step install -D -m 600 "$dir/swanctl.conf" @SWANCTL_CONF@
  step env @SWAN_ENV@ swanctl --load-all --noprompt --file @SWANCTL_CONF@ @SWAN_URI@
fi
exit $rc
"""

# The commit-confirm timer, started with setsid so it survives the SSH session.
_REVERT_SH = r"""#!/bin/sh
# boothnet: restore backup/ after $1 seconds unless confirm_commit takes "pending" first
sd=@SD@
echo $$ > "$sd/pending.pid"
sleep "$1"
mv "$sd/pending" "$sd/reverting" 2>/dev/null || exit 0
sh "$sd/bin/apply.sh" "$sd/backup" best-effort > "$sd/revert.log" 2>&1
echo "reverted at $(date -u +%Y-%m-%dT%H:%M:%SZ): not confirmed within $1 s (apply rc=$?)" \
  > "$sd/reverted"
rm -f "$sd/reverting" "$sd/pending.pid"
"""


# The hashes of a candidate frr.conf and of a running config that frr-reload found equal (state_dir
# file), and the lines the compare prints about them.
FRR_VERIFIED = "frr.verified"
FRR_PAIR = "boothnet-frr-pair: "
FRR_SAME = "boothnet: frr.conf and the running config found equal before"

# Which of FrrLinuxDriver._commands each part needs: to read what runs, to diff a
# candidate against it, to check a candidate with the device's own tools.
_RUNNING = {INTERFACES: ("scope", "links"), NFT: ("nft_running",), FRR: ("frr_running",), SWANCTL: ("swanctl",)}
_DIFF = {NFT: ("nft_candidate",), FRR: ("frr_check", "frr_plan")}
_CHECK = {INTERFACES: ("ifstate_check",), NFT: ("nft_check",), FRR: ("frr_check",)}


class FrrLinuxDriver(LinuxDriver):  # type: ignore[misc]
    """NAPALM driver for Linux routers running FRR, nftables and strongSwan."""

    DRIVER_NAME = "frr_linux"
    TYPE_LABEL = "FRR on Linux"

    def __init__(
        self,
        hostname: str,
        username: str,
        password: str = "",
        timeout: int = 60,
        optional_args: dict[str, Any] | None = None,
    ) -> None:
        args = dict(optional_args or {})
        port = int(args.get("port", 22))
        if args.get("known_hosts"):
            try:
                args.setdefault("ssh_host_keys", host_keys(args["known_hosts"], hostname, port))
            except (OSError, LookupError) as exc:
                raise ConnectionException(f"{hostname}: {exc}") from exc
        if args.get("key_file"):
            args.setdefault("use_keys", True)
            args.setdefault("allow_agent", False)
        super().__init__(hostname, username, password, timeout, args)
        self.pathspace: str | None = args.get("pathspace") or None
        self.netns: str | None = args.get("netns")
        self.state_dir: str = args.get("state_dir") or (
            f"/var/lib/boothnet/{self.pathspace or 'default'}"
        )
        self.frr_conf_path: str = args.get("frr_conf_path") or (
            f"/etc/frr/{self.pathspace}/frr.conf" if self.pathspace else "/etc/frr/frr.conf"
        )
        self.frr_reload: str = args.get("frr_reload", "/usr/lib/frr/frr-reload.py")
        self.swanctl_conf: str = args.get("swanctl_conf", "/etc/swanctl/swanctl.conf")
        self.swanctl_uri: str | None = args.get("swanctl_uri")
        self.strongswan_conf: str | None = args.get("strongswan_conf")
        self.python: str = args.get("python", "python3")
        self.lldp_socket: str | None = args.get("lldp_socket")
        self._candidate: dict[str, str] | None = None
        self._tools_ready = False

    # ------------------------------------------------------------------ plumbing

    def open(self) -> None:
        super().open()
        self._tools_ready = False

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
            "@FRR_CONF@": shlex.quote(self.frr_conf_path),
            "@SWANCTL_CONF@": shlex.quote(self.swanctl_conf),
            "@SWAN_URI@": f"--uri {shlex.quote(self.swanctl_uri)}" if self.swanctl_uri else "",
            "@SWAN_ENV@": swan_env,
        }
        return {
            self._sd("bin", "ifstate.py"): _IFSTATE_SOURCE.read_text(encoding="utf-8"),
            self._sd("bin", "apply.sh"): _subst(_APPLY_SH, subs),
            self._sd("bin", "revert.sh"): _subst(_REVERT_SH, subs),
        }

    # ------------------------------------------------------------------ running state

    def _commands(self, folder: str) -> dict[str, str]:
        """Every command a compare, a check or a backup runs, by name (see _RUNNING, _DIFF,
        _CHECK for which part needs which); *folder* holds the staged candidate."""
        ps = shlex.quote(self.pathspace) if self.pathspace else ""
        vtysh = f"vtysh -N {ps}" if ps else "vtysh"
        verified = shlex.quote(self._sd(FRR_VERIFIED))
        return {
            "scope": f"cat {shlex.quote(self._sd('applied.scope'))} 2>/dev/null || true",
            "links": "ip -j -d link show && echo '\x1e' && ip -j addr show",
            "frr_running": f"{vtysh} -c 'show running-config'",
            "nft_running": "nft -s list ruleset",
            "swanctl": f"cat {shlex.quote(self.swanctl_conf)} 2>/dev/null || true",
            # nft: the candidate loaded into a throwaway network namespace and listed back by
            # the same kernel and nft, so both sides print in nft's canonical form
            "nft_candidate": f"unshare -n sh -c 'nft -f {folder}/{NFT} && nft -s list ruleset'",
            # frr-reload decides *whether* FRR would change (it knows FRR's defaults and
            # command forms); the diff shown is of the normalized texts, for a human
            # ... unless this very candidate was found equal to this very running config before
            # (the last compare, or the health check's after the commit): frr-reload is the
            # slowest step of a no-change deploy
            "frr_plan": f"pair=\"$(sha256sum < {folder}/{FRR} | cut -c1-64) $({vtysh} -c 'show running-config' "
                        f"| sha256sum | cut -c1-64)\"; echo \"{FRR_PAIR}$pair\"; "
                        f"[ \"$(cat {verified} 2>/dev/null)\" = \"$pair\" ] && echo '{FRR_SAME}' && exit 0; "
                        f"{self.python} {self.frr_reload} --test {'--pathspace ' + ps + ' ' if ps else ''}"
                        f"{folder}/{FRR} 2>/dev/null",
            "frr_check": f"{vtysh} -C -f {folder}/{FRR}",
            "nft_check": f"nft -c -f {folder}/{NFT}",
            "ifstate_check": f"{self.python} {self._sd('bin', 'ifstate.py')} apply --dry-run "
                             f"{folder}/{INTERFACES} --scope \"$(cat {folder}/scope)\"",
        }

    def _pick(self, folder: str, parts: tuple[str, ...] | Mapping[str, str], *uses: Mapping[str, tuple[str, ...]]
              ) -> dict[str, str]:
        names = {name for use in uses for part in parts for name in use.get(part, ())}
        return {k: v for k, v in self._commands(folder).items() if k in names}

    def _ok(self, result: Any, what: str) -> str:
        """The stdout of a command that ran (alone or in a batch), or CommitError naming *what*."""
        if result.exit_code != 0:
            raise CommitError(f"{self.hostname}: {what} failed: {_err(result)}")
        return str(result.stdout)

    def _running_ifstate(self, r: Mapping[str, Any]) -> ifstate.State:
        links, addrs = self._ok(r["links"], "ip -j").split("\x1e")
        return ifstate.from_ip_json(json.loads(links), json.loads(addrs))

    def _running_from(self, r: Mapping[str, Any], parts: tuple[str, ...]) -> dict[str, str]:
        """The running state of each part, as a loadable file, from a batch's results."""
        out: dict[str, str] = {}
        for part in parts:
            if part == INTERFACES:
                # dropping an interface from the intent still removes it: the last commit's
                # interfaces count with the candidate's
                names = set(r["scope"].stdout.split()) | set(
                    ifstate.parse_batch((self._candidate or {}).get(INTERFACES, "")))
                out[part] = ifstate.render_batch(ifstate.snapshot(self._running_ifstate(r), names))
            elif part == FRR:
                out[part] = frr_running_as_file(self._ok(r["frr_running"], "vtysh show running-config"))
            elif part == NFT:
                out[part] = "flush ruleset\n" + self._ok(r["nft_running"], "nft list")
            elif part == SWANCTL:
                out[part] = str(r["swanctl"].stdout)
        return out

    def get_running_parts(self, parts: tuple[str, ...] = PARTS) -> dict[str, str]:
        """The running state of each part, as a loadable file (what a backup keeps)."""
        return self._running_from(self._batch({}, self._pick("", parts, _RUNNING)), parts)

    def get_config(
        self, retrieve: str = "all", full: bool = False, sanitized: bool = False
    ) -> dict[str, str]:
        parts = tuple(self._candidate) if self._candidate else (INTERFACES, FRR, NFT)
        running = self.get_running_parts(parts) if retrieve in ("all", "running") else {}
        cand = self._candidate if retrieve in ("all", "candidate") and self._candidate else {}
        return {"running": _joined(running), "startup": "", "candidate": _joined(cand)}

    # ------------------------------------------------------------------ candidate

    def load_replace_candidate(
        self, filename: str | None = None, config: Mapping[str, str] | str | None = None
    ) -> None:
        """Load a candidate folder (*filename*) or a dict part -> text (*config*)."""
        source: Any = filename if filename is not None else config
        if source is None:
            raise ReplaceConfigException("give a candidate folder or a dict of parts")
        if isinstance(source, str) and config is not None:
            raise ReplaceConfigException(
                "frr_linux candidates have several parts: pass a folder as filename, "
                "or config as a dict {'frr.conf': ..., 'interfaces.ip': ...}"
            )
        try:
            parts = load_parts(source)
            if INTERFACES in parts:
                ifstate.parse_batch(parts[INTERFACES])
        except (CandidateError, ifstate.IfStateError, OSError) as exc:
            raise ReplaceConfigException(f"{self.hostname}: {exc}") from exc
        self._candidate = parts

    def load_merge_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        raise MergeConfigException(
            "frr_linux supports only replace: the rendered candidate is the full intended "
            "state of each part; use load_replace_candidate"
        )

    def discard_config(self) -> None:
        self._candidate = None

    def _need_candidate(self) -> dict[str, str]:
        if not self._candidate:
            raise ReplaceConfigException("no candidate loaded (load_replace_candidate first)")
        return self._candidate

    def _stage(self, folder: str, commands: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The candidate's parts (and the interface scope) in *folder* on the device, the
        tools if this session has not shipped them, then *commands*: one batch."""
        cand = self._need_candidate()
        files = {} if self._tools_ready else self._tools()
        files.update({f"{folder}/{part}": text for part, text in cand.items()})
        steps: dict[str, str] = {}
        if INTERFACES in cand:
            # the interfaces the last commit managed and the candidate's, sorted, one line
            names = " ".join(shlex.quote(n) for n in sorted(ifstate.parse_batch(cand[INTERFACES])))
            steps["_scope"] = (
                f"{{ cat {shlex.quote(self._sd('applied.scope'))} 2>/dev/null; printf '%s\\n' {names}; }} "
                f"| tr -s ' ' '\\n' | sed '/^$/d' | LC_ALL=C sort -u | paste -sd' ' > {folder}/scope")
        out = self._batch(files, {**steps, **(commands or {})}, clear=(folder,))
        if "_scope" in out and out["_scope"].exit_code != 0:
            raise CommitError(f"{self.hostname}: writing {folder}/scope failed: {_err(out['_scope'])}")
        self._tools_ready = True
        return out

    # ------------------------------------------------------------------ diff

    def compare_parts(self) -> dict[str, str]:
        """A unified diff per candidate part against what is running (empty when equal):
        the candidate staged and every command the diffs need run in one batch."""
        cand = self._need_candidate()
        folder = self._sd("compare")
        r = self._stage(folder, self._pick(folder, cand, _RUNNING, _DIFF))
        return {part: getattr(self, "_diff_" + part.split(".")[0])(text, r) for part, text in cand.items()}

    def compare_config(self) -> str:
        return "".join(d for d in self.compare_parts().values() if d)

    def _diff_interfaces(self, text: str, r: Mapping[str, Any]) -> str:
        target = ifstate.parse_batch(text)
        running = ifstate.restrict(self._running_ifstate(r), target, set(r["scope"].stdout.split()))
        return unified(INTERFACES, ifstate.render_batch(running), ifstate.render_batch(target))

    def _diff_frr(self, text: str, r: Mapping[str, Any]) -> str:
        self._rejected(r, FRR)
        if r["frr_plan"].exit_code != 0:
            raise ReplaceConfigException(f"{self.hostname}: frr-reload --test: {_err(r['frr_plan'])}")
        plan = str(r["frr_plan"].stdout)
        if FRR_SAME in plan:
            return ""
        if not _frr_plan_has_changes(plan):
            # remembered: the next compare of the same pair skips frr-reload
            pair = next(line[len(FRR_PAIR):] for line in plan.splitlines() if line.startswith(FRR_PAIR))
            self._put(self._sd(FRR_VERIFIED), pair + "\n")
            return ""
        running = normalize_frr(self._ok(r["frr_running"], "vtysh show running-config"))
        return unified(FRR, running, normalize_frr(text))

    def _diff_nftables(self, text: str, r: Mapping[str, Any]) -> str:
        if r["nft_candidate"].exit_code != 0:
            raise ReplaceConfigException(f"{self.hostname}: {NFT} rejected: {_err(r['nft_candidate'])}")
        running = self._ok(r["nft_running"], "nft list ruleset")
        return unified(NFT, normalize_nft(running), normalize_nft(r["nft_candidate"].stdout))

    def _diff_swanctl(self, text: str, r: Mapping[str, Any]) -> str:
        return unified(SWANCTL, normalize_text(r["swanctl"].stdout), normalize_text(text))

    # ------------------------------------------------------------------ checks

    def _rejected(self, r: Mapping[str, Any], *parts: str) -> None:
        """Raise for the first part whose own checker (in batch results *r*) refused it."""
        what = {INTERFACES: ("ifstate_check", INTERFACES), NFT: ("nft_check", f"{NFT} rejected"),
                FRR: ("frr_check", f"{FRR} rejected by vtysh")}
        for part in parts:
            name, label = what.get(part, ("", ""))
            if name in r and r[name].exit_code != 0:
                raise ReplaceConfigException(f"{self.hostname}: {label}: {_err(r[name])}")

    # ------------------------------------------------------------------ commit

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        """Check every part, back up the running parts, arm the timer, apply.

        A part the device rejects raises :class:`ReplaceConfigException` before anything
        changed. A failure while applying restores the backup at once and raises
        :class:`CommitError`; with *revert_in*, a lost session is covered by the timer.
        """
        cand = self._need_candidate()
        if self.has_pending_commit():
            raise CommitError(f"{self.hostname}: a commit is pending confirmation")
        folder = self._sd("candidate")
        # every part through the device's own checker and the running parts read, in one batch
        checked = self._stage(folder, self._pick(folder, cand, _CHECK, _RUNNING))
        self._rejected(checked, INTERFACES, NFT, FRR)
        self._backup(self._running_from(checked, tuple(cand)))
        if revert_in is not None:
            self._arm(int(revert_in), message)
        scope = f" && cp {folder}/scope {self._sd('applied.scope')}" if INTERFACES in cand else ""
        r = self._sh(f"sh {self._sd('bin', 'apply.sh')} {folder} strict{scope}", timeout=300)
        if r.exit_code != 0:
            restore = self._sh(f"sh {self._sd('bin', 'apply.sh')} {self._sd('backup')} "
                               "best-effort", timeout=300)
            self._disarm()
            state = "restored" if restore.exit_code == 0 else f"restore failed: {_err(restore)}"
            raise CommitError(f"{self.hostname}: apply failed: {_err(r)} (backup {state})")

    def _backup(self, running: dict[str, str]) -> None:
        """The running parts to ``backup/``, the previous backup to ``backup.prev/``."""
        new, b = self._sd("backup.new"), self._sd("backup")
        scope = f"cp {self._sd('candidate', 'scope')} {new}/scope && " if INTERFACES in running else ""
        r = self._batch({f"{new}/{part}": text for part, text in running.items()},
                        {"backup": f"{scope}rm -rf {b}.prev; [ ! -d {b} ] || mv {b} {b}.prev; mv {new} {b}"},
                        clear=(new,))
        self._ok(r["backup"], "backup")
        self.last_backup = running

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

    def get_lldp_neighbors(self) -> dict[str, list[dict[str, str]]]:
        """What lldpd hears on each interface, as NAPALM's drivers give it."""
        sock = f"-u {shlex.quote(self.lldp_socket)} " if self.lldp_socket else ""
        out = self._must(f"lldpcli {sock}-f json0 show neighbors", "reading LLDP neighbours (lldpcli)")
        return {ifname: [{"hostname": h.system, "port": h.port} for h in heard]
                for ifname, heard in parse_lldpcli(out).items()}

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

    def get_ospf_neighbors(self) -> dict[str, list[dict[str, str]]]:
        """OSPF neighbors by interface: ``{"eth1": [{"router_id", "address", "state"}]}``;
        none on a device that runs no ospfd (an L2 switch, a gateway with static routes)."""
        ps = f"-N {shlex.quote(self.pathspace)} " if self.pathspace else ""
        r = self._sh(f"vtysh {ps}-c {shlex.quote('show ip ospf neighbor json')}")
        if r.exit_code != 0 and "ospfd is not running" in f"{r.stdout}{r.stderr}":
            return {}
        if r.exit_code != 0:
            raise CommitError(f"{self.hostname}: vtysh show ip ospf neighbor: {_err(r)}")
        data = json.loads(str(r.stdout) or "{}")
        out: dict[str, list[dict[str, str]]] = {}
        for rid, entries in data.get("neighbors", {}).items():
            for e in entries:
                ifname = str(e.get("ifaceName", "")).split(":", 1)[0]
                state = str(e.get("converged") or e.get("state", "")).split("/", 1)[0]
                out.setdefault(ifname, []).append(
                    {"router_id": rid, "address": str(e.get("ifaceAddress", "")), "state": state}
                )
        return out


def _frr_plan_has_changes(test_output: str) -> bool:
    """Whether ``frr-reload.py --test`` printed any line to delete or add.

    ``hostname`` lines do not count: vtysh shows the OS hostname (uname), which in a lab
    namespace sharing the host's UTS namespace can never equal the configured one, so
    frr-reload would plan the same hostname change forever. Nor does ``frr version``: the
    rendered ``frr version 8.4`` never equals the running ``8.4.4``, and no reload can
    change it.
    """
    body = [
        line
        for line in test_output.splitlines()
        if line.strip() and not set(line.strip()) <= {"="} and not line.startswith(FRR_PAIR)
        and line.strip() not in ("Lines To Delete", "Lines To Add")
        and not line.strip().startswith(("hostname ", "no hostname ", "frr version "))
    ]
    return bool(body)


def _err(result: Any) -> str:
    text = (str(result.stderr).strip() or str(result.stdout).strip())
    return text or f"exit status {result.exit_code}"


def _subst(template: str, subs: Mapping[str, str]) -> str:
    for key, value in subs.items():
        template = template.replace(key, value)
    return template


def _joined(parts: Mapping[str, str]) -> str:
    return "".join(f"### {name}\n{text}" for name, text in parts.items())
