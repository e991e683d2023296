"""Sessions on deploy, live (issue 69): a long-running TCP session from h1 to h3's port 22 through
r1 and r2 (lab-mini as its own network "lab-ses"), admitted by `admins-ssh-to-lab`; that rule taken
away, the lab configs rebuilt, and the deploy playbook run as a booth team runs it.

With `-e boothnet_deploy_sessions=list` the session is listed and stays: its conntrack entries are
still there and the echoes go on (conntrack keeps admitting it after `nft -f`). The next deploy, in
the default mode, ends it: the entries are gone on both routers, no echo comes back any more, and
the summary says 1 session ended, naming it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="deploy lab tests need root (namespaces, FRR, sshd)"),
]

from boothnet.lab import services  # noqa: E402
from boothnet.lab.names import ns_name  # noqa: E402
from boothnet.lab.plan import plan_lab  # noqa: E402
from boothnet.lab.scratch import copy_inventory  # noqa: E402
from tests.helpers import ROOT, running_lab  # noqa: E402

NETWORK = "lab-ses"  # lab-mini under its own name and management subnet
MGMT_SUBNET = "198.18.69.0/24"
H1, H3 = "10.0.10.11", "10.0.20.11"  # h1 (group admins, VLAN users on r1), h3 (VLAN lab on r2)
RULE = "admins-ssh-to-lab"

# h3: echo every segment back, and say something of its own every 0.1 s, as an ssh session's far end
# does (a far end that talks is what conntrack picks a session up from again), on its VLAN address's
# port 22 (the lab's sshd listens on management only)
SERVER = f"""
import socket, threading, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("{H3}", 22)); s.listen()
def echo(c):
    for data in iter(lambda: c.recv(100), b""):
        c.sendall(data)
def talk(c):
    while True:
        c.sendall(b"h")
        time.sleep(0.1)
while True:
    c = s.accept()[0]
    threading.Thread(target=echo, args=(c,), daemon=True).start()
    threading.Thread(target=talk, args=(c,), daemon=True).start()
"""
# h1: one byte every 0.1 s, a line per answer from h3 ("<local port>" first), for at most 10 minutes
CLIENT = f"""
import socket, sys, time
c = socket.create_connection(("{H3}", 22), timeout=5)
print(c.getsockname()[1], flush=True)
c.settimeout(0.2)
end = time.monotonic() + 600
while time.monotonic() < end:
    c.send(b"x")
    try:
        if c.recv(100):
            print(time.monotonic(), flush=True)
    except socket.timeout:
        pass
    time.sleep(0.1)
"""


@dataclass
class Session:
    """The client's echoes as they come back."""

    proc: subprocess.Popen[str]
    port: int = 0
    echoes: list[float] = field(default_factory=list)

    def read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if not self.port:
                self.port = int(line)
            else:
                self.echoes.append(float(line))

    def flowing(self, seconds: float = 2.0) -> bool:
        """Whether echoes come back within the next *seconds*."""
        before = len(self.echoes)
        time.sleep(seconds)
        return len(self.echoes) > before


@dataclass
class Lab:
    intent: Path
    build: Path
    state_dir: Path
    vlan_mode: str

    def in_ns(self, node: str, *cmd: str) -> list[str]:
        return services.in_ns(ns_name(NETWORK, node), *cmd)

    def conntrack(self, node: str) -> str:
        return subprocess.run(self.in_ns(node, "conntrack", "-L", "-o", "extended"), capture_output=True,
                              text=True, check=True).stdout

    def playbook(self, *extra: str) -> dict[str, Any]:
        res = subprocess.run(
            [str(ROOT / ".venv/bin/ansible-playbook"), "-i", str(self.state_dir / "inventory.yml"),
             str(ROOT / "playbooks/deploy.yml"), "-e", f"boothnet_build_dir={self.build}", *extra],
            cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
        return dict(json.loads((self.build / NETWORK / "deploy" / "summary.json").read_text()))

    def without_rule(self, rule: str) -> None:
        """The intent without *rule*, and the lab configs built from it again."""
        policy = self.intent / "group_vars" / "all" / "policy.yml"
        lines = policy.read_text().splitlines(keepends=True)
        kept = [line for line in lines if f"name: {rule}," not in line]
        assert len(kept) == len(lines) - 1, rule
        policy.write_text("".join(kept))
        _, result = plan_lab(self.intent, self.vlan_mode, self.build)  # type: ignore[arg-type]  # the running lab's mode
        assert result.ok, result.findings


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    work = tmp_path_factory.mktemp("lab-ses")
    inventory = copy_inventory(ROOT / "inventories/lab-mini", work / "inventory", NETWORK, MGMT_SUBNET)
    build = work / "build"
    with running_lab(inventory, build) as (spec, state_dir):
        yield Lab(inventory, build, state_dir, spec.vlan_mode)


def converged(lab: Lab, timeout: float = 90) -> bool:
    """h1 reaches h3 (OSPF between r1 and r2 is up: before, r1 answers "network unreachable")."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if subprocess.run(lab.in_ns("h1", "ping", "-c1", "-W1", H3), capture_output=True).returncode == 0:
            return True
        time.sleep(0.5)
    return False


@pytest.fixture
def session(lab: Lab) -> Iterator[Session]:
    assert converged(lab), "h1 never reached h3: the lab's routing did not converge"
    server = subprocess.Popen(lab.in_ns("h3", sys.executable, "-c", SERVER))
    time.sleep(0.5)
    client = subprocess.Popen(lab.in_ns("h1", sys.executable, "-c", CLIENT), stdout=subprocess.PIPE, text=True)
    s = Session(client)
    threading.Thread(target=s.read, daemon=True).start()
    try:
        yield s
    finally:
        for proc in (client, server):
            proc.kill()
            proc.wait(timeout=10)


def held_by(table: str, port: int) -> list[str]:
    """The conntrack entries of the session (either way round) in a table."""
    ways = (f"sport={port} dport=22 ", f"sport=22 dport={port} ")
    return [line for line in table.splitlines() if any(way in line for way in ways)]


def test_a_session_the_new_policy_denies_is_listed_with_the_option_then_ended(lab: Lab, session: Session) -> None:
    assert session.flowing(3.0), "the session never carried an echo before the change"
    flow = f"{H1}:{session.port} -> {H3}:22 tcp/22"
    assert held_by(lab.conntrack("r1"), session.port)

    lab.without_rule(RULE)
    listed = lab.playbook("-e", "boothnet_deploy_sessions=list")
    assert listed["devices"]["r1"]["outcome"] == "new-confirmed"
    assert listed["sessions"]["left"] == 1 and listed["sessions"]["flows_left"] == [flow], listed["sessions"]
    assert listed["sessions"]["ended"] == 0
    r1 = listed["devices"]["r1"]["sessions"]
    assert r1["checked"] and r1["mode"] == "list" and [s["flow"] for s in r1["left"]] == [flow]
    assert "r1 USERS_IN" in r1["left"][0]["denied_at"]
    assert held_by(lab.conntrack("r1"), session.port), "list mode cut the session"
    assert session.flowing(), "the session stopped though the deploy was to leave it"

    ended = lab.playbook()  # the default: cut
    assert ended["sessions"]["ended"] == 1 and ended["sessions"]["flows_ended"] == [flow], ended["sessions"]
    assert ended["devices"]["r1"]["sessions"]["ended_count"] == 1
    time.sleep(1.0)  # answers already on their way
    assert not session.flowing(3.0), "h3 still answers after the deploy ended the session"
    for router in ("r1", "r2"):  # not picked up again from either end
        assert held_by(lab.conntrack(router), session.port) == [], f"{router} still holds the session"
