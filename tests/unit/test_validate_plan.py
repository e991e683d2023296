"""What validation derives from the intent before touching the lab: tests and their ports."""

from __future__ import annotations

import pytest

from boothnet.derive.policy import PolicyCompiler
from boothnet.intent import load_network
from boothnet.validate.perf.ports import PortAllocator
from boothnet.validate.plan import ThroughputTest, throughput_tests
from boothnet.validate.run import _port_block


@pytest.fixture(scope="module")
def booth():
    return load_network("inventories/sc-booth")


def test_each_research_subnet_alone_and_together_then_declared_paths(booth):
    names = [t.name for t in throughput_tests(booth)]
    assert names[:3] == ["research-01: r01-cn1 -> r01-fs", "research-01: r01-cn2 -> r01-fs",
                         "research-01: r01-cn1+r01-cn2 -> r01-fs (together)"]
    # the path home crosses the WAN link: the WAN stage tests it (validate/perf/wan.py)
    assert len(names) == 16 * 3 + 1 and names[-1] == "booth-to-theater"


def test_throughput_ports_follow_the_policy(booth):
    tests = {t.name: t for t in throughput_tests(booth)}
    vpn = ThroughputTest("client-to-home-through-vpn", (booth.endpoints["client1"],), booth.endpoints["home1"])
    client = vpn.clients[0]
    allocator, compiler = PortAllocator(), PolicyCompiler(booth)
    assert _port_block(booth, compiler, allocator, vpn, "iperf3", client, {22}).ports == range(5201, 5202)
    assert _port_block(booth, compiler, allocator, vpn, "nuttcp", client, {22}).ports == range(5000, 5002)
    with pytest.raises(ValueError, match="opens no 2 consecutive TCP port"):
        _port_block(booth, compiler, allocator, vpn, "nuttcp", client, {22, 5000, 5001})
    # inside a VLAN the allocator's own block is used as it is
    inside = tests["research-01: r01-cn1 -> r01-fs"]
    assert _port_block(booth, compiler, allocator, inside, "nuttcp", inside.clients[0], set()).width == allocator.width
