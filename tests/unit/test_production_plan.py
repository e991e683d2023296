"""Production under research load: which probes, which load, and how a probe is judged."""

from __future__ import annotations

from boothnet.intent import load_network
from boothnet.validate.checks.production import (
    LOST_BOUND,
    RTT_BOUND_MS,
    _judge_ping,
    _outlasted,
    _slowed_by_this_machine,
    lab_share,
    load_seconds,
    production_probes,
    production_transfers,
    research_load,
)
from boothnet.validate.perf.probes import parse_ping

BOOTH = load_network("inventories/sc-booth")


def _ping(rtts: list[float], sent: int = 50) -> str:
    """iputils ping's output for ``rtts`` replies of ``sent``."""
    lines = [f"64 bytes from 10.10.10.1: icmp_seq={i + 1} ttl=64 time={r} ms" for i, r in enumerate(rtts)]
    tail = (f"--- 10.10.10.1 ping statistics ---\n{sent} packets transmitted, {len(rtts)} received, "
            f"{round(100 * (sent - len(rtts)) / sent)}% packet loss, time 1000ms\n")
    if rtts:
        tail += f"rtt min/avg/max/mdev = {min(rtts)}/{sum(rtts) / len(rtts):.3f}/{max(rtts)}/0.010 ms\n"
    return "\n".join(["PING 10.10.10.1 (10.10.10.1) 56(84) bytes of data.", *lines, "", tail])


def test_sc_booth_probes_every_production_vlan_and_loads_the_research_aggregates() -> None:
    probes = [(probe.host.name, probe.what) for probe in production_probes(BOOTH)]
    # five production VLANs with hosts (show-uplink has routers only), each to its gateway, and the
    # production mesh between them
    assert probes[:5] == [("booth1", "core1 (gateway)"), ("client1", "core1 (gateway)"), ("noc1", "core1 (gateway)"),
                          ("theater1", "core1 (gateway)"), ("wmon1", "core1 (gateway)")]
    assert len(probes) == 5 + 5 * 4 and ("booth1", "theater1") in probes
    # a transfer into each of them from the next (a ring)
    assert [(s.name, d.name) for s, d in production_transfers(BOOTH)] == [
        ("client1", "booth1"), ("noc1", "client1"), ("theater1", "noc1"), ("wmon1", "theater1"), ("booth1", "wmon1")]
    load = research_load(BOOTH)
    assert all(t.across is not None for t in load) and load
    assert all(BOOTH.vlan_by_name()[h.vlan].zone == "research" for t in load for h in t.hosts)


def test_the_lab_loads_research_with_a_few_flows_per_core_each_aggregate_keeping_its_share() -> None:
    load = research_load(BOOTH)
    assert [len(t.flows) for t in load] == [32, 3]
    # four flows (2 cores, 2 per core): the 32-client aggregate keeps 3 of them, the other its first
    assert [t.flows for t in lab_share(load, 4)] == [load[0].flows[:3], load[1].flows[:1]]
    assert [t.name for t in lab_share(load, 4)] == [t.name for t in load]
    assert lab_share(load, 35) == load


def test_a_dual_stack_booth_probes_production_in_ipv6_too() -> None:
    booth = load_network("inventories/sc-booth-ds")
    six = [(p.host.name, p.address, p.what) for p in production_probes(booth) if p.family == 6]
    # every production host's gateway in IPv6 (SLAAC hosts hold an address the intent need not know);
    # between hosts only where both addresses are known: the one first host with a MAC, client1
    assert six == [(host, f"2001:db8:{vlan}::1", "core1 (gateway) (IPv6)") for host, vlan in (
        ("booth1", 10), ("client1", 30), ("noc1", 50), ("theater1", 20), ("wmon1", 40))]
    assert len([p for p in production_probes(booth) if p.family == 4]) == len(production_probes(BOOTH))


def test_lab_mini_loads_its_research_path_and_probes_users() -> None:
    mini = load_network("inventories/lab-mini")
    assert [(probe.host.name, probe.what) for probe in production_probes(mini)] == [("h1", "r1 (gateway)")]
    assert production_transfers(mini) == []  # one production VLAN: no transfer between two
    assert [t.name for t in research_load(mini)] == ["lab: h3 -> h4"]


def test_a_ping_passes_within_the_bounds_and_fails_beyond_them() -> None:
    host = BOOTH.endpoints["booth1"]
    idle = parse_ping(_ping([0.02] * 50), 0, node="booth1", destination="10.10.10.1")
    calm = parse_ping(_ping([0.02 + RTT_BOUND_MS * 0.9] * 50), 0)
    slow = parse_ping(_ping([0.02 + RTT_BOUND_MS * 1.5] * 50), 0)
    lossy = parse_ping(_ping([0.02] * (50 - LOST_BOUND - 1)), 1)
    dead = parse_ping(_ping([]), 1)
    assert _judge_ping(host, "core1 (gateway)", idle, calm).verdict == "PASS"
    row = _judge_ping(host, "core1 (gateway)", idle, slow)
    assert row.verdict == "FAIL" and f"(+{RTT_BOUND_MS * 1.5:.3f}) (at most +{RTT_BOUND_MS:g})" in row.cause
    row = _judge_ping(host, "core1 (gateway)", idle, lossy)
    assert row.verdict == "FAIL" and row.lost == LOST_BOUND + 1 and "research traffic degrades production" in row.cause
    row = _judge_ping(host, "core1 (gateway)", idle, dead)
    assert row.verdict == "FAIL" and "under load no reply" in row.cause
    assert _judge_ping(host, "core1 (gateway)", dead, idle).verdict == "ERROR"  # no baseline: not judged


def test_the_load_lasts_about_twice_what_the_probes_need() -> None:
    assert load_seconds(25, 5) == 22 and load_seconds(1, 0) == 8


def test_a_probe_that_outlasted_the_load_is_not_a_pass() -> None:
    host = BOOTH.endpoints["booth1"]
    idle = parse_ping(_ping([0.02] * 50), 0)
    passed = _judge_ping(host, "theater1", idle, idle)
    failed = _judge_ping(host, "theater1", idle, parse_ping(_ping([]), 1))
    assert _outlasted(passed, ended=10.0, load_ended=11.0, load_s=20).verdict == "PASS"
    late = _outlasted(passed, ended=12.0, load_ended=11.0, load_s=20)
    assert late.verdict == "ERROR" and late.cause.startswith("it outlasted the research load (20 s)")
    assert late.causes == ["outlasted"]
    assert _outlasted(failed, ended=12.0, load_ended=11.0, load_s=20).verdict == "FAIL"


def test_in_the_lab_a_ping_only_slowed_while_the_cores_were_saturated_is_cpu_bound_not_a_fault():
    host = BOOTH.endpoints["booth1"]
    idle = parse_ping(_ping([0.2] * 50), 0, node="booth1", destination="10.10.10.1")
    slow = _judge_ping(host, "theater1", idle, parse_ping(_ping([3.0] * 50), 0, node="booth1",
                                                           destination="10.10.10.1"))
    lost = _judge_ping(host, "theater1", idle, parse_ping(_ping([3.0] * 40), 0, node="booth1",
                                                          destination="10.10.10.1"))
    assert slow.verdict == lost.verdict == "FAIL"
    honest = _slowed_by_this_machine(slow, busy=0.97)
    assert honest.verdict == "ERROR" and honest.causes == ["cpu_bound"]
    assert honest.cause.startswith("CPU-bound: this machine's cores were 97% busy while it probed")
    assert "RTT idle 0.200 ms, under load 3.000 ms" in honest.cause and "degrades production" not in honest.cause
    assert _slowed_by_this_machine(slow, busy=0.5) == slow  # a quiet machine: the network slowed it
    assert _slowed_by_this_machine(lost, busy=0.97) == lost  # 10 of 50 lost: a fault, whatever the cores


def test_a_ping_under_load_that_never_finished_is_not_judged():
    host = BOOTH.endpoints["booth1"]
    idle = parse_ping(_ping([0.2] * 50), 0, node="booth1", destination="10.10.10.1")
    killed = parse_ping("", 124, node="booth1", destination="10.10.10.1")  # the runner's timeout
    row = _judge_ping(host, "core1 (gateway)", idle, killed)
    assert row.verdict == "ERROR" and row.cause.startswith("the ping under load did not finish"), row
    assert _slowed_by_this_machine(row, busy=0.98) == row
