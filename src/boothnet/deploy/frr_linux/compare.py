"""How FrrLinuxDriver reads what runs and diffs a candidate against it: every command a
compare, a check or a backup needs, by name, run in one batch with the candidate staged."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

from napalm.base.exceptions import CommitError, ReplaceConfigException

from boothnet.deploy import ifstate
from boothnet.deploy.frr_linux.shell import DeviceShell, _err
from boothnet.deploy.parts import (
    FRR,
    INTERFACES,
    NFT,
    PARTS,
    SWANCTL,
    frr_running_as_file,
    normalize_frr,
    normalize_nft,
    normalize_text,
    unified,
)

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



class Compare(DeviceShell):
    """The running state of each part and the candidate's diff against it."""

    _candidate: dict[str, str] | None

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

    def _rejected(self, r: Mapping[str, Any], *parts: str) -> None:
        """Raise for the first part whose own checker (in batch results *r*) refused it."""
        what = {INTERFACES: ("ifstate_check", INTERFACES), NFT: ("nft_check", f"{NFT} rejected"),
                FRR: ("frr_check", f"{FRR} rejected by vtysh")}
        for part in parts:
            name, label = what.get(part, ("", ""))
            if name in r and r[name].exit_code != 0:
                raise ReplaceConfigException(f"{self.hostname}: {label}: {_err(r[name])}")


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
