from __future__ import annotations

import pytest

from boothnet.validate.perf.formula import (
    PathLink,
    bdp_bytes,
    bottleneck,
    expected_goodput,
    goodput_fraction,
    path_expected_goodput,
    verdict,
    window_advice,
)
from boothnet.validate.perf.schema import ThroughputResult, judge


def test_goodput_fractions_from_design() -> None:
    assert round(goodput_fraction(1500) * 100, 1) == 94.1
    assert round(goodput_fraction(9000) * 100, 1) == 99.0
    assert expected_goodput(1e9, 1500) == pytest.approx(1e9 * 1448 / 1538)


def test_bottleneck_takes_min_speed_and_min_mtu_from_different_links() -> None:
    links = [PathLink("core--rsw 10G", 10_000, 9000), PathLink("rsw--node1", 1000, 9000),
             PathLink("vpn tunnel", 100_000, 8950)]
    b = bottleneck(links)
    assert (b.speed_mbps, b.mtu) == (1000, 8950)
    assert b.speed_link == "rsw--node1" and b.mtu_link == "vpn tunnel"
    assert path_expected_goodput(links) == pytest.approx(1e9 * (8950 - 52) / (8950 + 38))
    with pytest.raises(ValueError):
        bottleneck([])


def test_bdp_and_window_advice_design_example() -> None:
    assert bdp_bytes(622e6, 50) / 1e6 == pytest.approx(3.8875)
    adv = window_advice(622e6, 50, window_bytes=1 << 20)
    assert "3.89 MB" in adv.text
    assert adv.window_bytes == 4 * 1024 * 1024 and adv.window_bytes >= adv.bdp_bytes
    assert adv.limited_by_window is True
    assert window_advice(622e6, 50, window_bytes=8 << 20).limited_by_window is False


def test_verdict_threshold_and_ratio() -> None:
    expected = expected_goodput(1e9, 1500)
    assert verdict(0.9 * expected, expected) == "PASS"
    assert verdict(0.9 * expected - 1, expected) == "FAIL"
    assert verdict(0.9 * expected, expected, ratio=0.95) == "FAIL"
    with pytest.raises(ValueError):
        verdict(1, 1, ratio=0)


def test_judge_fills_expected_and_fails_errors() -> None:
    ok = ThroughputResult(tool="iperf3", succeeded=True, throughput=93e6, rtt_ms=50.0)
    judged = judge(ok, expected_goodput(100e6, 1500), path="booth -> home (VPN)")
    assert judged.verdict == "PASS" and judged.path == "booth -> home (VPN)"
    assert judged.ratio == pytest.approx(93e6 / expected_goodput(100e6, 1500))
    assert judged.advice and "ms" in judged.advice
    shaped = judge(ok, expected_goodput(1e9, 1500))
    assert shaped.verdict == "FAIL"
    broken = ThroughputResult(tool="nuttcp", succeeded=False, error="x", throughput=1e12)
    assert judge(broken, 1e6).verdict == "FAIL"


def test_a_path_faster_than_its_link_fails_and_says_why():
    from boothnet.validate.perf.schema import ThroughputResult, judge

    expected = 990e6
    unshaped = judge(ThroughputResult(tool="iperf3", succeeded=True, throughput=25046.3e6), expected, 0.9)
    assert unshaped.verdict == "FAIL"
    assert unshaped.explanation == ("25046.3 Mb/s is 25.30x the physical limit 990.0 Mb/s (at most 1.05x): faster "
                                    "than the link: shaping missing, or the intent's speed is wrong")
    # the lab's shaper lets small frames through up to 1.5 % above the formula: still a PASS
    assert judge(ThroughputResult(tool="iperf3", succeeded=True, throughput=1.015 * expected), expected).verdict == \
        "PASS"


def test_a_lan_tcp_test_fails_above_the_retransmit_limit_whatever_its_rate():
    from boothnet.validate.perf.schema import ThroughputResult, judge

    measured = ThroughputResult(tool="iperf3", succeeded=True, source="r01-cn1", destination="10.110.1.20",
                                path="research-01: r01-cn1 -> r01-fs",
                                throughput=981e6, bytes=372_000_000, retransmits=466, mss=8948)
    lossy = judge(measured, 990e6, path_mtu=9000)
    assert lossy.verdict == "FAIL"
    assert lossy.explanation == ("466 retransmits, 1.12% of the segments sent (at most 0.1%): frames are lost "
                                 "on research-01: r01-cn1 -> r01-fs (a bad cable or a dropping port)")
    assert judge(measured.model_copy(update={"retransmits": 0}), 990e6, path_mtu=9000).verdict == "PASS"
    assert judge(measured, 990e6).verdict == "PASS"  # a WAN test is judged on its own terms


def test_a_slow_run_whose_sender_used_a_whole_core_is_cpu_bound_not_a_network_failure() -> None:
    """Issue 34: the seeds' tools report sender and receiver CPU so that a CPU-bound run is not
    blamed on the network."""
    from boothnet.validate.perf.schema import ThroughputResult, judge

    slow = ThroughputResult(tool="iperf3", succeeded=True, throughput=400e6, sender_cpu_pct=99.2,
                            receiver_cpu_pct=41.0, path="p")
    judged = judge(slow, 990e6, 0.9)
    assert judged.verdict == "ERROR"
    assert judged.explanation.startswith("CPU-bound: the sender used 99 % of a core: this machine, not the network")
    quiet = judge(slow.model_copy(update={"sender_cpu_pct": 30.0}), 990e6, 0.9)
    assert quiet.verdict == "FAIL"  # the CPU had room: the network was slow
    assert judge(slow.model_copy(update={"throughput": 950e6}), 990e6, 0.9).verdict == "PASS"
    unshaped = judge(slow.model_copy(update={"throughput": 9.4e9}), 990e6, 0.9)
    assert unshaped.verdict == "FAIL"  # faster than the link: shaping missing, whatever the CPU did


def test_ipv6_pays_its_longer_header_in_the_limit():
    # (MTU - 72) / (MTU + 38): IPv6 40 + TCP 20 + timestamps 12
    assert goodput_fraction(1500, 6) == pytest.approx(0.92848, abs=1e-5)
    assert goodput_fraction(9000, 6) == pytest.approx(0.98783, abs=1e-5)
    assert goodput_fraction(1500, 6) < goodput_fraction(1500) == pytest.approx(0.94148, abs=1e-5)
    with pytest.raises(ValueError, match="MTU 72 leaves no room"):
        goodput_fraction(72, 6)
