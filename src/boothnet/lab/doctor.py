"""`boothnet doctor`: every runtime capability the lab, the tests and the demo need, checked for
real in a few seconds, each missing one named with the Debian package that provides it.

Programs and charon's plugins are looked up on disk; namespaces, veth, bridge, TUN and 802.1Q
are created in a scratch namespace; charon is started there with the lab's plugin list and must
create its TUN device; nft checks a ruleset; Java answers when a Batfish jar is configured.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from boothnet.lab import strongswan
from boothnet.platforms import frr_linux
from boothnet.progress import Progress

PLUGIN_DIR = Path("/usr/lib/ipsec/plugins")
# Programs by path or by name on PATH, and the Debian package that installs each.
PROGRAMS: tuple[tuple[str, str], ...] = (
    ("/usr/lib/frr/zebra", "frr"),
    ("/usr/lib/frr/ospfd", "frr"),
    ("/usr/lib/frr/ospf6d", "frr"),
    ("/usr/lib/frr/staticd", "frr"),
    ("vtysh", "frr"),
    ("/usr/lib/frr/frr-reload.py", "frr-pythontools"),
    ("nft", "nftables"),
    ("iperf3", "iperf3"),
    ("nuttcp", "nuttcp"),
    ("tcpdump", "tcpdump"),
    ("/usr/sbin/sshd", "openssh-server"),
    ("ssh", "openssh-client"),
    ("ssh-keygen", "openssh-client"),
    ("ip", "iproute2"),
    ("ping", "iputils-ping"),
    ("/usr/sbin/arp-scan", "arp-scan"),
    ("conntrack", "conntrack"),  # the deploy cuts the sessions a new policy denies (docs/deploy.md)
    ("pkill", "procps"),
    ("killall", "psmisc"),
    (strongswan.CHARON, "strongswan-charon"),
    ("swanctl", "strongswan-swanctl"),
    ("git", "git"),
    ("/usr/sbin/lldpd", "lldpd"),
    ("lldpcli", "lldpd"),
    ("dot", "graphviz"),
)
# charon's plugins beyond libstrongswan's own: the ones --no-install-recommends leaves out.
PLUGIN_PACKAGES = {
    "openssl": "libstrongswan-standard-plugins",
    "gcm": "libstrongswan-standard-plugins",
    "kernel-libipsec": "libcharon-extra-plugins",
    "vici": "strongswan-swanctl",
    "socket-default": "strongswan-libcharon",
}
JAVA_PACKAGE = "openjdk-17-jre-headless"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    package: str | None = None  # what provides it, when it is missing
    required: bool = True  # False: the lab copes without it (reported, not a failure)

    def line(self) -> str:
        mark = "ok  " if self.ok else ("FAIL" if self.required else "note")
        fix = f" (install Debian package {self.package})" if not self.ok and self.package else ""
        return f"  {mark} {self.name}: {self.detail}{fix}"


def _found(program: str) -> str | None:
    if program.startswith("/"):
        return program if os.access(program, os.X_OK) else None
    return shutil.which(program)


def check_programs() -> list[Check]:
    out = []
    for program, package in PROGRAMS:
        path = _found(program)
        out.append(Check(Path(program).name, path is not None, path or "not found", package))
    for plugin in strongswan.PLUGINS.split():
        so = PLUGIN_DIR / f"libstrongswan-{plugin}.so"
        out.append(Check(f"charon plugin {plugin}", so.exists(), str(so) if so.exists() else "not found",
                         PLUGIN_PACKAGES.get(plugin, "libstrongswan")))
    return out


def _run(*cmd: str, timeout: float = 10) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def check_nft() -> Check:
    if not shutil.which("nft"):
        return Check("nft -c", False, "nft not found", "nftables")
    with tempfile.NamedTemporaryFile("w", suffix=".nft") as rules:
        rules.write("table inet boothnet_doctor {\n chain forward { type filter hook forward priority 0;"
                    " ct state established,related accept; }\n}\n")
        rules.flush()
        run = _run("nft", "-c", "-f", rules.name)
    return Check("nft -c", run.returncode == 0, "checks a ruleset" if run.returncode == 0 else run.stderr.strip(),
                 "nftables")


@contextmanager
def scratch_namespace() -> Iterator[str]:
    ns = f"bn-doctor-{os.getpid()}"
    _run("ip", "netns", "add", ns)
    try:
        yield ns
    finally:
        _run("ip", "netns", "del", ns)


def _in(ns: str, *cmd: str) -> subprocess.CompletedProcess[str]:
    return _run("ip", "netns", "exec", ns, *cmd)


def check_kernel(ns: str) -> list[Check]:
    """veth, bridge, TUN and 802.1Q in the scratch namespace (802.1Q is optional: without it the
    lab builds one L2 segment per VLAN)."""
    tries = [
        ("veth", ("ip", "link", "add", "d0", "type", "veth", "peer", "name", "d1"), True),
        ("bridge", ("ip", "link", "add", "br0", "type", "bridge"), True),
        ("tun", ("ip", "tuntap", "add", "dev", "tun0", "mode", "tun"), True),
        ("802.1Q", ("ip", "link", "add", "link", "d0", "name", "d0.10", "type", "vlan", "id", "10"), False),
    ]
    out = []
    for name, cmd, required in tries:
        run = _in(ns, *cmd)
        detail = "works" if run.returncode == 0 else run.stderr.strip() or f"exit {run.returncode}"
        if name == "802.1Q" and run.returncode != 0:
            detail += "; the lab uses one L2 segment per VLAN instead"
        out.append(Check(f"kernel {name}", run.returncode == 0, detail, None, required))
    return out


def check_charon(ns: str, timeout: float = 8.0) -> Check:
    """charon with the lab's plugin list, in its own /run, must answer on VICI and create ipsec0."""
    if not os.access(strongswan.CHARON, os.X_OK):
        return Check("charon starts", False, f"{strongswan.CHARON} not found", "strongswan-charon")
    with tempfile.TemporaryDirectory(prefix="bn-doctor-") as folder:
        paths = strongswan.CharonPaths(Path(folder))
        paths.run_dir.mkdir()
        paths.strongswan_conf.write_text(strongswan.strongswan_conf(paths))
        proc = strongswan.launch_charon(ns, paths, subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and proc.poll() is None:
                if paths.vici.exists() and _in(ns, "ip", "link", "show", frr_linux.LIBIPSEC_DEVICE).returncode == 0:
                    return Check("charon starts", True,
                                 f"VICI answers and {frr_linux.LIBIPSEC_DEVICE} exists (kernel-libipsec)")
                time.sleep(0.1)
            log = paths.log.read_text() if paths.log.exists() else ""
            missing = sorted(set(re.findall(r"plugin '([\w-]+)' failed to load", log)))
            why = (f"plugins failed to load: {', '.join(missing)}" if missing
                   else "exited at start" if proc.poll() is not None else f"no VICI socket or "
                   f"{frr_linux.LIBIPSEC_DEVICE} within {timeout:g} s")
            package = next((PLUGIN_PACKAGES[m] for m in missing if m in PLUGIN_PACKAGES), None)
            return Check("charon starts", False, f"{why}; see its log: {log.strip()[-300:]}", package)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, 15)
            proc.wait(timeout=5)


def check_java() -> Check:
    jar = os.environ.get("BATFISH_JAR", "").strip()
    java = shutil.which("java")
    if not java:
        return Check("java (Batfish)", False, f"BATFISH_JAR={jar} but java is not installed", JAVA_PACKAGE)
    run = _run(java, "-version")
    match = re.search(r'version "(\d+)', run.stderr + run.stdout)
    major = int(match.group(1)) if match else 0
    if major < 17:
        return Check("java (Batfish)", False, f"java {major or '?'} found; Batfish needs 17 or newer", JAVA_PACKAGE)
    if not Path(jar).is_file():
        return Check("java (Batfish)", False, f"java {major} found, but BATFISH_JAR={jar}: no such file")
    return Check("java (Batfish)", True, f"java {major}, jar {jar}")


def run_doctor(progress: Progress = lambda _: None) -> list[Check]:
    progress("programs and charon plugins")
    checks = check_programs()
    checks.append(check_nft())
    if os.geteuid() != 0:
        checks.append(Check("namespaces, kernel, charon", False, "need root: run `sudo boothnet doctor`"))
    else:
        progress("scratch namespace: veth, bridge, TUN, 802.1Q, charon")
        with scratch_namespace() as ns:
            checks += check_kernel(ns)
            checks.append(check_charon(ns))
    if os.environ.get("BATFISH_JAR", "").strip():
        checks.append(check_java())
    return checks


def missing_packages(checks: list[Check]) -> list[str]:
    return sorted({c.package for c in checks if not c.ok and c.required and c.package})
