"""What validation derives from the intent before touching the lab: tests and their ports."""

from __future__ import annotations

import pytest

from boothnet.derive.policy import PolicyCompiler
from boothnet.intent import load_network
from boothnet.validate.perf.ports import PortAllocator
from boothnet.validate.plan import ThroughputTest, expected_for, links_loaded, throughput_tests
from boothnet.validate.run import port_block


@pytest.fixture(scope="module")
def booth():
    return load_network("inventories/sc-booth")


def test_each_research_subnet_alone_and_together_then_declared_paths(booth):
    names = [t.name for t in throughput_tests(booth)]
    assert names[:3] == ["research-01: r01-cn1 -> r01-fs", "research-01: r01-cn2 -> r01-fs",
                         "research-01: r01-cn1+r01-cn2 -> r01-fs (together)"]
    # the path home crosses the WAN link: the WAN stage tests it (validate/perf/wan.py); then the
    # trunk's two aggregates: every cluster node at once, and one VLAN's hosts at once
    assert len(names) == 16 * 3 + 1 + 2 and names[-3] == "booth-to-theater"
    assert names[-2:] == ["backbone C05 core1 Te1/1/1 <-> rsw1 Et49: 32 clients at once",
                          "backbone C05 core1 Te1/1/1 <-> rsw1 Et49: research-01's 3 hosts at once"]
    across = {t.name: t for t in throughput_tests(booth)}[names[-2]]
    # 32 cluster nodes into 16 file servers (two each, 16 Gb/s at most): the 10 Gb/s trunk limits
    assert len({s.name for _, s in across.flows}) == 16 and across.expected_bps == pytest.approx(9.9004e9, rel=1e-4)
    assert {t.name: t for t in throughput_tests(booth)}[names[-1]].expected_bps == pytest.approx(2.9701e9, rel=1e-4)


def test_throughput_ports_follow_the_policy(booth):
    tests = {t.name: t for t in throughput_tests(booth)}
    vpn = ThroughputTest("client-to-home-through-vpn", ((booth.endpoints["client1"], booth.endpoints["home1"]),))
    flow = vpn.flows[0]
    allocator, compiler = PortAllocator(), PolicyCompiler(booth)
    assert port_block(booth, compiler, allocator, vpn, "iperf3", flow, {22}).ports == range(5201, 5202)
    assert port_block(booth, compiler, allocator, vpn, "nuttcp", flow, {22}).ports == range(5000, 5002)
    with pytest.raises(ValueError, match="opens no 2 consecutive TCP port"):
        port_block(booth, compiler, allocator, vpn, "nuttcp", flow, {22, 5000, 5001})
    # inside a VLAN the allocator's own block is used as it is
    inside = tests["research-01: r01-cn1 -> r01-fs"]
    assert port_block(booth, compiler, allocator, inside, "nuttcp", inside.flows[0], set()).width == allocator.width


def test_isolation_covers_every_rule_port_both_ways_and_every_host_of_a_split_vlan(booth):
    from boothnet.validate.plan import COMMON_TCP, isolation_plan

    plan = isolation_plan(booth, seed=7)
    assert plan.named == {"tcp": (22, 80, 443, 5000, 5001, 5201), "udp": (5201,)}
    sources = {f.src.name for f in plan.flows}
    assert {"client1", "client2", "client3", "client4"} <= sources  # the group splits vpn-clients
    assert "r01-cn2" not in sources  # research-01 is not split: its first host speaks for it
    pair = [f for f in plan.flows if (f.src.name, f.dst.name) == ("client4", "home1")]
    assert [f.label() for f in pair][:8] == ["icmp", "tcp/22", "tcp/80", "tcp/443", "tcp/5000", "tcp/5001",
                                             "tcp/5201", "tcp/sample x46"]
    assert all(f.expected == "deny" for f in pair)  # the unlisted client, on every port
    listed = {f.label(): f.expected for f in plan.flows if (f.src.name, f.dst.name) == ("client1", "home1")}
    assert listed["tcp/443"] == listed["udp/5201"] == "permit" and listed["tcp/sample x46"] == "deny"
    back = {f.label(): f.expected for f in plan.flows if (f.src.name, f.dst.name) == ("home1", "client1")}
    assert back["tcp/22"] == back["udp/5201"] == "deny"  # each permit's reverse, on its own ports
    assert set(COMMON_TCP) - set(plan.named["tcp"]) <= set(plan.sampled["tcp"])
    assert plan.sampled == isolation_plan(booth, seed=7).sampled != isolation_plan(booth, seed=8).sampled
    assert plan.describe().startswith("638 host pairs x 74 probes: icmp, 52 TCP and 21 UDP ports")


def test_routed_and_declared_mtu_paths(booth):
    from boothnet.validate.checks.mtu import declared_paths, routed_jumbo_paths
    from boothnet.validate.paths import north_south

    routed = routed_jumbo_paths(booth)
    # research to research, both ways; and to home's research network, only that way, over the uplink;
    # the jumbo VPN clients to the four 1500-byte VLANs they may ping (a router says "frag needed")
    assert len(routed) == 16 * 15 + 16 + 4 and {p.mtu for p in routed} == {9000, 1500}
    # the tunnel's path is the VPN section's; the bulk transfer home crosses the uplink, jumbo
    assert [(p.name, p.mtu) for p in declared_paths(booth)] == [("booth-to-theater: booth1 -> theater1", 1500),
                                                                 ("bulk-to-home: r01-fs -> bulk1", 9000)]
    outside = north_south(booth)
    assert len(outside) == 21 and str(outside[0].address) == "192.0.2.1"  # every booth VLAN but the home one


def test_a_test_loads_its_host_ports_and_every_link_through_the_gateways(booth):
    """What lets tests run at once: inside a VLAN only the two host ports; across VLANs both
    ways over the trunk to the gateway that routes them."""
    tests = {t.name: t for t in throughput_tests(booth)}
    assert tests["research-01: r01-cn1 -> r01-fs"].links == {"rsw1:Ethernet1", "rsw1:Ethernet3"}
    assert tests["research-02: r02-cn1 -> r02-fs"].links.isdisjoint(tests["research-01: r01-cn1 -> r01-fs"].links)
    assert tests["research-01: r01-cn1+r01-cn2 -> r01-fs (together)"].links == {
        "rsw1:Ethernet1", "rsw1:Ethernet2", "rsw1:Ethernet3"}
    across = links_loaded(booth, booth.endpoints["r01-cn1"], booth.endpoints["r02-fs"])
    assert across == {"rsw1:Ethernet1", "rsw1:Ethernet6", "core1:TenGigabitEthernet1/1/1 -- rsw1:Ethernet49"}
    # booth1 and theater1 both sit on core1, their gateway: no device link
    assert tests["booth-to-theater"].links == {"core1:GigabitEthernet1/0/1", "core1:GigabitEthernet1/0/2"}


def test_a_dual_stack_booth_measures_its_ipv6_hosts_over_ipv6_too():
    from boothnet.intent import load_network
    from tests.helpers import INVENTORIES

    net = load_network(INVENTORIES / "sc-booth-ds")
    six = [t for t in throughput_tests(net) if t.family == 6]
    # research-01's hosts are static: their tests again, in IPv6; no backbone aggregate, no VPN path
    assert [t.name for t in six] == ["research-01: r01-cn1 -> r01-fs (IPv6)", "research-01: r01-cn2 -> r01-fs (IPv6)",
                                     "research-01: r01-cn1+r01-cn2 -> r01-fs (together) (IPv6)"]
    fs = net.endpoints["r01-fs"]
    assert six[0].address_of(net, fs) == "2001:db8:110::20" and six[0].links == throughput_tests(net)[0].links
    assert expected_for(net, net.endpoints["r01-cn1"], fs, family=6) < expected_for(net, net.endpoints["r01-cn1"], fs)
