"""A minimal two-router netns fixture for the deploy tests (until/besides the lab runner).

Two namespaces ``bdtest-bdt1`` and ``bdtest-bdt2``, each an frr_linux device as the lab
builds it: ``eth0`` on a root-namespace management bridge (198.18.210.0/24), sshd on the
management address with generated host and client keys and a known_hosts file, FRR
zebra/staticd/ospfd with ``-N <node>``, and a veth ``eth1`` between the two routers
(198.18.210.64/30) for an OSPF adjacency. Everything lives under one work folder and is
torn down by :meth:`DeployFixture.down`, which also runs on a failed ``up``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

NETWORK = "bdtest"
MGMT_BRIDGE = "bdtest-mgmt"
MGMT_GW = "198.18.210.1/24"
NODES = {
    "bdt1": ("198.18.210.11", "198.18.210.65/30"),
    "bdt2": ("198.18.210.12", "198.18.210.66/30"),
}
FRR_DAEMONS = ("zebra", "staticd", "ospfd")
FRR_BIN = Path("/usr/lib/frr")


def sh(*cmd: str, check: bool = True, ns: str | None = None, **kw: object) -> str:
    full = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    run = subprocess.run(full, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if check and run.returncode != 0:
        raise RuntimeError(f"{' '.join(full)}: {run.stderr.strip() or run.stdout.strip()}")
    return str(run.stdout)


def day0_frr(node: str) -> str:
    rid = NODES[node][0]
    return f"""frr defaults traditional
hostname {node}
log syslog informational
service integrated-vtysh-config
!
interface eth1
 ip ospf hello-interval 1
 ip ospf dead-interval 4
 ip ospf network point-to-point
exit
!
router ospf
 ospf router-id {rid}
 network {NODES[node][1].rsplit('.', 1)[0]}.64/30 area 0
exit
!
"""


def day0_interfaces(node: str) -> str:
    mgmt, link = NODES[node]
    return (
        f"link set eth0 up\naddr add {mgmt}/24 dev eth0\n"
        f"link set eth1 mtu 1500\nlink set eth1 up\naddr add {link} dev eth1\n"
    )


DAY0_NFT = """flush ruleset
table inet filter {
  chain input {
    type filter hook input priority 0; policy accept;
  }
}
"""


@dataclass
class DeployFixture:
    work: Path
    nodes: tuple[str, ...] = tuple(NODES)
    procs: list[int] = field(default_factory=list)

    def ns(self, node: str) -> str:
        return f"{NETWORK}-{node}"

    @property
    def key(self) -> Path:
        return self.work / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.work / "known_hosts"

    def mgmt(self, node: str) -> str:
        return NODES[node][0]

    # ------------------------------------------------------------------ up / down

    def up(self) -> DeployFixture:
        try:
            self._up()
        except BaseException:
            self.down()
            raise
        return self

    def _up(self) -> None:
        self.down()
        self.work.mkdir(parents=True, exist_ok=True)
        Path("/run/sshd").mkdir(exist_ok=True)
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.key))
        sh("ip", "link", "add", MGMT_BRIDGE, "type", "bridge")
        sh("ip", "addr", "add", MGMT_GW, "dev", MGMT_BRIDGE)
        sh("ip", "link", "set", MGMT_BRIDGE, "up")
        for node in self.nodes:
            ns = self.ns(node)
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", f"{ns[-8:]}-m", "type", "veth", "peer", "name", "eth0",
               "netns", ns)
            sh("ip", "link", "set", f"{ns[-8:]}-m", "master", MGMT_BRIDGE, "up")
            sh("ip", "link", "set", "lo", "up", ns=ns)
        a, b = self.ns(self.nodes[0]), self.ns(self.nodes[1])
        sh("ip", "link", "add", "bdt-x1", "netns", a, "type", "veth", "peer", "name", "bdt-x2",
           "netns", b)
        sh("ip", "link", "set", "bdt-x1", "name", "eth1", ns=a)
        sh("ip", "link", "set", "bdt-x2", "name", "eth1", ns=b)
        for node in self.nodes:
            ns = self.ns(node)
            batch = day0_interfaces(node)
            sh("ip", "-batch", "-", ns=ns, input=batch)
            sh("nft", "-f", "-", ns=ns, input=DAY0_NFT)
            self._sshd(node)
            self._frr(node)
        for node in self.nodes:
            self._wait_ssh(node)

    def _sshd(self, node: str) -> None:
        d = self.work / node
        d.mkdir(parents=True, exist_ok=True)
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / "host_key"))
        shutil.copy(f"{self.key}.pub", d / "authorized_keys")
        os.chmod(d / "authorized_keys", 0o600)
        (d / "sshd_config").write_text(
            f"ListenAddress {self.mgmt(node)}\nHostKey {d / 'host_key'}\n"
            f"PidFile {d / 'sshd.pid'}\nAuthorizedKeysFile {d / 'authorized_keys'}\n"
            "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
            "ClientAliveInterval 5\nClientAliveCountMax 2\n"
        )
        sh("/usr/sbin/sshd", "-f", str(d / "sshd_config"), "-E", str(d / "sshd.log"),
           ns=self.ns(node))
        pub = (d / "host_key.pub").read_text().split()
        with self.known_hosts.open("a") as f:
            f.write(f"{self.mgmt(node)} {pub[0]} {pub[1]}\n")

    def _frr(self, node: str) -> None:
        conf, run = Path("/etc/frr") / node, Path("/var/run/frr") / node
        for d in (conf, run):
            d.mkdir(parents=True, exist_ok=True)
            shutil.chown(d, "frr", "frr")
        (conf / "frr.conf").write_text(day0_frr(node))
        (conf / "vtysh.conf").write_text("service integrated-vtysh-config\n")
        for f in ("frr.conf", "vtysh.conf"):
            shutil.chown(conf / f, "frr", "frr")
        for daemon in FRR_DAEMONS:
            sh(str(FRR_BIN / daemon), "-d", "-N", node, "-A", "127.0.0.1", ns=self.ns(node))
        sh("vtysh", "-N", node, "-b", ns=self.ns(node))

    def _wait_ssh(self, node: str, timeout: float = 10) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            r = subprocess.run(self.ssh_argv(node, "true"), capture_output=True)
            if r.returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError(f"sshd on {node} did not answer")

    def ssh_argv(self, node: str, command: str) -> list[str]:
        return [
            "ssh", "-i", str(self.key), "-o", f"UserKnownHostsFile={self.known_hosts}",
            "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
            "-o", "ConnectTimeout=3", f"root@{self.mgmt(node)}", command,
        ]

    def down(self) -> None:
        for node in self.nodes:
            ns = self.ns(node)
            for pidfile in [*(Path("/var/run/frr") / node).glob("*.pid"),
                            self.work / node / "sshd.pid"]:
                _kill_pidfile(pidfile)
            # Anything else still in the namespace (revert timers, ssh children) goes too.
            if Path(f"/run/netns/{ns}").exists():
                pids = sh("ip", "netns", "pids", ns, check=False).split()
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
                sh("ip", "netns", "del", ns, check=False)
            shutil.rmtree(Path("/etc/frr") / node, ignore_errors=True)
            shutil.rmtree(Path("/var/run/frr") / node, ignore_errors=True)
            shutil.rmtree(Path("/var/lib/boothnet") / node, ignore_errors=True)
        sh("ip", "link", "del", MGMT_BRIDGE, check=False)
        shutil.rmtree(self.work, ignore_errors=True)

    # ------------------------------------------------------------------ helpers

    def run(self, node: str, *cmd: str, check: bool = True) -> str:
        return sh(*cmd, ns=self.ns(node), check=check)

    def driver_args(self, node: str) -> dict[str, object]:
        return {
            "hostname": self.mgmt(node),
            "username": "root",
            "password": "",
            "optional_args": {
                "key_file": str(self.key),
                "known_hosts": str(self.known_hosts),
                "pathspace": node,
                "netns": self.ns(node),
            },
        }

    def write_inventory(self, path: Path, configs: Path) -> None:
        hosts = "".join(
            f"        {n}:\n          ansible_host: {self.mgmt(n)}\n"
            f"          boothnet_frr_pathspace: {n}\n          boothnet_netns: {self.ns(n)}\n"
            for n in self.nodes
        )
        path.write_text(
            "all:\n  vars:\n"
            f"    boothnet_lab_network: {NETWORK}\n"
            "    ansible_user: root\n"
            f"    ansible_ssh_private_key_file: {self.key}\n"
            "    ansible_ssh_common_args: >-\n"
            f"      -o UserKnownHostsFile={self.known_hosts} -o StrictHostKeyChecking=yes\n"
            "  children:\n    routers:\n      hosts:\n" + hosts
        )


def _kill_pidfile(pidfile: Path) -> None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        os.kill(int(pidfile.read_text().split()[0]), signal.SIGTERM)


def render_candidate(node: str, *, extra_net: str | None = None, nft_extra: str = "",
                     frr_extra: str = "") -> dict[str, str]:
    """A candidate for *node*: its day-0 state plus an optional bridge with an address."""
    interfaces = day0_interfaces(node)
    frr = day0_frr(node)
    if extra_net:
        interfaces += f"link add br9 type bridge\nlink set br9 up\naddr add {extra_net} dev br9\n"
    if frr_extra:
        frr = frr.replace("router ospf\n", "router ospf\n" + frr_extra)
    nft = DAY0_NFT.replace("policy accept;\n", "policy accept;\n" + nft_extra)
    return {"interfaces.ip": interfaces, "frr.conf": frr, "nftables.nft": nft}


def write_candidate(folder: Path, parts: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for name, text in parts.items():
        (folder / name).write_text(text)
    return folder
