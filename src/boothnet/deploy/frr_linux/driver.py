"""FrrLinuxDriver: config management on a four-part candidate (boothnet.deploy.parts) over
napalm-linux's SSH connection; the device-side plumbing is in shell.py, the timer in timer.py."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

from napalm.base.exceptions import (
    CommitError,
    ConnectionException,
    MergeConfigException,
    ReplaceConfigException,
)
from napalm.base.helpers import mac as napalm_mac
from napalm_linux import LinuxDriver

from boothnet.booth.lldp import parse_lldpcli
from boothnet.deploy import ifstate
from boothnet.deploy.counters import kernel_counters
from boothnet.deploy.frr_linux.compare import _CHECK, _RUNNING, Compare
from boothnet.deploy.frr_linux.shell import _err
from boothnet.deploy.frr_linux.timer import RevertTimer
from boothnet.deploy.known_hosts import host_keys
from boothnet.deploy.parts import (
    FRR,
    INTERFACES,
    NFT,
    CandidateError,
    load_parts,
)
from boothnet.deploy.sessions import ADDRESSES, LIST, read_error


class FrrLinuxDriver(Compare, RevertTimer, LinuxDriver):
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

    def open(self) -> None:
        super().open()
        self._tools_ready = False

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

    def get_lldp_neighbors(self) -> dict[str, list[dict[str, str]]]:
        """What lldpd hears on each interface, as NAPALM's drivers give it."""
        sock = f"-u {shlex.quote(self.lldp_socket)} " if self.lldp_socket else ""
        out = self._must(f"lldpcli {sock}-f json0 show neighbors", "reading LLDP neighbours (lldpcli)")
        return {ifname: [{"hostname": h.system, "port": h.port} for h in heard]
                for ifname, heard in parse_lldpcli(out).items()}

    def get_mac_address_table(self) -> list[dict[str, Any]]:
        """What each bridge port learned (``bridge -j fdb show``), as NAPALM's drivers give it. The
        VLAN is the fdb entry's own (a VLAN-aware bridge) or the bridge's, ``br<VID>`` (one bridge
        per VLAN, as boothnet renders them)."""
        entries = json.loads(self._must("bridge -j fdb show", "reading the MAC table (bridge fdb)") or "[]")
        out = []
        for e in entries:
            master = str(e.get("master", ""))
            if not master or e.get("state") == "permanent" or "self" in e.get("flags", []):
                continue
            vlan = e.get("vlan") or (int(master[2:]) if master.startswith("br") and master[2:].isdigit() else 0)
            static = e.get("state") == "static"
            out.append({"mac": napalm_mac(e["mac"]), "interface": str(e.get("ifname", "")), "vlan": int(vlan),
                        "static": static, "active": True, "moves": -1, "last_move": -1.0})
        return out

    def get_arp_table(self, vrf: str = "") -> list[dict[str, Any]]:
        """IPv4 neighbours with a link-layer address (``ip -4 -j neigh show``), as NAPALM gives them."""
        if vrf:
            raise NotImplementedError("frr_linux: VRFs are not used")
        return [{k: v for k, v in e.items() if k != "state"}
                for e in self._neighbours(4, "reading the ARP table (ip neigh)")]

    def get_ipv6_neighbors_table(self) -> list[dict[str, Any]]:
        """IPv6 neighbours with a link-layer address (``ip -6 -j neigh show``), as NAPALM gives them."""
        return self._neighbours(6, "reading the IPv6 neighbours (ip -6 neigh)")

    def _neighbours(self, family: int, what: str) -> list[dict[str, Any]]:
        """``ip -<family> -j neigh show``: the entries with a link-layer address, NAPALM's keys."""
        entries = json.loads(self._must(f"ip -{family} -j neigh show", what) or "[]")
        return [{"interface": str(e.get("dev", "")), "mac": napalm_mac(e["lladdr"]), "ip": str(e["dst"]), "age": -1.0,
                 "state": ",".join(e.get("state", []))}
                for e in entries if e.get("lladdr") and "FAILED" not in e.get("state", [])]

    def get_interfaces(self) -> dict[str, dict[str, Any]]:
        """Each interface as NAPALM's drivers give it; is_up is the carrier (LOWER_UP): napalm-linux
        counts an admin-up port whose cable is out as up."""
        links = json.loads(self._must("ip -j link show", "reading the interfaces (ip link)") or "[]")
        return {i["ifname"]: {"is_up": "LOWER_UP" in i.get("flags", []), "is_enabled": "UP" in i.get("flags", []),
                              "description": "", "last_flapped": -1.0, "speed": -1.0, "mtu": int(i.get("mtu", 0)),
                              "mac_address": str(i.get("address", ""))}
                for i in links}

    def get_interfaces_counters(self) -> dict[str, dict[str, int]]:
        """The kernel's counters of every interface (``ip -j -s link``), as NAPALM's drivers give them."""
        out = self._must("ip -j -s link show", "reading the interface counters (ip -s link)")
        return {name: {"rx_octets": c.rx_octets, "tx_octets": c.tx_octets, "rx_errors": c.rx_errors,
                       "tx_errors": c.tx_errors, "rx_discards": c.rx_discards, "tx_discards": c.tx_discards}
                for name, c in kernel_counters(out).items()}

    def read_conntrack(self) -> tuple[str, str]:
        """The conntrack table (``conntrack -L -o extended``, both families) and the device's own
        addresses (``ip -j addr show``), in one batch; ConntrackError, named, when the table cannot
        be read (no conntrack tool, not root)."""
        answers = self._batch({}, {"table": LIST, "addresses": ADDRESSES})
        table = answers["table"]
        if table.exit_code != 0:
            raise read_error(self.hostname, table.exit_code, _err(table), self.username)
        try:
            addresses = self._ok(answers["addresses"], "reading the addresses (ip addr)")
        except CommitError as exc:
            raise read_error(self.hostname, answers["addresses"].exit_code, str(exc), self.username) from exc
        return str(table.stdout), addresses

    def delete_conntrack(self, commands: Mapping[str, str]) -> dict[str, tuple[int, str]]:
        """Each ``conntrack -D`` command (name -> shell line) in one batch: name -> (exit status,
        what it printed on stderr: "1 flow entries have been deleted", or why not)."""
        answers = self._batch({}, dict(commands))
        return {name: (int(r.exit_code), f"{r.stderr}{r.stdout}") for name, r in answers.items()}

    def get_ipsec_sas(self) -> str:
        """charon's SAs as ``swanctl --list-sas`` prints them (the VPN's tunnel state)."""
        uri = f" --uri {shlex.quote(self.swanctl_uri)}" if self.swanctl_uri else ""
        env = f"STRONGSWAN_CONF={shlex.quote(self.strongswan_conf)} " if self.strongswan_conf else ""
        return self._must(f"{env}swanctl --list-sas{uri}", "reading the IPsec SAs (swanctl)")

    def get_ospf_neighbors(self) -> dict[str, list[dict[str, str]]]:
        """OSPF neighbors by interface: ``{"eth1": [{"router_id", "address", "state"}]}``;
        none on a device that runs no ospfd (an L2 switch, a gateway with static routes)."""
        data = self._daemon_json("show ip ospf neighbor json", "ospfd")
        out: dict[str, list[dict[str, str]]] = {}
        for rid, entries in data.get("neighbors", {}).items():
            for e in entries:
                ifname = str(e.get("ifaceName", "")).split(":", 1)[0]
                state = str(e.get("converged") or e.get("state", "")).split("/", 1)[0]
                out.setdefault(ifname, []).append(
                    {"router_id": rid, "address": str(e.get("ifaceAddress", "")), "state": state}
                )
        return out

    def _daemon_json(self, command: str, daemon: str) -> dict:
        """A vtysh JSON answer of ``daemon``; {} where the device runs no such daemon."""
        ps = f"-N {shlex.quote(self.pathspace)} " if self.pathspace else ""
        r = self._sh(f"vtysh {ps}-c {shlex.quote(command)}")
        if r.exit_code != 0 and f"{daemon} is not running" in f"{r.stdout}{r.stderr}":
            return {}
        if r.exit_code != 0:
            raise CommitError(f"{self.hostname}: vtysh {command.removesuffix(' json')}: {_err(r)}")
        return dict(json.loads(str(r.stdout) or "{}"))

    def get_ospf6_neighbors(self) -> dict[str, list[dict[str, str]]]:
        """OSPFv3 neighbors by interface, as get_ospf_neighbors gives OSPF's: OSPFv3 names a
        neighbour by its router ID (its address is link-local), so ``address`` is the router ID."""
        out: dict[str, list[dict[str, str]]] = {}
        for e in self._daemon_json("show ipv6 ospf6 neighbor json", "ospf6d").get("neighbors", []):
            rid = str(e.get("neighborId", ""))
            out.setdefault(str(e.get("interfaceName", "")), []).append(
                {"router_id": rid, "address": rid, "state": str(e.get("state", ""))})
        return out


def _joined(parts: Mapping[str, str]) -> str:
    return "".join(f"### {name}\n{text}" for name, text in parts.items())
