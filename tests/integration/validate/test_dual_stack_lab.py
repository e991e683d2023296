"""Dual stack, live: eos-core-ds (an EOS gateway whose users take SLAAC, an IOS gateway whose lab
hosts are static, OSPF and OSPFv3 on the routed link between them) validated in both families,
and the four IPv6 faults of issue 44 planted, each failing validate by name while IPv4 stays
green: an IPv6-only leak research -> production, Packet Too Big dropped on one router, router
advertisements off on one VLAN, an OSPFv3 adjacency down beside a working OSPF one. The vendor
faults are planted as a booth team's hand edit would leave the configs (`lab-up --configs`): the
stand-ins run them as the switches read them. A lab of four hosts comes up in seconds, so each
test of a hand-edited config has its own; the faults planted at run time share one, each undone."""

from __future__ import annotations

import os
import re
import subprocess
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from boothnet.family import Family
from boothnet.lab.scratch import copy_inventory
from boothnet.poll import poll
from boothnet.render.build import render_all
from boothnet.run import Run
from boothnet.validate.access import lab_access
from boothnet.validate.checks.mtu import run_mtu
from boothnet.validate.checks.ospf import CHECK as OSPF
from boothnet.validate.profile import FULL
from boothnet.validate.results import ValidationResults
from boothnet.validate.stage import run_validate
from boothnet.watch.round import ROTATION
from tests.helpers import ROOT, quiet, running_lab
from tests.integration.validate.planted import nft, nft_ruleset

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces (CI runs as root)"),
]
INVENTORY = ROOT / "inventories" / "eos-core-ds"
SEED = 2026
# the module's lab for the faults planted at run time, beside the per-test labs of the hand edits
RUNTIME, RUNTIME_MGMT = "ds-run", "198.18.16.0/24"  # used by no other lab, test or benchmark
# Batfish is asked of IPv4 in the modules that load it; here the offline evaluator answers IPv6
PROFILE = FULL.edit(isolation_seed=SEED, ask_batfish=False)


def _configs(folder: Path, device: str, edit: Callable[[str], str]) -> Path:
    """The rendered IOS/EOS configs with `edit` applied to `device`'s (it must change it)."""
    run = Run(INVENTORY, folder / "render")
    folder.mkdir(parents=True, exist_ok=True)
    for f in render_all(run.models("hardware"), run.net.name):
        text = edit(f.text) if f.device == device else f.text
        assert f.device != device or text != f.text, f"the edit changed nothing in {device}.cfg"
        (folder / f.path).write_text(text)
    return folder


def _in_section(header: str, old: str, new: str) -> Callable[[str], str]:
    """Replace the first `old` after the line `header` (an interface or an ACL)."""
    def edit(text: str) -> str:
        start = text.index(f"{header}\n")
        at = text.index(old, start)
        return text[:at] + new + text[at + len(old):]
    return edit


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """The lab on the configs as rendered, for the tests that plant at run time (each undoes it)."""
    folder = tmp_path_factory.mktemp("dual-stack")
    run = Run(copy_inventory(INVENTORY, folder / "inv", RUNTIME, RUNTIME_MGMT), build := folder / "build")
    with running_lab(run, build):
        yield run


@pytest.fixture
def validated(tmp_path: Path) -> Callable[..., Iterator[ValidationResults]]:
    @contextmanager
    def up(configs: Path, convergence_s: float = 60) -> Iterator[ValidationResults]:
        run = Run(INVENTORY, tmp_path / "build")
        run.vendor_configs = configs
        with running_lab(run, tmp_path / "build"):
            yield run_validate(run, PROFILE.edit(convergence_timeout_s=convergence_s, throughput=False))
    return up


def _handle(network: str, node: str) -> str:
    """The handle of the planted Packet Too Big drop in ``node``'s forward chain."""
    listed = subprocess.run(["ip", "netns", "exec", f"{network}-{node}", "nft", "-a", "list", "chain", "inet",
                             "boothnet", "forward"], capture_output=True, text=True, check=True).stdout
    return re.search(r"packet-too-big drop # handle (\d+)", listed).group(1)


def _not_passed(results: ValidationResults) -> dict[str, list]:
    sections = {"isolation": results.isolation, "endpoints": results.endpoints, "mtu": results.mtu,
                "ospf": OSPF.rows(results)}
    return {name: [r for r in rows if r.verdict != "PASS"] for name, rows in sections.items()}


def test_both_families_pass_on_the_configs_as_rendered(rendered: Run) -> None:
    results = run_validate(rendered, PROFILE)
    assert {name: rows for name, rows in _not_passed(results).items() if rows} == {}
    # each host placed in both families: its IPv6 row, its address, router and neighbour entry
    assert sorted((r.host, r.family) for r in results.endpoints) == [
        (host, family) for host in ("h1", "h2", "h3", "h4") for family in (4, 6)]
    # iperf3 and nuttcp over IPv6 too, each way, judged against IPv6's limit (its header 20 bytes longer)
    six = {(r.tool, r.reverse): r for r in results.throughput if r.family == 6}
    assert sorted(six) == [("iperf3", False), ("iperf3", True), ("nuttcp", False), ("nuttcp", True)]
    four = next(r for r in results.throughput if r.family == 4 and r.path == "lab: h3 -> h4")
    assert all(r.verdict == "PASS" and r.path == "lab: h3 -> h4 (IPv6)" and r.expected < four.expected
               for r in six.values()), six
    six = [r for r in results.isolation if r.family == 6]
    # every pair probed in both families, each IPv6 row decided by the offline evaluator too
    assert len(six) == sum(r.family == 4 for r in results.isolation) and six
    assert {r.engine for r in six} == {"offline evaluator"} and all(r.batfish == r.observed for r in six)
    assert {(r.device, r.family) for r in OSPF.rows(results)} == {("es1", 4), ("es1", 6), ("cs1", 4), ("cs1", 6)}
    # each host's link to its gateway in both families, and the routed jumbo path (h3's research
    # VLAN to users, a router shrinking it) in IPv6 too
    assert sorted(r.path for r in results.mtu if r.family == 6) == [
        "h1 -- es1:Ethernet1 (IPv6)", "h2 -- es1:Ethernet2 (IPv6)", "h3 -- cs1:GigabitEthernet1/0/1 (IPv6)",
        "h4 -- cs1:GigabitEthernet1/0/2 (IPv6)", "routed h3 (lab) -> h1 (users) (IPv6)"]
    # production's pings under research load in IPv6 too (h1 to its gateway; h1 is users' only host)
    assert [(r.source, r.destination) for r in results.production if r.family == 6] == [("h1", "es1 (gateway) (IPv6)")]
    stage = next(s for s in results.stages if s.name == "isolation (Batfish)")
    assert "IPv6 flows decided by the offline evaluator (Batfish 0.36 traces no IPv6)" in (stage.note or "")


def test_an_ipv6_only_leak_research_to_production_fails_isolation_naming_its_flows(validated, tmp_path) -> None:
    # the IOS gateway's IPv6 ACL opens every research -> users port in IPv6; its IPv4 ACL is untouched
    configs = _configs(tmp_path / "edited", "cs1", _in_section(
        "ipv6 access-list LAB_IN_V6", " permit icmp",
        " permit ipv6 2001:db8:4:20::/64 2001:db8:4:10::/64\n permit icmp"))
    with validated(configs) as results:
        pass
    failed = _not_passed(results)
    assert failed["endpoints"] == failed["mtu"] == failed["ospf"] == []
    leaks = failed["isolation"]
    assert leaks and {(r.src_zone, r.dst_zone, r.family, r.observed) for r in leaks} == {("lab", "users", 6, "permit")}
    assert all(r.batfish == "deny" and r.engine == "offline evaluator" for r in leaks)  # the intent's configs deny it
    # es1's stand-in is stateless as the switch is (issue 66): the SYN-ACK of the leaked tcp/22 dies
    # at USERS_IN_V6, and the responder, which logs a TCP probe once accepted, never sees it; the
    # datagrams it logs on arrival
    assert {r.flow for r in leaks} >= {"udp/123 (IPv6)"}


def test_packet_too_big_dropped_on_one_router_black_holes_the_jumbo_ipv6_path_only(rendered: Run) -> None:
    # cs1 drops the Packet Too Big es1 sends back toward h3 (before conntrack takes it as related)
    ruleset = nft_ruleset(RUNTIME, "cs1")
    nft(RUNTIME, "cs1", "insert", "rule", "inet", "boothnet", "forward", "icmpv6", "type", "packet-too-big", "drop")
    try:
        results = run_validate(rendered, PROFILE.edit(throughput=False))
        # the show week's watch sees it too, in IPv6 alone, on the round whose share holds h3's paths
        rounds = zlib.crc32(b"h3") % ROTATION or ROTATION
        watch = subprocess.run([str(ROOT / ".venv/bin/boothnet"), "watch", "-i", str(rendered.inventory),
                                "--build-dir", str(rendered.build_root), "--lab", "--rounds", str(rounds),
                                "--every", "1", "--port", "0"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    finally:
        nft(RUNTIME, "cs1", "delete", "rule", "inet", "boothnet", "forward", "handle", _handle(RUNTIME, "cs1"))
    assert nft_ruleset(RUNTIME, "cs1") == ruleset  # undone: the module's lab is as rendered again
    mtu_alarms = [line for line in watch.stdout.splitlines() if " ALARM mtu: " in line]
    assert mtu_alarms and all("routed h3 (lab) -> h1 (users) (IPv6)" in line for line in mtu_alarms), \
        watch.stdout + watch.stderr
    failed = _not_passed(results)
    assert failed["isolation"] == failed["endpoints"] == failed["ospf"] == []
    assert [(r.path, r.verdict) for r in failed["mtu"]] == [("routed h3 (lab) -> h1 (users) (IPv6)", "FAIL")]
    assert failed["mtu"][0].cause.startswith("DF ping of 1501 bytes vanished: no Packet Too Big came back from the "
                                             "router where the path shrinks to 1500")
    # the same path in IPv4: the router's "frag needed" comes back
    assert any(r.path == "routed h3 (lab) -> h1 (users)" and r.verdict == "PASS" for r in results.mtu)


def test_router_advertisements_off_on_one_vlan_leave_its_hosts_without_ipv6(validated, tmp_path) -> None:
    configs = _configs(tmp_path / "edited", "es1", _in_section(
        "interface Vlan10", "   ipv6 address 2001:db8:4:10::1/64\n",
        "   ipv6 address 2001:db8:4:10::1/64\n   ipv6 nd ra disabled\n"))
    # convergence waits on the IPv6 pings that never come: long enough for OSPF's to have come
    with validated(configs, convergence_s=20) as results:
        pass
    failed = _not_passed(results)
    assert [(r.host, r.family, r.cause) for r in failed["endpoints"]] == [
        (host, 6, f"has no global IPv6 address; the intent says {address}/64 (SLAAC from its gateway's router "
               "advertisements); no IPv6 default router: no router advertisement from es1 reached it")
        for host, address in (("h1", "2001:db8:4:10:0:aff:fe04:a0b"), ("h2", "2001:db8:4:10:0:aff:fe04:a0c"))]
    assert failed["ospf"] == []
    assert [r for r in failed["isolation"] if r.family == 4] == []
    assert {r.family for r in failed["isolation"]} == {6}
    # their links to es1 carry no IPv6 either, and the routed path to h1 none; IPv4's all pass
    assert sorted(r.path for r in failed["mtu"]) == ["h1 -- es1:Ethernet1 (IPv6)", "h2 -- es1:Ethernet2 (IPv6)",
                                                     "routed h3 (lab) -> h1 (users) (IPv6)"]


def test_an_ospfv3_adjacency_down_while_ospf_is_up_is_named_at_both_ends(validated, tmp_path) -> None:
    # the IOS end of the routed link keeps IOS's OSPFv3 timers (10/40 s); es1 runs 1/4 s
    configs = _configs(tmp_path / "edited", "cs1", _in_section(
        "interface TenGigabitEthernet1/1/1", " ipv6 ospf hello-interval 1\n ipv6 ospf dead-interval 4\n", ""))
    with validated(configs, convergence_s=20) as results:
        pass
    down = _not_passed(results)["ospf"]
    assert sorted((r.device, r.family, r.cause) for r in down) == [
        ("cs1", 6, "cs1 eth3: no OSPFv3 adjacency with es1 (10.4.255.1): no such neighbour"),
        ("es1", 6, "es1 eth3: no OSPFv3 adjacency with cs1 (10.4.255.2): no such neighbour")]
    assert all(r.verdict == "PASS" for r in OSPF.rows(results) if r.family == 4)
    assert all(r.verdict == "PASS" for r in results.isolation if r.family == 4)


def test_a_hosts_ipv6_mtu_below_its_links_fails_its_ipv6_link_row_alone(rendered: Run) -> None:
    # h2 sends IPv6 at 1400 (as a router advertisement's MTU option would set it) on a 1500 link:
    # its IPv6 link row fails naming what its own interface knows; its IPv4 row passes
    def ipv6_mtu(value: str) -> None:
        subprocess.run(["ip", "netns", "exec", f"{RUNTIME}-h2", "sysctl", "-qw", f"net.ipv6.conf.eth0.mtu={value}"],
                       check=True)

    def h2_reaches_es1() -> bool:  # its SLAAC address formed (the module's lab may be just up)
        return subprocess.run(["ip", "netns", "exec", f"{RUNTIME}-h2", "ping", "-c", "1", "-W", "1",
                               str(rendered.net.gateway_address(rendered.net.vlan_by_name()["users"], Family.V6))],
                              capture_output=True).returncode == 0

    assert poll(h2_reaches_es1, bool, timeout=30)
    ipv6_mtu("1400")
    try:
        rows = {r.path: r for r in run_mtu(rendered.net, lab_access(rendered.net), quiet, share=lambda n: n == "h2")}
    finally:
        ipv6_mtu("1500")
    assert rows["h2 -- es1:Ethernet2"].verdict == "PASS"
    six = rows["h2 -- es1:Ethernet2 (IPv6)"]
    assert (six.verdict, six.family, six.cause) == ("FAIL", 6, "DF ping of 1500 bytes failed: frag needed, MTU 1400 "
                                                                "known at the sender"), six


def _run(node: str, *argv: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", "netns", "exec", f"{RUNTIME}-{node}", *argv], capture_output=True, text=True,
                          **kw)  # type: ignore[call-overload]


def _os_addresses(node: str, on: bool) -> None:
    """The host's IPv6 addresses as default Linux, Windows and macOS form them (stable-privacy
    interface ids, RFC 8981 temporary addresses preferred as sources), or back to EUI-64."""
    settings = ([f"net.ipv6.conf.eth0.stable_secret={'2001:db8:' + node.encode().hex() + '::5ec'}",
                 "net.ipv6.conf.eth0.addr_gen_mode=2", "net.ipv6.conf.eth0.use_tempaddr=2"] if on
                else ["net.ipv6.conf.eth0.addr_gen_mode=0", "net.ipv6.conf.eth0.use_tempaddr=0"])
    for setting in settings:
        _run(node, "sysctl", "-qw", setting, check=True)
    # the addresses re-form at link-up, from the next router advertisement
    _run(node, "ip", "-6", "addr", "flush", "dev", "eth0", "scope", "global", check=True)
    _run(node, "ip", "link", "set", "eth0", "down", check=True)
    _run(node, "ip", "link", "set", "eth0", "up", check=True)


def _source6(node: str, dst: str) -> str | None:
    """The source address the host picks for `dst` (its temporary one, where it has one)."""
    out = _run(node, "ip", "-6", "route", "get", dst).stdout
    found = re.search(r" src (\S+)", out)
    return found.group(1) if found else None


def _tcp_reaches(src: str, dst: str, port: int, detail: dict[str, str]) -> bool:
    """A TCP connection from `src` (the address it picks) to a listener on h3's `dst` (its own
    address: sshd holds port 22 on the management address)."""
    listener = subprocess.Popen(["ip", "netns", "exec", f"{RUNTIME}-h3", "python3", "-c",
                                 "import socket; s = socket.socket(socket.AF_INET6); s.settimeout(8); "
                                 f"s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('{dst}', {port})); "
                                 "s.listen(); c, a = s.accept(); print(a[0])"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    client = _run(src, "python3", "-c", f"import socket; socket.create_connection(('{dst}', {port}), timeout=3)")
    listener.kill()
    _, err = listener.communicate(timeout=10)
    detail[src] = f"{client.stderr.strip()[-200:]} / {err.strip()[-200:]}"
    return client.returncode == 0


def test_a_listed_host_on_temporary_addresses_keeps_its_ipv6_as_the_policy_says(rendered: Run) -> None:
    """Issue 66 item 8: h1 (an admin: tcp/22 to the lab) and h2 (not listed) take stable-privacy and
    temporary addresses, as their OS ships: es1's stand-in runs the EOS port ACLs as rendered (the
    host's MAC and its prefix, the port's policy on it): h1's temporary address pings and reaches
    h3 on tcp/22, h2's pings and is refused tcp/22 at its port. Planted, the binding before (the
    host's EUI-64 address only) drops h1's temporary address at its port, and validate's link row
    names the binding and the source it drops, not an MTU black hole."""
    h3 = "2001:db8:4:20::11"
    eui64 = {h: str(rendered.net.endpoint_address(rendered.net.endpoints[h], Family.V6)) for h in ("h1", "h2")}
    detail: dict[str, str] = {}
    # converged: h1 reaches h3 from its EUI-64 address (the module's lab may be just up)
    assert poll(lambda: _run("h1", "ping", "-6", "-c", "1", "-W", "1", h3).returncode == 0, bool, timeout=60)
    ruleset = nft_ruleset(RUNTIME, "es1")
    try:
        for host in ("h1", "h2"):
            _os_addresses(host, on=True)
        assert poll(lambda: all((src := _source6(h, h3)) and src.startswith("2001:db8:4:10:") and src != eui64[h]
                                for h in ("h1", "h2")), bool, timeout=30)
        sources = {h: _source6(h, h3) for h in ("h1", "h2")}
        assert all(not _run(h, "ip", "-6", "addr", "show", "dev", "eth0").stdout.count(eui64[h]) for h in sources)
        pinged = {h: _run(h, "ping", "-6", "-c", "2", "-W", "2", h3).returncode == 0 for h in ("h1", "h2")}
        ssh = {h: _tcp_reaches(h, h3, 22, detail) for h in ("h1", "h2")}
        # the binding before: the port admitted its host's EUI-64 address alone
        nft(RUNTIME, "es1", "insert", "rule", "bridge", "boothnet_ports", "bound", "iifname", '"eth1"', "ip6",
            "saddr", "!=", "{", f"{eui64['h1']},", "fe80::/10,", "::", "}", "drop")
        before = _run("h1", "ping", "-6", "-c", "2", "-W", "2", h3).returncode == 0
        # validate names the binding, not an MTU black hole on h1's link
        link = next(r for r in run_mtu(rendered.net, lab_access(rendered.net), quiet, share=lambda n: n == "h1")
                    if r.path == "h1 -- es1:Ethernet1 (IPv6)")
    finally:
        subprocess.run(["ip", "netns", "exec", f"{RUNTIME}-es1", "nft", "-f", "-"],
                       input=f"flush ruleset\n{ruleset}", text=True, check=True)
        for host in ("h1", "h2"):
            _os_addresses(host, on=False)
    assert (pinged, ssh, before) == ({"h1": True, "h2": True}, {"h1": True, "h2": False}, False), (sources, detail)
    assert link.verdict == "FAIL" and link.cause == (
        "a small ping to its gateway fails too: its IPv6 dies whatever its size, not an MTU black hole: its port's "
        f"IPv6 binding drops its source {sources['h1']} (es1:Ethernet1: port ACL BOUND6_ETHERNET1, the port admits "
        "2001:db8:4:10::/64 from 02:00:0a:04:0a:0b as rendered; check the switch's running port ACL and port "
        "security)"), link.cause
    assert poll(lambda: _source6("h1", h3) == eui64["h1"], bool, timeout=30)  # as the module's lab was
    assert nft_ruleset(RUNTIME, "es1") == ruleset


def test_a_static_vlans_router_advertisements_applied_line_by_line_never_let_its_hosts_autoconfigure(
        rendered: Run) -> None:
    """ci114, ci118, ci122: h1 of the floor test held a SLAAC address in its static VLAN, and its
    permits bound to its intent address failed. FRR advertises a connected prefix with the A flag
    until an `ipv6 nd prefix ... no-autoconfig` line says otherwise, and vtysh -b applies a config
    line by line: RAs turned on first went out within a second, before the prefix line on a busy
    machine. Here cs1's rendered RA block (the lab VLAN, static hosts) is applied again line by
    line, a second apart, after RAs were off; h3 must keep its intent address alone."""
    frr_conf = (rendered.layout.lab / "configs" / "cs1" / "frr.conf").read_text()
    block = next(b for b in re.findall(r"^interface \S+\n(?:^ .*\n)+^exit$", frr_conf, flags=re.M)
                 if "no-autoconfig" in b)
    header, *lines = block.splitlines()[:-1]
    prefix = next(line.split()[3] for line in lines if line.startswith(" ipv6 nd prefix "))

    def vtysh(*commands: str) -> None:
        subprocess.run(["ip", "netns", "exec", f"{RUNTIME}-cs1", "vtysh", "-N", f"{RUNTIME}-cs1", "-c", "conf t",
                        "-c", header, *(arg for c in commands for arg in ("-c", c.strip()))], check=True,
                       capture_output=True)

    def global6(host: str) -> list[str]:
        return re.findall(r"inet6 (\S+)", subprocess.run(
            ["ip", "-n", f"{RUNTIME}-{host}", "-6", "-o", "addr", "show", "dev", "eth0", "scope", "global"],
            capture_output=True, text=True, check=True).stdout)

    def advertised() -> bool:  # the bridge's link-local address out of DAD: RAs can go out
        shown = subprocess.run(["ip", "netns", "exec", f"{RUNTIME}-cs1", "vtysh", "-N", f"{RUNTIME}-cs1", "-c",
                                f"show {header}"], capture_output=True, text=True, check=True).stdout
        return not re.search(r"router advertisements sent: 0 ", shown)

    assert poll(advertised, bool, 30)
    vtysh("ipv6 nd suppress-ra", f"no ipv6 nd prefix {prefix}")
    for line in lines:
        vtysh(line)
        time.sleep(1)
    time.sleep(1)
    assert global6("h3") == ["2001:db8:4:20::11/64"]


def test_a_routed_port_cut_and_restored_keeps_its_ipv6_address(rendered: Run) -> None:
    # last: it flaps the module lab's routed link. Linux flushes a port's IPv6 addresses when it
    # goes down; the demo's outside-link cut left hgw1 without its IPv6 address, its WAN path
    # unreachable in IPv6 ("Network is unreachable") and drift naming the address
    def global6() -> list[str]:  # the addresses alone: one back up may be tentative again (DAD)
        return re.findall(r"inet6 (\S+)", subprocess.run(
            ["ip", "-n", f"{RUNTIME}-cs1", "-6", "-o", "addr", "show", "dev", "eth3", "scope", "global"],
            capture_output=True, text=True, check=True).stdout)

    before = global6()
    assert before and before[0].startswith("2001:db8:"), before
    for state in ("down", "up"):
        subprocess.run(["ip", "-n", f"{RUNTIME}-cs1", "link", "set", "eth3", state], check=True)
    assert global6() == before



def test_a_port_acl_that_binds_its_host_without_its_policy_leaks_and_fails_isolation(validated, tmp_path) -> None:
    """Issue 66 item 7: es1's port ACL for h2 (not an admin) admits its prefix to anything, the
    policy left on the SVI. The 7010T's profile leaves how port and SVI ACLs compose unsettled, so
    the stand-in runs the port ACL alone for the port's traffic: h2 reaches the lab on the admins'
    tcp/22 and udp/123 in IPv6, and validate fails those rows (the configs as rendered deny them)."""
    configs = _configs(tmp_path / "edited", "es1", _in_section(
        "ipv6 access-list BOUND6_ETHERNET2", "   permit ipv6 fe80::/10 any\n",
        "   permit ipv6 2001:db8:4:10::/64 any\n   permit ipv6 fe80::/10 any\n"))
    with validated(configs) as results:
        pass
    failed = _not_passed(results)
    assert failed["endpoints"] == failed["mtu"] == failed["ospf"] == []
    leaks = failed["isolation"]
    assert {(r.src, r.dst_zone, r.family, r.observed) for r in leaks} == {("h2", "lab", 6, "permit")}, leaks
    assert {"tcp/22 (IPv6)", "udp/123 (IPv6)"} <= {r.flow for r in leaks}
    assert all(r.batfish == "deny" and r.engine == "offline evaluator" for r in leaks)


def test_a_foreign_mac_err_disables_an_eos_bound_port_until_cleared(rendered: Run) -> None:
    """Issue 66 item 10: the 7010T's port security err-disables (its profile prints no violation
    mode: `protect` found in no guide for its release). h2 sends from another MAC: its port goes
    down for everything, its own MAC back included, until cleared; h1's port stays up."""
    gateway, mac = "10.4.10.1", "02:00:0a:04:0a:0c"

    def pings(host: str) -> bool:
        return _run(host, "ping", "-c", "2", "-W", "1", gateway).returncode == 0

    # none at lab up: the hosts' MACs are set before the switches load port security (a veth's
    # random MAC sending router solicitations once err-disabled h2's port in a CI run)
    assert "elements" not in _run("es1", "nft", "list", "set", "bridge", "boothnet_ports", "errdisabled").stdout
    assert poll(lambda: pings("h2"), bool, timeout=60)
    ruleset = nft_ruleset(RUNTIME, "es1")
    try:
        _run("h2", "ip", "link", "set", "eth0", "address", "02:00:0a:04:0a:99", check=True)
        foreign = pings("h2")
        _run("h2", "ip", "link", "set", "eth0", "address", mac, check=True)
        own_again = pings("h2")
        disabled = _run("es1", "nft", "list", "set", "bridge", "boothnet_ports", "errdisabled").stdout
        others = pings("h1")
    finally:
        _run("h2", "ip", "link", "set", "eth0", "address", mac, check=True)
        subprocess.run(["ip", "netns", "exec", f"{RUNTIME}-es1", "nft", "-f", "-"],
                       input=f"flush ruleset\n{ruleset}", text=True, check=True)
    assert (foreign, own_again, others) == (False, False, True)
    assert '"eth2"' in disabled and '"eth1"' not in disabled, disabled
    assert poll(lambda: pings("h2"), bool, timeout=30)  # cleared: as the module's lab was


# a router advertisement as a rogue host sends it (RFC 4861 4.2, high preference, a prefix of its
# own): the kernel fills in the ICMPv6 checksum and sources it from the port's link-local address
ROGUE_RA = """
import socket, struct, sys
index = socket.if_nametoindex("eth0")
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
ra = struct.pack("!BBHBBHII", 134, 0, 0, 64, 0x08, 1800, 0, 0)
pio = struct.pack("!BBBBIII", 3, 4, 64, 0xC0, 86400, 14400, 0) + socket.inet_pton(socket.AF_INET6, "2001:db8:bad::")
for _ in range(3):
    s.sendto(ra + pio, ("ff02::1", 0, 0, index))
"""


def test_a_rogue_router_advertisement_from_a_bound_port_reaches_no_host(rendered: Run) -> None:
    """A fresh-eyes review of the configs: a bound port's IPv6 ACL admitted every link-local
    source, router advertisements included, so h2 could become h1's IPv6 default router. The
    port ACL now denies RAs first (RA guard as a port ACL), the stand-in runs it as read: h1 takes
    neither the rogue's route nor an address in its prefix. Planted (that line taken out of es1's
    running rules), h1 takes both."""
    def rogue_taken() -> tuple[bool, bool]:
        routes = _run("h1", "ip", "-6", "route", "show", "default").stdout
        addresses = _run("h1", "ip", "-6", "addr", "show", "dev", "eth0").stdout
        return h2_link_local in routes, "2001:db8:bad:" in addresses

    def send() -> bool:  # once h2's link-local address is out of duplicate detection (a lab just up)
        return _run("h2", "python3", "-c", ROGUE_RA).returncode == 0

    h2_link_local = re.search(r"inet6 (fe80::\S+)/64", _run("h2", "ip", "-6", "addr", "show", "dev", "eth0").stdout
                              ).group(1)
    assert poll(send, bool, timeout=10)
    time.sleep(2)
    assert rogue_taken() == (False, False)
    # dropped and counted at h2's port: the rule that counted the rogue's RAs, its chain and handle
    chain, handle, dropped = "", "", 0
    for line in _run("es1", "nft", "-a", "list", "table", "bridge", "boothnet_ports").stdout.splitlines():
        chain = m.group(1) if (m := re.match(r"\s*chain (\S+) \{", line)) else chain
        m = re.search(r"nd-router-advert counter packets (\d+) bytes \d+ drop # handle (\d+)", line)
        if m and int(m.group(1)):
            handle, dropped = m.group(2), int(m.group(1))
            break
    assert dropped >= 3, "no port rule of es1 counted the rogue's router advertisements"
    ruleset = nft_ruleset(RUNTIME, "es1")
    try:
        _run("es1", "nft", "delete", "rule", "bridge", "boothnet_ports", chain, "handle", handle, check=True)
        assert send()
        assert poll(rogue_taken, lambda taken: taken == (True, True), timeout=10) == (True, True)
    finally:
        subprocess.run(["ip", "netns", "exec", f"{RUNTIME}-es1", "nft", "-f", "-"],
                       input=f"flush ruleset\n{ruleset}", text=True, check=True)
        _run("h1", "ip", "-6", "route", "del", "default", "via", h2_link_local, "dev", "eth0")
        _run("h1", "ip", "-6", "addr", "flush", "dev", "eth0", "to", "2001:db8:bad::/64")
