"""Helpers the tests share, importable as ``tests.helpers`` (pytest's pythonpath is the repo)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from boothnet.lab.lldp import SOCKET_DIR

ROOT = Path(__file__).resolve().parents[1]
INVENTORIES = ROOT / "inventories"
# The live tier runs on four workers (LIVE_WORKERS), since most live tests wait (on convergence,
# revert timers, delay lines, watch rounds) rather than compute. A test marked `measures` judges a
# rate this machine's CPU carries: it holds the machine's measurement turn (boothnet.locks), which
# validate's own measuring stages and calibrations take too, so no two measurements meet. Every
# module has names of its own (a lab's network and management subnet, Batfish snapshots named by
# the run's folder, floor pid files by network), so any two may run side by side. The modules
# that ask Batfish run on one worker in turn (one JVM answers them all).
# Work units go out longest first (LIVE_FIRST), so that no long module starts last;
# docs/benchmarks.md, "The suite's time", has the figures behind this.
BATFISH_GROUP = "batfish-group"
BATFISH_MODULES = (
    "checks/", "tests/integration/batfish/", "tests/fuzz/test_valid_intents.py",
    "tests/integration/faults/test_batfish_dies.py", "tests/integration/policy/test_policy_batfish.py",
)
# the units longer than 40 s, longest first (seconds from start to end on four workers, waits for
# the measurement turn included, 10ed0e6), but the planted measurements third: nearly all their
# time is measuring, so early they hold the turn while the others bring their labs up (86ad72c sent
# them sixth, strictly longest first: the mirror and WAN tests then waited on each other's turn,
# 63 -> 128 s and 98 -> 143 s, the live tier 692 s against 643)
LIVE_FIRST = (
    "tests/integration/vpn/test_vpn_lab.py",  # 336
    BATFISH_GROUP,  # 337
    "tests/integration/validate/test_planted_measured.py",  # 155
    "tests/integration/validate/test_planted_faults.py",  # 324
    "tests/integration/validate/test_dual_stack_lab.py",  # 230
    "tests/integration/perf/test_wan_lab.py",  # 205
    "tests/integration/watch/test_watch_lab.py",  # 150
    "tests/integration/validate/test_backbone.py",  # 128
    "tests/integration/deploy/test_day0_adjacencies.py",  # 125: four day-0 attempts, 23 s each
    "tests/integration/floor/test_floor_path.py",  # 70
    "tests/integration/faults/test_killed_demo.py",  # 93
    "tests/integration/validate/test_vendor_standins.py",  # 89
    "tests/integration/deploy/test_deploy_lab.py",  # 75
    "tests/integration/lab/test_lab_playbooks.py",  # 41
)
# The offline tier's (`--dist loadfile`) longest files first too: xdist would hand them out by
# their count of tests, most first, and the intent fuzzer (one test, the tier's longest) went out
# last, ending the tier alone on one core (CPU-seconds of each file, 2-core machine, 67suite)
OFFLINE_FIRST = (
    "tests/unit/deploy/test_hw_deploy.py",  # 27
    "tests/unit/test_readback.py",  # 22
    "tests/fuzz/test_intent_fuzz.py",  # 13-19
    "tests/unit/test_policy_property.py",  # 11-18
    "tests/unit/acl_review/test_acl_review_offline.py",  # 17
    "tests/unit/acl_review/test_acl_review_cli.py",  # 11
    "tests/unit/test_validate_plan.py",  # 9.5
    "tests/unit/test_clab.py",  # 9
)


def live_scope(nodeid: str) -> str:
    """The live tier's unit of work for a test: the Batfish group, or the test's own module."""
    module = nodeid.split("::", 1)[0]
    return BATFISH_GROUP if module.startswith(BATFISH_MODULES) else module


def live_order(nodeid: str) -> tuple[int, int]:
    """Where a test's unit goes out: LIVE_FIRST's place, then OFFLINE_FIRST's, then every other unit."""
    scope, module = live_scope(nodeid), nodeid.split("::", 1)[0]
    return (LIVE_FIRST.index(scope) if scope in LIVE_FIRST else len(LIVE_FIRST),
            OFFLINE_FIRST.index(module) if module in OFFLINE_FIRST else len(OFFLINE_FIRST))


def cpu_bound(row: object) -> bool:
    """A measured row that says this machine's load, not the network, decided it (ERROR, cause
    cpu_bound alone): an honest answer on a busy machine, neither a pass nor a planted fault's verdict."""
    return getattr(row, "verdict", None) == "ERROR" and getattr(row, "causes", None) == ["cpu_bound"]


def unjudged(row: object) -> bool:
    """cpu_bound, or a production probe that outlasted its research load on a slow machine (ERROR,
    cause outlasted): not measured under load, so neither a pass nor a planted fault's verdict."""
    outlasted = getattr(row, "verdict", None) == "ERROR" and getattr(row, "causes", None) == ["outlasted"]
    return cpu_bound(row) or outlasted


def quiet(_message: str) -> None:
    """A progress sink for stages run in tests."""


def errors_of(inv) -> list[str]:  # an InventoryCopy
    """Every error of the intent at `inv`, as the loader words them; the test fails if it loads."""
    import pytest

    from boothnet.errors import IntentInvalid
    from boothnet.intent import load_network

    with pytest.raises(IntentInvalid) as caught:
        load_network(inv.path)
    return [str(e) for e in caught.value.errors]


def leftovers(network: str, state_dir: Path | None = None, nodes: Iterable[str] | None = None) -> list[str]:
    """Everything of lab ``network`` still on the machine, as readable lines. ``nodes``: the lab's
    node names, so that another running lab whose name starts with this one's (eos-core-ds beside
    eos-core) is not taken for its remains; without them, everything named ``<network>-*``."""
    from boothnet.lab import names

    spaces = {names.ns_name(network, node) for node in nodes} if nodes is not None else None

    def ours(ns: str) -> bool:
        return ns in spaces if spaces is not None else ns.startswith(f"{network}-")

    found: list[str] = []
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    found += [f"netns {ln.split()[0]}" for ln in out.splitlines() if ours(ln.split()[0])]
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    bridge = names.bridge_name(network)
    for ln in links.splitlines():
        ifname = ln.split(":")[1].strip().split("@")[0]
        if ifname == bridge or f"alias {names.alias(network, '')}" in ln:
            found.append(f"link {ifname}")
    res = subprocess.run(["pgrep", "-af", "--", f"-N {network}-"], capture_output=True, text=True)
    found += [f"process {ln}" for ln in res.stdout.splitlines()
              if (m := re.search(r"-N (\S+)", ln)) and ours(m.group(1))]
    if state_dir is not None:
        res = subprocess.run(["pgrep", "-af", "--", f"sshd -f {state_dir}"], capture_output=True, text=True)
        found += [f"process {ln}" for ln in res.stdout.splitlines()]
    for base in (names.FRR_ETC, names.FRR_RUN):
        found += [f"dir {p}" for p in base.glob(f"{network}-*") if ours(p.name)]
    found += [f"file {p}" for p in SOCKET_DIR.glob(f"{network}-*") if ours(p.name.split(".", 1)[0])]
    return found + [f"process lldpd {pid} in a namespace no lab names" for pid in orphan_lldpds(ours)]


def orphan_lldpds(ours: Callable[[str], bool] | None = None) -> list[int]:
    """lldpd processes (they rename themselves, so no pattern finds them) in a network namespace
    that is neither the machine's own nor a named one: left behind by a lab that is gone.
    ``ours``: only those whose namespace it takes, known by the control socket the namespace
    holds (another lab tearing down at the same moment has lldpds in a namespace just unnamed)."""
    import os

    def mine(pid: str) -> bool:
        sockets = re.findall(rf"{re.escape(str(SOCKET_DIR))}/(\S+)\.sock", Path(f"/proc/{pid}/net/unix").read_text())
        return ours is None or any(ours(ns) for ns in sockets)

    named = {os.stat("/proc/self/ns/net").st_ino}  # the tests run in the machine's own
    for name in Path("/run/netns").glob("*") if Path("/run/netns").is_dir() else ():
        try:
            named.add(os.stat(name).st_ino)
        except FileNotFoundError:  # another test's lab removed it since the listing
            continue
    orphans = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{entry}/comm").read_text().strip() == "lldpd" and \
                    os.stat(f"/proc/{entry}/ns/net").st_ino not in named and mine(entry):
                orphans.append(int(entry))
        except OSError:
            continue
    return orphans


@contextmanager
def running_lab(intent: Any, build: Path, configs: str = "full", vlan_mode: str | None = None
                ) -> Iterator[tuple[Any, Path]]:
    """The netns lab of `intent` (a Run or an inventory folder) up for the block, then down,
    failing the test when anything of it is left on the machine. Yields (spec, state_dir)."""
    from boothnet.lab.plan import plan_lab
    from boothnet.lab.runner import detect_vlan_mode, lab_down, lab_up

    spec, result = plan_lab(intent, vlan_mode or detect_vlan_mode(), build)
    assert result.ok, result.findings
    state_dir = build / spec.network / "lab"
    lab_down(spec.network, state_dir, quiet)  # a crashed earlier run must not get in the way
    try:
        lab_up(spec, state_dir, quiet, configs=configs)
        yield spec, state_dir
    finally:
        lab_down(spec.network, state_dir, quiet)
    assert not (left := leftovers(spec.network, state_dir, [n.name for n in spec.nodes])), left


def swap_host_cables(build: Path, network: str, first: str, second: str) -> None:
    """Re-plug two hosts' cables into each other's switch ports: each host's own end of its veth
    moves to the other host, which sets its own address and gateway on it and shapes it to its
    NIC's speed (a move between namespaces drops a device's qdisc), as a host does, and starts its
    lldpd again (see boothnet.lab.lldp.restart_lldpd). Returns once what the ports
    heard before has aged out, as it does on a switch. Calling it again puts them back."""
    import time

    from boothnet.lab.lldp import TTL_S, restart_lldpd
    from boothnet.lab.net import configure_host
    from boothnet.lab.shaping import shape
    from boothnet.lab.specio import load_spec

    spec = load_spec(build / network / "lab" / "spec.json")
    for here, there in ((first, second), (second, first)):
        subprocess.run(["ip", "-n", f"{network}-{here}", "link", "set", "eth0", "down", "name", f"to-{there}",
                        "netns", f"{network}-{there}"], check=True, capture_output=True)
    for host in (first, second):
        subprocess.run(["ip", "-n", f"{network}-{host}", "link", "set", f"to-{host}", "name", "eth0"], check=True,
                       capture_output=True)
        configure_host(next(n for n in spec.nodes if n.name == host), f"{network}-{host}")
        speed = next(link.speed_mbps for link in spec.links if host in (link.a.node, link.b.node))
        shape(f"{network}-{host}", "eth0", speed)
        restart_lldpd(f"{network}-{host}", host)
    time.sleep(TTL_S + 1)


def edit_yaml(root: Path, rel: str, change: Callable[[Any], object]) -> None:
    """Apply ``change`` to the YAML file ``rel`` of the inventory at ``root``."""
    import yaml

    path = root / rel
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))


LAB_MINI_IPV6 = {"h1": "2001:db8:d:10::11", "h2": "2001:db8:d:10::12", "h3": "2001:db8:d:20::11",
                 "h4": "2001:db8:d:20::20"}


def lab_mini_in_both_families(inventory: Path) -> None:
    """A copy of lab-mini made dual-stack: each VLAN a /64 of static hosts (LAB_MINI_IPV6), the
    routed link r1 -- r2 addressed in IPv6 too."""
    edit_yaml(inventory, "hosts.yml", lambda d: [
        host.update(address6=LAB_MINI_IPV6[name]) for name, host in d["all"]["children"]["endpoints"]["hosts"].items()])
    edit_yaml(inventory, "group_vars/all/vlans.yml", lambda d: [vlan.update(ipv6={
        "prefix": f"2001:db8:d:{vlan['id']}::/64", "hosts": "static"}) for vlan in d["vlans"]])
    edit_yaml(inventory, "group_vars/all/links.yml", lambda d: d["links"][0].update(
        addresses6={"a": "2001:db8:d::1/64", "b": "2001:db8:d::2/64"}))


def ping_only_policy(inventory: Path) -> None:
    """A copy of lab-mini, eos-core or eos-core-ds whose `ping-anywhere` permits echo requests
    only, after a rule that denies redirects and timestamps: "ping yes, redirects and timestamps
    no" (issue 69); every other ICMP type falls to the default deny."""
    def change(data: Any) -> None:
        rules = data["policy"]["rules"]
        at = next(i for i, rule in enumerate(rules) if rule["name"] == "ping-anywhere")
        rules[at]["icmp_types"] = ["echo-request"]
        rules.insert(at, {"name": "no-redirects-or-timestamps", "from": "any", "to": "any", "proto": "icmp",
                          "icmp_types": ["redirect", "timestamp-request"], "action": "deny"})

    edit_yaml(inventory, "group_vars/all/policy.yml", change)


def iperf3_pids(namespace: str, argv_has: str, argv_lacks: str = "\0") -> list[int]:
    """iperf3 processes in ``namespace`` whose command line has ``argv_has`` and not ``argv_lacks``."""
    from boothnet.lab.services import _cmdline, pids_in_namespaces

    return [pid for pid in pids_in_namespaces([namespace])[namespace]
            if (argv := _cmdline(pid) + " ").startswith("iperf3 ") and argv_has in argv and argv_lacks not in argv]


@contextmanager
def frozen_once(when: Callable[[], bool], pids: Callable[[], list[int]], seconds: float,
                after: float = 0.3, again_every: float | None = None) -> Iterator[list[int]]:
    """For the block: once ``when()`` holds (polled for up to 120 s), and ``after`` seconds more
    (a client's start-up: its handshake crosses the path first), the processes ``pids()`` stopped
    for ``seconds`` (SIGSTOP, then SIGCONT), as a CPU taken by something else would; with
    ``again_every``, stopped again that many seconds later for as long as ``when()`` holds (a
    poller that found its client late on a busy machine still lands inside its stream). Yields
    the pids it stopped (filled in as it does)."""
    frozen: list[int] = []

    def freeze() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not when():
            time.sleep(0.05)
        time.sleep(after)
        while True:
            stopped = pids()
            for pid in stopped:
                os.kill(pid, signal.SIGSTOP)
            frozen.extend(pid for pid in stopped if pid not in frozen)
            time.sleep(seconds)
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)
            if again_every is None:
                return
            time.sleep(again_every)
            if not when():
                return

    freezer = threading.Thread(target=freeze)
    freezer.start()
    try:
        yield frozen
    finally:
        freezer.join()
