"""One verdict, every cause: a row faster than its link that also retransmits lists both, the
missing shaping first (issue 42: "frames are lost" must never hide "faster than the link")."""

from __future__ import annotations

from boothnet.validate.perf.schema import ThroughputResult, judge


def _row(throughput: float, retransmits: int) -> ThroughputResult:
    return ThroughputResult(tool="iperf3", source="h3", destination="h4", path="lab: h3 -> h4",
                            throughput=throughput, duration=2.0, bytes=int(throughput * 2 / 8),
                            retransmits=retransmits, mss=8948, succeeded=True)


def test_too_fast_and_lossy_lists_both_the_missing_shaping_first():
    judged = judge(_row(9.4e9, 5000), 0.99e9, path_mtu=9000, path="lab: h3 -> h4")
    assert judged.verdict == "FAIL" and judged.causes == ["too_fast", "lossy"]
    assert judged.explanation.index("faster than the link") < judged.explanation.index("frames are lost")


def test_too_fast_alone_and_lossy_alone_name_one_cause():
    assert judge(_row(9.4e9, 0), 0.99e9, path_mtu=9000).causes == ["too_fast"]
    assert judge(_row(0.95e9, 5000), 0.99e9, path_mtu=9000).causes == ["lossy"]
    assert judge(_row(0.95e9, 0), 0.99e9, path_mtu=9000).causes == []


def test_a_slow_lab_aggregate_on_a_saturated_machine_is_the_labs_ceiling_not_a_cable():
    from boothnet.validate.run import busy_share, lab_cpu_bound

    slow = judge(_row(1.47e9, 0), 1.883e9)  # campus booth's hairpinned trunk: 78 %
    assert slow.verdict == "FAIL"
    starved = lab_cpu_bound(slow, busy_share((100, 1000), (105, 2000)))  # 99.5 % busy, said as 100 %
    assert starved.verdict == "ERROR" and starved.causes == ["cpu_bound"]
    assert starved.explanation.startswith("CPU-bound: this machine's cores were 100% busy")
    assert lab_cpu_bound(slow, 0.5) == slow  # an idle machine: the network's verdict
    tenth = judge(_row(0.19e9, 0), 1.883e9)  # a link at a tenth of its speed keeps its FAIL
    assert lab_cpu_bound(tenth, 0.99) == tenth
