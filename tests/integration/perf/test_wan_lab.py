"""A WAN link in the netns lab (root): lab-mini with its router link turned into the SC2000
home path (622 Mb/s, 25 ms one way, MTU 9000) through the lab's delay line, validated end to
end; then the same link losing 1 % of its frames, measured with UDP."""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
from functools import partial
from pathlib import Path

import pytest

from boothnet.intent import load_network
from boothnet.lab.names import ns_name
from boothnet.lab.plan import plan_lab
from boothnet.lab.runner import detect_vlan_mode, lab_down, lab_up
from boothnet.lab.scratch import copy_inventory
from boothnet.lab.services import _cmdline, pids_in_namespaces
from boothnet.locks import measurement_turn
from boothnet.report.render import write_report
from boothnet.run import Run
from boothnet.validate.access import lab_access
from boothnet.validate.checks.convergence import wait_converged
from boothnet.validate.perf.calibrate import window_factor
from boothnet.validate.perf.judges import UDP_BUFFER
from boothnet.validate.perf.lab_watch import LabWatch, udp_receivers
from boothnet.validate.perf.probes import drops_meanwhile
from boothnet.validate.perf.runner import netns_runner
from boothnet.validate.perf.wan import PathTests, run_wan_sweep, wan_stream
from boothnet.validate.perf.wan_judges import judge_udp
from boothnet.validate.perf.wan_probes import path_rtt_probe, probe_wan_links
from boothnet.validate.perf.wan_tools import WanTest, run_iperf3
from boothnet.validate.plan import declared_wan_paths, isolation_flows
from boothnet.validate.profile import FULL
from boothnet.validate.stage import run_validate
from tests.helpers import ROOT, cpu_bound, edit_yaml, frozen_once, iperf3_pids, lab_mini_in_both_families

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: builds a netns lab"),
    pytest.mark.skipif(not shutil.which("iperf3"), reason="iperf3 is not installed (make setup)"),
]

NETWORK = "lab-wan"
MGMT = "198.18.13.0/24"  # used by no other lab, test or benchmark


def wan_intent(dst: Path, loss_pct: float = 0.0, delay_ms: float = 25, dual_stack: bool = False) -> Path:
    """lab-mini with r1 -- r2 as a 622 Mb/s, 50 ms RTT WAN hop, jumbo VLANs, and the tools'
    ports open from h1 (admins) to the lab VLAN; the WAN path h1 -> h4 declared. h4 is a plain
    server, so no research subnet is derived: its LAN measurements are other modules' to prove.
    ``dual_stack``: both VLANs, the hop and the hosts in IPv6 too (static addresses), so the WAN
    path has its IPv6 twin."""
    inv = copy_inventory(ROOT / "inventories" / "lab-mini", dst, NETWORK, MGMT)
    if dual_stack:
        lab_mini_in_both_families(inv)
    edit_yaml(inv, "hosts.yml", lambda d: d["all"]["children"]["endpoints"]["hosts"]["h4"].update(role="server"))
    edit_yaml(inv, "group_vars/all/links.yml", lambda d: d["links"][0].update(
        speed=622, delay_ms=delay_ms, loss_pct=loss_pct))
    edit_yaml(inv, "group_vars/all/vlans.yml", lambda d: d["vlans"][0].update(mtu=9000))
    edit_yaml(inv, "host_vars/r1.yml", lambda d: [p.update(mtu=9000) for p in d["ports"]])
    edit_yaml(inv, "group_vars/all/policy.yml", lambda d: d["policy"]["rules"].extend(
        {"name": f"wan-{proto}", "from": "group:admins", "to": "zone:research", "proto": proto, "ports": ports,
         "action": "permit"} for proto, ports in (("tcp", [5201, 5000, 5001]), ("udp", [5201]))))
    edit_yaml(inv, "group_vars/all/throughput.yml", lambda d: d["throughput"].update(
        tools=["iperf3", "nuttcp"], paths=[{"name": "home-path", "from": "h1", "to": "h4"}],
        wan={"duration_s": 2, "omit_s": 1, "sweep": [0.25, 1]}))  # 1 s leaves slow start behind
    return inv


@pytest.fixture
def wan_lab(tmp_path: Path):
    def up(loss_pct: float = 0.0, delay_ms: float = 25, dual_stack: bool = False) -> tuple[Path, Path]:
        inv = wan_intent(tmp_path / "intent", loss_pct, delay_ms, dual_stack)
        build = tmp_path / "build"
        spec, result = plan_lab(inv, detect_vlan_mode(), build)
        assert result.ok, result.findings
        lab_up(spec, build / NETWORK / "lab", lambda _: None)
        return inv, build

    yield up
    lab_down(NETWORK, tmp_path / "build" / NETWORK / "lab", lambda _: None)
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert f"{NETWORK}-" not in namespaces
    processes = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert not [p for p in processes.splitlines() if "boothnet.lab.delayline" in p and str(tmp_path) in p]


def test_the_home_path_measures_its_rtt_and_puts_the_window_advice_to_the_test(wan_lab, tmp_path: Path) -> None:
    inv, build = wan_lab()
    results = run_validate(Run.of(inv, build), FULL.edit(vpn_resilience=False))
    # RTT 50 ms with small and with large (MTU) DF pings, the fastest within the row's own tolerance
    # (the mean may be more: the lab's userspace delay line wakes late on a busy machine)
    assert {r.payload for r in results.rtt} == {56, 8972}
    for row in results.rtt:
        assert row.verdict == "PASS" and 50 <= row.min_ms <= 50 + row.tolerance_ms, row
    # a stream slowed while other tests' labs held this machine's cores says so (ERROR, cause
    # cpu_bound): honest, so it is not judged here; every other row must say what it says below
    honest = [r for r in results.throughput if cpu_bound(r)]
    wan = {r.kind: r for r in results.throughput if r.kind not in ("path", "sweep") and r not in honest}
    # one stream with the OS default window cannot fill 622 Mb/s x 50 ms here (net.ipv4.tcp_wmem
    # caps autotuning at 4 MiB): judged at the window that gives, the host's limit, with the advice;
    # the advised window (the BDP, rounded up) fills the path
    if "default-window" in wan:
        assert wan["default-window"].verdict == "PASS", wan["default-window"].explanation
        assert wan["default-window"].explanation.startswith("window-limited by the sender's autotuning")
        assert wan["default-window"].limit == "window" and "use -w 4194304" in wan["default-window"].explanation
    advised = [r for r in results.throughput if r.kind == "advised-window"]  # both ways: home sends too (-R)
    assert [(r.reverse, r.source, r.destination) for r in advised] == [(False, "h1", "h4"), (True, "h4", "h1")]
    assert all(r.window == 4 * 2**20 for r in advised)
    judged_advised = [r for r in advised if r not in honest]
    assert judged_advised and all(r.verdict == "PASS" for r in judged_advised), [r.explanation for r in advised]
    if "parallel" in wan:
        assert wan["parallel"].verdict == "PASS", wan["parallel"].explanation
        assert len(wan["parallel"].stream_throughputs) == 4
    # a TCP stream beside 25 % of UDP gets what the UDP leaves
    for kind in ("udp", "tcp-under-udp-load", "udp-load"):
        assert kind not in wan or wan[kind].verdict == "PASS", wan[kind].explanation
    sweep = [r for r in results.throughput if r.kind == "sweep"]
    assert len(sweep) == 4 and all(r.verdict == "PASS" for r in sweep if r not in honest), [
        r.explanation for r in sweep]
    for tool in ("iperf3", "nuttcp"):  # window/RTT below the BDP, the limit at it
        assert [r.limit for r in sweep if r.tool == tool] == ["window", "physical"]
        assert all(r.buffer_bytes for r in sweep if r.tool == tool)  # the kernel's buffer, recorded
    stages = {s.name: s.status for s in results.stages}
    honest_kinds = {"sweep" if r.kind == "sweep" else "wan" for r in honest if r.kind != "path"}
    assert stages["wan"] == ("ERROR" if "wan" in honest_kinds else "PASS"), honest
    assert stages["wan sweep"] == ("ERROR" if "sweep" in honest_kinds else "PASS"), honest
    # the report shows the sweep plot and explains both verdicts
    paths = write_report(results, tmp_path / "report")
    page = paths.html.read_text()
    assert (sweep := paths.plots.get("wan sweep")) is not None
    assert base64.b64encode(sweep.read_bytes()).decode()[:200] in page
    assert "fills the path" in page
    assert "default-window" not in wan or "window-limited by the sender&#x27;s autotuning" in page
    # the advised window again while r1's delay line stops for 0.3 s (twice, if the first freeze
    # found its client late), as a CPU taken by something else would: slowed below the pass ratio,
    # and said to be the lab's, naming r1's line (issue 42: rows at 89 % failed CI beside other tests' labs)
    net, r1 = load_network(inv), ns_name(NETWORK, "r1")
    delay_line = [pid for pid in pids_in_namespaces([r1])[r1] if "boothnet.lab.delayline" in _cmdline(pid)]
    with measurement_turn(), frozen_once(lambda: bool(iperf3_pids(ns_name(NETWORK, "h1"), " -w ")),
                                         lambda: delay_line, seconds=0.3, after=1.5, again_every=1.0) as held:
        tcp = wan_stream(PathTests(netns_runner, (ns_name(NETWORK, "h1"), ns_name(NETWORK, "h4")),
                                   declared_wan_paths(net, None)[0], net,
                                   LabWatch.of(partial(ns_name, NETWORK), net, lab=True)),
                         "advised-window", 4 * 2**20)
    # measured again at a quieter moment (the freezer may stop it again while its client runs):
    # a PASS that says its first run was the line's, or still no verdict; either names the line
    assert held and (tcp.verdict == "PASS" and tcp.retried or tcp.verdict == "ERROR" and tcp.causes == ["cpu_bound"]), \
        (tcp.verdict, tcp.explanation, tcp.retried)
    said = tcp.retried or tcp.explanation
    # the line named, beside the cores' share when the machine was saturated too; on a machine
    # saturated meanwhile, the cores' share may account for the stream alone (ci123): honest too
    assert re.search(r"delay line held frames past their time while it ran \(r1's 0\.[3-7]\d s", said) \
        or "CPU-bound: this machine's cores were" in said, said


def test_udp_reports_the_configured_loss_within_its_statistical_error_in_ipv6(wan_lab) -> None:
    # the path's IPv6 twin (the home-path test measures IPv4): the same loss, IPv6's own RTT rows
    inv, build = wan_lab(loss_pct=1.0, dual_stack=True)
    net = load_network(inv)
    assert wait_converged(net, lab_access(net), isolation_flows(net)).status == "PASS"
    path, path6 = declared_wan_paths(net, None)
    assert (path.family, path6.family, path6.address, path6.loss_pct) == (4, 6, "2001:db8:d:20::20", 1.0)
    rate = path6.expect().physical_bps / 2
    receivers = udp_receivers(path6, partial(ns_name, NETWORK), net, lab=True)
    with measurement_turn():  # run_iperf3 itself, outside validate's turn; the lab came up outside it
        udp, dropped_clean = drops_meanwhile(netns_runner, receivers, lambda: run_iperf3(
            netns_runner, (ns_name(NETWORK, "h1"), ns_name(NETWORK, "h4")), path6,
            WanTest("udp", 5, 0, UDP_BUFFER, udp_rate_bps=rate)))
        rtt = [path_rtt_probe(netns_runner, ns_name(NETWORK, "h1"), path6, payload)
               for payload in (56, path6.largest_ping)]
        # the delay line (r1's, userspace) stopped for half a second, as a CPU taken by something
        # else would: it drops at its full TAP queue, and the row says so, naming r1 (issue 42)
        r1 = ns_name(NETWORK, "r1")
        delay_line = [pid for pid in pids_in_namespaces([r1])[r1] if "boothnet.lab.delayline" in _cmdline(pid)]
        # after its handshake's round trips (50 ms); again every second while the client runs: one
        # freeze found its client late on a busy machine and came after the stream (ci110, ci111)
        with frozen_once(lambda: bool(iperf3_pids(ns_name(NETWORK, "h1"), " -u ")), lambda: delay_line,
                         seconds=0.5, after=1.0, again_every=1.0) as frozen:
            starved, dropped_here = drops_meanwhile(
                netns_runner, receivers,
                lambda: run_iperf3(netns_runner, (ns_name(NETWORK, "h1"), ns_name(NETWORK, "h4")), path6,
                                   WanTest("udp", 5, 0, UDP_BUFFER, udp_rate_bps=rate)))
    judged = judge_udp(udp, path6, rate, dropped_clean)
    # a machine overloaded by other tests' labs starves the delay line, which drops at its TAP queue:
    # said CPU-bound (no verdict), an honest answer (twice in CI, the client hung on it: ci104, ci107)
    if not cpu_bound(judged):
        assert judged.verdict == "PASS" and judged.family == 6, judged.explanation
        assert 0.5 < judged.lost_pct < 2.0 and judged.packets > 10_000
    starved_judged = judge_udp(starved, path6, rate, dropped_here)
    assert delay_line and frozen and cpu_bound(starved_judged), starved_judged.explanation
    assert starved_judged.explanation.startswith("CPU-bound: r1 dropped "), starved_judged.explanation
    # 50 ms in IPv6 too, with an 8952-byte DF ping (IPv6's header 20 bytes longer); 1 % of the
    # pings may be lost: the fastest is the path's delay
    assert [(r.payload, r.family, r.verdict) for r in rtt] == [(56, 6, "PASS"), (8952, 6, "PASS")], rtt


def test_a_delay_line_twice_as_slow_as_declared_fails_the_rtt_probe_and_the_sweep(wan_lab, tmp_path: Path) -> None:
    _, build = wan_lab(delay_ms=50, dual_stack=True)  # the lab's delay line: 100 ms round trip
    declared = wan_intent(tmp_path / "declared", dual_stack=True)  # what the intent says: 50 ms
    edit_yaml(declared, "group_vars/all/throughput.yml", lambda d: d["throughput"].update(tools=["iperf3"]))
    net = load_network(declared)
    assert wait_converged(net, lab_access(net), isolation_flows(net)).status == "PASS"
    ns = partial(ns_name, NETWORK)
    _, path6 = declared_wan_paths(net, None)  # the sweep in IPv6: the home-path test sweeps IPv4
    with measurement_turn():  # the probes and the sweep themselves, outside validate's turn
        links = probe_wan_links(net, netns_runner, ns, lambda _: None)
        sweep = run_wan_sweep(netns_runner, path6, ns, net, lambda _: None, window_factor(build, lambda _: None))
    # even the fastest ping takes the line's 100 ms in either family: no load explains that
    assert sorted((r.family, r.payload) for r in links) == [(4, 56), (4, 8972), (6, 56), (6, 8952)], links
    assert all(r.verdict == "FAIL" and r.min_ms >= 100 for r in links), links
    assert all(r.cause.startswith("fastest 1") for r in links), links
    # below the BDP a window carries half of what k x window/RTT says at the declared RTT
    window_limited = [p for p in sweep if p.limit == "window"]
    assert window_limited and all(p.verdict == "FAIL" for p in window_limited), [p.explanation for p in sweep]
    assert {(p.path, p.family) for p in sweep} == {("home-path (IPv6)", 6)}
