"""The VPN extension of the secured network, live: sc-booth in namespaces (as its own network
"vpn-t"), strongSwan with kernel-libipsec on both gateways (root only).

The checks come from boothnet.validate.checks.vpn, the same code validate-lab runs; the planted
faults here prove they can fail: an open firewall lets a misrouted flow out in clear, and a
capture of cleartext is named as such.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from ipaddress import IPv4Network
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: namespaces, FRR, charon"),
    pytest.mark.skipif(not shutil.which("swanctl") or not Path("/usr/lib/ipsec/charon").exists(),
                       reason="strongSwan is not installed (make setup)"),
]

from boothnet.intent import Network  # noqa: E402
from boothnet.lab import strongswan  # noqa: E402
from boothnet.lab.runner import lab_health, read_state  # noqa: E402
from boothnet.lab.scratch import copy_inventory  # noqa: E402
from boothnet.locks import measurement_turn  # noqa: E402
from boothnet.run import Run  # noqa: E402
from boothnet.validate.access import lab_access  # noqa: E402
from boothnet.validate.checks.convergence import wait_converged  # noqa: E402
from boothnet.validate.checks.endpoints import run_placement  # noqa: E402
from boothnet.validate.checks.isolation import run_isolation  # noqa: E402
from boothnet.validate.checks.mtu import run_mtu  # noqa: E402
from boothnet.validate.checks.production import production_under_load  # noqa: E402
from boothnet.validate.checks.vpn import MARKER, VpnChecks, classify_capture, run_vpn  # noqa: E402
from boothnet.validate.plan import isolation_flows  # noqa: E402
from boothnet.validate.vpn import lab_vpn  # noqa: E402
from tests.helpers import ROOT, cpu_bound, frozen_once, iperf3_pids, quiet, running_lab, unjudged  # noqa: E402

NETWORK = "vpn-t"
MGMT_SUBNET = "198.18.14.0/24"  # used by no other lab, test or benchmark


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("vpn")
    return Run(copy_inventory(ROOT / "inventories" / "sc-booth", root / "inv", NETWORK, MGMT_SUBNET), root / "build")


@pytest.fixture(scope="module")
def lab(lab_run: Run) -> Iterator[tuple[Network, Path]]:
    with running_lab(lab_run, lab_run.build_root) as (_, state_dir):
        yield lab_run.net, state_dir
    assert _lab_processes() == []


def _lab_processes() -> list[str]:
    """Processes started for this lab: charon carries its node's STRONGSWAN_CONF."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if f"/{NETWORK}/lab/nodes/".encode() in (proc / "environ").read_bytes():
                found.append(proc.name)
        except OSError:
            continue
    return found


def test_lab_psk_is_generated_and_never_in_the_rendered_config(lab: tuple[Network, Path]) -> None:
    _, state_dir = lab
    psk = (state_dir / strongswan.PSK_FILE).read_text().strip()
    assert len(psk) > 40 and (state_dir / strongswan.PSK_FILE).stat().st_mode & 0o077 == 0
    rendered = (state_dir / "configs" / "bgw1" / "swanctl.conf").read_text()
    assert "${BOOTHNET_VPN_PSK}" in rendered and psk not in rendered
    loaded = state_dir / "nodes" / "bgw1" / "strongswan" / "swanctl.conf"
    assert psk in loaded.read_text() and loaded.stat().st_mode & 0o077 == 0


def test_tunnel_clients_mtu_capture_and_recovery(lab: tuple[Network, Path], lab_run: Run) -> None:
    net, state_dir = lab
    vpn = lab_vpn(lab_run, state_dir)
    assert vpn is not None
    tunnels, mtu = run_vpn(net, vpn, lab_access(net, state_dir), quiet)
    by_name = {t.name: t for t in tunnels}
    assert [t for t in tunnels if t.verdict != "PASS"] == []
    assert by_name["home-extension: bgw1 <-> hgw1"].state == "ESTABLISHED"
    capture = by_name["show network carries only IKE/ESP"]
    assert "ESP-in-UDP" in (capture.detail or "") and " 0 ESP" not in (capture.detail or "")
    recoveries = [t for t in tunnels if t.recovery_time_s is not None]
    assert len(recoveries) == 2 and all(t.recovery_time_s <= 60 for t in recoveries)  # type: ignore[operator]
    # the lab's backend caps the tunnel: probed at what it carries, with the intent's figure named
    assert [m.mtu for m in mtu] == [1400, 1400] and all(m.verdict == "PASS" for m in mtu)
    assert "intent 8950" in (by_name["home-extension: bgw1 <-> hgw1"].detail or "")
    state = read_state(state_dir)
    assert state and lab_health(state) == []  # restarted charon recorded


def test_only_listed_clients_reach_the_secured_network(lab: tuple[Network, Path]) -> None:
    net, _ = lab
    flows = [f for f in isolation_flows(net) if net.vlan_by_name()[f.dst.vlan].zone == "secure"]
    rows = run_isolation(net, lab_access(net), flows, quiet)
    permitted = {r.src for r in rows if r.observed == "permit"}
    assert permitted == {"client1", "client2", "client3"}
    assert {"client4", "booth1", "r01-cn1"} <= {r.src for r in rows if r.observed == "deny"}
    assert [r for r in rows if r.verdict != "PASS"] == []


def _spoofed_pings_reaching_home1(count: int = 3) -> int:
    """client4 pings home1 from client2's address; how many of those pings home1 hears."""
    ns = f"{NETWORK}-"
    capture = subprocess.Popen(["ip", "netns", "exec", f"{ns}home1", "timeout", "8", "tcpdump", "-lni", "eth0",
                                "icmp[icmptype] == 8 and src 10.10.30.12"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    time.sleep(1.5)  # tcpdump listening
    subprocess.run(["ip", "netns", "exec", f"{ns}client4", "ping", "-I", "10.10.30.12", "-c", str(count), "-W", "1",
                    "10.200.1.10"], capture_output=True, check=False)
    out, _ = capture.communicate(timeout=20)
    return len([line for line in out.splitlines() if "ICMP echo request" in line])


def test_a_spoofed_listed_clients_address_dies_at_its_bound_port_and_is_named_by_validate(
        lab: tuple[Network, Path]) -> None:
    # client4 (not listed) takes client2's address: vpn-clients binds each port to its host
    # (bind_hosts), so core1's stand-in, running the IOS port security and IP source guard as
    # read, drops its pings to home1; with the binding removed they reach home1
    net, state_dir = lab
    client4 = ["ip", "netns", "exec", f"{NETWORK}-client4", "ip", "addr"]
    subprocess.run([*client4, "add", "10.10.30.12/24", "dev", "eth0"], check=True)
    try:
        bound = _spoofed_pings_reaching_home1()
        rows = run_placement(net, lab_access(net), quiet)
        subprocess.run(["ip", "netns", "exec", f"{NETWORK}-core1", "nft", "delete", "table", "bridge",
                        "boothnet_ports"], check=True)
        unbound = _spoofed_pings_reaching_home1()
    finally:
        subprocess.run([*client4, "del", "10.10.30.12/24", "dev", "eth0"], check=True)
        _restore_firewall(state_dir, "core1")
    assert (bound, unbound) == (0, 3)
    # its ARP answers are not IP: the binding leaves them, and validate names the duplicate
    bad = [r for r in rows if r.verdict != "PASS"]
    assert [(r.host, r.finding) for r in bad] == [("client2", "duplicate")], [r.cause for r in bad]
    assert "10.10.30.12 answers from 2 MACs: 02:00:0a:0a:1e:0c on core1:GigabitEthernet1/0/42 (client2's port); " \
        "02:00:0a:0a:1e:0e on core1:GigabitEthernet1/0/44 (client4's port)" in bad[0].cause, bad[0].cause
    assert [r for r in run_placement(net, lab_access(net), quiet) if r.verdict != "PASS"] == []


def test_planted_open_firewall_lets_a_misroute_out_in_clear(lab: tuple[Network, Path], lab_run: Run) -> None:
    net, state_dir = lab
    vpn = lab_vpn(lab_run, state_dir)
    assert vpn is not None
    ns = f"{NETWORK}-bgw1"
    subprocess.run(["ip", "netns", "exec", ns, "nft", "flush", "ruleset"], check=True)
    try:
        row = VpnChecks(net, lab_access(net, state_dir), vpn, quiet).cleartext_guard()
    finally:
        subprocess.run(["ip", "netns", "exec", ns, "nft", "-f", str(state_dir / "configs" / "bgw1" / "nftables.nft")],
                       check=True)
    assert row.verdict == "FAIL" and row.state == "LEAK"
    assert "0 packets dropped" in (row.detail or "") and "leaked" in (row.detail or "")


def test_capture_classification_names_cleartext() -> None:
    gateways = {"198.51.100.2", "203.0.113.2"}
    protected = [IPv4Network("10.10.30.0/24"), IPv4Network("10.200.1.0/24")]
    lines = [
        "01:00:00.000001 IP 198.51.100.2.4500 > 203.0.113.2.4500: UDP-encap: ESP(spi=0x1,seq=0x1), length 120",
        "01:00:00.000002 IP 198.51.100.2.4500 > 203.0.113.2.4500: NONESP-encap: isakmp: child_sa  inf2",
        "01:00:00.000003 IP 198.51.100.1 > 198.51.100.2: ICMP host 203.0.113.2 unreachable, length 156",
        "01:00:00.000004 IP 10.10.30.11 > 10.200.1.10: ICMP echo request, id 1, seq 1, length 64",
    ]
    counts, findings = classify_capture(lines, b"..." + bytes.fromhex(MARKER), gateways, protected)
    assert counts == {"ike": 1, "esp": 1, "other": 1}
    assert findings[0].endswith("length 64") and "ping pattern" in findings[1]
    assert classify_capture(lines[:3], b"", gateways, protected)[1] == []


def _restore_firewall(state_dir: Path, node: str) -> None:
    subprocess.run(["ip", "netns", "exec", f"{NETWORK}-{node}", "nft", "-f",
                    str(state_dir / "configs" / node / "nftables.nft")], check=True)


def test_planted_udp_drop_to_the_secured_network_fails_isolation(lab: tuple[Network, Path]) -> None:
    net, state_dir = lab
    flows = [f for f in isolation_flows(net) if net.vlan_by_name()[f.dst.vlan].zone == "secure"]
    subprocess.run(["ip", "netns", "exec", f"{NETWORK}-hgw1", "nft", "insert", "rule", "inet", "boothnet",
                    "SECURE_HOME_OUT", "udp", "dport", "5201", "drop"], check=True)
    try:
        rows = run_isolation(net, lab_access(net), flows, quiet)
    finally:
        _restore_firewall(state_dir, "hgw1")
    bad = [(r.src, r.flow, r.observed) for r in rows if r.verdict != "PASS"]
    assert bad == [("client1", "udp/5201", "deny"), ("client2", "udp/5201", "deny"), ("client3", "udp/5201", "deny")]
    assert [r for r in run_isolation(net, lab_access(net), flows, quiet) if r.verdict != "PASS"] == []


def test_planted_frozen_ospfd_on_the_booth_router_fails_convergence_north_south(lab: tuple[Network, Path]) -> None:
    net, state_dir = lab
    pid = read_state(state_dir).pids["brt1"]["ospfd"]  # type: ignore[union-attr]
    flows = isolation_flows(net)
    os.kill(pid, signal.SIGSTOP)  # no more hellos: core1 drops brt1 after the dead interval
    try:
        time.sleep(6)
        stage = wait_converged(net, lab_access(net), flows, timeout_s=10)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert stage.status == "FAIL" and stage.reason
    assert "north-south booth1 (booth-lan) -> show network 192.0.2.1 (uplink brt1)" in stage.reason
    assert wait_converged(net, lab_access(net), flows, timeout_s=60).status == "PASS"


def test_planted_shrunk_research_gateway_fails_the_routed_paths_naming_the_hop(lab: tuple[Network, Path]) -> None:
    net, _ = lab
    subprocess.run(["ip", "-n", f"{NETWORK}-core1", "link", "set", "br111", "mtu", "1500"], check=True)
    try:
        rows = [r for r in run_mtu(net, lab_access(net), quiet) if r.verdict != "PASS"]
    finally:
        subprocess.run(["ip", "-n", f"{NETWORK}-core1", "link", "set", "br111", "mtu", "9000"], check=True)
    routed = [r for r in rows if r.path.startswith("routed ")]
    assert len(routed) == 15 and all(r.destination == "r02-cn1" for r in routed)
    assert all("the path shrinks to 1500 at core1's interface in research-02" in (r.cause or "") for r in routed)
    assert [r.path for r in rows if not r.path.startswith("routed ")] == ["core1 (research-02 gateway) -> r02-cn1"]
    assert [r for r in run_mtu(net, lab_access(net), quiet) if r.verdict != "PASS"] == []


def test_a_vpn_path_faster_than_the_labs_own_tunnel_is_judged_against_its_ceiling(lab: tuple[Network, Path],
                                                                                   lab_run: Run) -> None:
    """Issue 34: a booth whose VPN client sits on a 1 Gb/s port failed every WAN row of its tunnel
    path in the lab (290-344 Mb/s of 937, 27 % UDP loss), diagnosed as the network's "loss, a
    slower hop, a busy device": it was the lab's userspace ESP. Here client1's port runs at 1 Gb/s,
    so the path asks the home link's 622 Mb/s of the lab's tunnel; what the lab carries is measured
    once on a scratch pair (calibrate.lab_ceiling) and every row is judged against it, saying so.
    Issue 42: its UDP row lost 2.8-4.1 % twice in CI, read as the network's loss; it was the home
    gateway's charon, starved of CPU, dropping ESP at its full socket buffer. Here that charon is
    stopped for a second while the UDP row sends: the row says so, naming the gateway (no verdict)."""
    from dataclasses import replace

    from boothnet.lab.plan import port_map
    from boothnet.lab.shaping import shape
    from boothnet.validate.perf.calibrate import lab_ceiling
    from boothnet.validate.perf.runner import netns_runner
    from boothnet.validate.perf.wan import run_wan_path
    from boothnet.validate.perf.wan_path import CARRIED, capped, wan_paths
    from boothnet.validate.plan import path_mtu

    net, state_dir = lab
    access = lab_access(net, state_dir)
    vpn = lab_vpn(lab_run, state_dir)
    (path,) = [p for p in wan_paths(net, lambda s, d: path_mtu(net, s, d, vpn.inner_mtu)) if p.source.name == "client1"]
    ceiling = lab_ceiling(lab_run.build_root, quiet)
    asked = replace(path, rate_bps=622e6)
    carried = ceiling("tunnel and delay line", asked)
    # this machine's userspace ESP carries less than the home link: the lab cannot prove 622 Mb/s here
    assert 10e6 < carried < CARRIED * 583e6, carried
    fast = capped(asked, ceiling, tunnel=True)
    assert fast.ceiling_note and fast.expect().physical_bps < 622e6
    switch_port = port_map(net)["core1"][net.endpoints["client1"].attach.split(":", 1)[1]]
    for ns, ifname in ((f"{NETWORK}-client1", "eth0"), (f"{NETWORK}-core1", switch_port)):
        shape(ns, ifname, 1000)
    try:
        assert wait_converged(net, access, isolation_flows(net)).status == "PASS"
        state = read_state(state_dir)
        assert state is not None and net.vpn is not None
        home = net.vpn.home_gateway
        home_charon = state.pids[home]["charon"]
        with measurement_turn(), \
                frozen_once(lambda: bool(iperf3_pids(f"{NETWORK}-client1", " -u ")), lambda: [home_charon],
                            seconds=1.0, after=1.0) as frozen:  # run_wan_path itself: outside validate's turn
            rows = run_wan_path(netns_runner, fast, access.node, net, quiet, lab=True)
    finally:
        for ns, ifname in ((f"{NETWORK}-client1", "eth0"), (f"{NETWORK}-core1", switch_port)):
            shape(ns, ifname, 100)
    for row in rows:
        assert row.explanation and row.explanation.endswith("can only be proven on the floor"), row
        assert "the path carries less than the intent says" not in row.explanation, row
    # a stream slowed while other tests' labs saturated the cores says so (cause cpu_bound): an
    # honest answer, no verdict on the path; every other row passes, or is not judged
    judged = [r for r in rows if not cpu_bound(r)]
    assert all(r.explanation.startswith("CPU-bound: ") for r in rows if r not in judged)
    assert all("cpu_bound" not in r.causes for r in judged), [(r.kind, r.verdict, r.causes) for r in judged]
    by_kind = {r.kind: r for r in judged if not r.reverse}
    if advised := by_kind.get("advised-window"):
        assert advised.verdict == "PASS", advised.explanation
    (udp,) = [r for r in rows if r.kind == "udp"]
    assert frozen and cpu_bound(udp), udp.explanation
    assert udp.explanation.startswith(f"CPU-bound: {home} dropped "), udp.explanation
    # beside TCP filling the lab's tunnel, charon drops UDP: said, and not judged as the network's loss
    assert by_kind["udp-load"].verdict in ("PASS", "SKIPPED"), by_kind["udp-load"].explanation
    assert {r.verdict for r in judged} <= {"PASS", "SKIPPED"}, [(r.kind, r.verdict, r.explanation) for r in judged]


def test_planted_mirror_of_research_into_a_production_port_degrades_production_under_load(
        lab: tuple[Network, Path]) -> None:
    """Issue 34, item 4: production probed idle and under the research aggregates passes; a
    mirror of research traffic into client1's 100 Mb/s port (a SPAN session left on core1) fails
    every probe that crosses that port, and only those, naming client1."""
    net, _ = lab
    access = lab_access(net)
    clean = production_under_load(net, access, quiet)
    # a ping slowed (not lost) while other tests' labs held this machine's cores says so: honest
    assert len(clean) == 25 + 5 and [r for r in clean if r.verdict != "PASS" and not unjudged(r)] == [], \
        [(r.source, r.destination, r.cause) for r in clean if r.verdict != "PASS"]
    mirror = ("table ip planted_mirror {\n chain f {\n  type filter hook forward priority 0;\n"
              '  ip saddr 10.110.0.0/16 dup to 10.10.30.11 device "br30"\n }\n}\n')
    ns = ["ip", "netns", "exec", f"{NETWORK}-core1", "nft"]
    subprocess.run([*ns, "-f", "-"], input=mirror, text=True, check=True)
    try:
        planted = production_under_load(net, access, quiet)
    finally:
        subprocess.run([*ns, "delete", "table", "ip", "planted_mirror"], check=True)
    pings = [r for r in planted if r.probe == "ping"]
    failed = {(r.source, r.destination) for r in pings if r.verdict == "FAIL"}
    # client1 to its gateway, and the production mesh to and from it: its port drops them
    crossing = {(r.source, r.destination) for r in pings if "client1" in (r.source, r.destination)}
    assert len(crossing) == 1 + 8 and failed == crossing, (failed, [(r.source, r.destination, r.causes)
                                                                      for r in pings if r.verdict != "PASS"])
    assert all("research traffic degrades production" in r.cause for r in planted if r.verdict == "FAIL")
