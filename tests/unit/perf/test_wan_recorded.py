"""The WAN judges over real recorded tool output, no lab: iperf3, nuttcp and ping on the lab's
delay line shaped as sc-booth's home path (622 Mb/s, 25 ms one way, MTU 9000; cases/wan/,
recorded by cases/wan/record.py). Each output is read as validate reads it (the tool's parser,
through the request wan_tools builds, whose argv must still be the one recorded) and judged as
validate judges it; the same output judged against a path that declares another shape fails,
naming why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from boothnet.intent.model import Endpoint
from boothnet.validate.perf import iperf3
from boothnet.validate.perf.judges import judge_loss
from boothnet.validate.perf.run import TOOLS
from boothnet.validate.perf.schema import ThroughputResult
from boothnet.validate.perf.wan_judges import judge_stream, judge_sweep, judge_udp, judge_under_load
from boothnet.validate.perf.wan_path import WanPath
from boothnet.validate.perf.wan_probes import RttProbe, judge_rtt
from boothnet.validate.perf.wan_tools import WanTest, tool_request

CASES = Path(__file__).parent / "cases"
ENDS = ("bnrec-a", "bnrec-b")  # the recording's namespaces: the client's, the server's


def _meta(case: str) -> dict[str, Any]:
    return json.loads((CASES / "wan" / case / "meta.json").read_text())


def _output(case: str) -> str:
    return next((CASES / "wan" / case).glob("output.*")).read_text()


def _path(meta: dict[str, Any], **declared: float) -> WanPath:
    """The recorded path, or one that declares another rate, delay or loss (``declared``)."""
    shape = {**meta["path"], **declared}
    h1, h4 = (Endpoint(name=name, vlan="wan", address=address, attach=f"wan:{name}")
              for name, address in (("h1", "10.99.9.1"), ("h4", "10.99.9.2")))
    return WanPath("home-path", h1, h4, ("r1:eth3 -- r2:eth3",), shape["one_way_ms"], 0, shape["loss_pct"],
                   shape["rate_bps"], int(shape["mtu"]))


def _measured(case: str) -> tuple[ThroughputResult, dict[str, Any]]:
    meta = _meta(case)
    path, test = _path(meta), WanTest(**meta["test"])
    request = tool_request(meta["tool"], ENDS, path, test)
    tool = TOOLS[meta["tool"]]
    assert tool.commands(request).client == meta["argv"], f"{case}: recorded with another argv: record it again"
    result = tool.result(request, _output(case), meta["stderr"], meta["returncode"])
    return result.model_copy(update={"kind": test.kind, "family": path.family}), meta


def test_one_stream_with_the_advised_window_fills_the_recorded_path():
    stream, meta = _measured("iperf3_advised_window")
    judged = judge_stream(stream, _path(meta), 0.9, stream.window)
    assert (judged.verdict, judged.limit) == ("PASS", "physical")
    assert judged.explanation == ("one stream with -w 4.00 MiB fills the path: 615 Mb/s, 100% of the physical "
                                  "limit 616 Mb/s")
    # a path that declares 1 Gb/s: the same window holds less than its BDP, and the advice says so
    faster = judge_stream(stream, _path(meta, rate_bps=1e9), 0.9, stream.window)
    assert faster.verdict == "FAIL" and faster.explanation.startswith(
        "window-limited: with -w 4.00 MiB one stream kept 3.67 MiB in flight, below the BDP of 5.90 MiB")
    assert faster.explanation.endswith("use -w 8388608")


def test_the_os_default_window_is_the_senders_autotuning_limit_not_the_networks():
    stream, meta = _measured("iperf3_default_window")
    path = _path(meta)
    assert meta["wmem_max"] // 2 < path.bdp  # the host's default buffer holds less than the BDP
    judged = judge_stream(stream, path, 0.9, None, (meta["wmem_max"], meta["k"]))
    assert (judged.verdict, judged.limit) == ("PASS", "window")
    assert judged.explanation.startswith("window-limited by the sender's autotuning (net.ipv4.tcp_wmem max "
                                         "4.00 MiB, as -w 2.00 MiB): 503 Mb/s")
    assert judged.explanation.endswith("the host's default, not the network, use -w 4194304 to fill the path")
    # without the kernel's figures it is judged against the path, and fails as window-limited
    plain = judge_stream(stream, path, 0.9, None)
    assert plain.verdict == "FAIL" and plain.explanation.startswith(
        "window-limited: with the OS default window (autotuning, up to net.ipv4.tcp_wmem) one stream kept")


def test_parallel_streams_below_the_bdp_fill_the_recorded_path_together():
    streams, meta = _measured("iperf3_parallel")
    judged = judge_stream(streams, _path(meta), 0.9, streams.window)
    assert streams.streams == 4 and judged.verdict == "PASS"
    assert judged.explanation.startswith("4 streams with 1.00 MiB windows each (below the BDP of 3.67 MiB): "
                                         "616 Mb/s together, 100% of 616 Mb/s")


@pytest.mark.parametrize("tool", ["iperf3", "nuttcp"])
def test_the_recorded_sweep_follows_window_over_rtt_then_fills_the_path(tool):
    (quarter, meta), (advised, _) = _measured(f"{tool}_sweep_quarter"), _measured(f"{tool}_sweep_advised")
    below, at = judge_sweep([advised, quarter], _path(meta), 0.9, meta["k"])
    assert (below.window, below.limit, below.verdict) == (2**20, "window", "PASS"), below.explanation
    assert below.explanation.startswith(f"-w 1.00 MiB below the BDP of 3.67 MiB: {below.throughput / 1e6:.0f} Mb/s")
    assert (at.limit, at.verdict) == ("physical", "PASS") and "the knee" in at.explanation
    # twice the declared delay: k x window/RTT halves, and the measured points no longer follow it
    slower = judge_sweep([quarter, advised], _path(meta, one_way_ms=50), 0.9, meta["k"])
    assert [p.verdict for p in slower] == ["FAIL", "FAIL"]
    assert all("below the BDP of 7.34 MiB" in p.explanation for p in slower)


def test_udp_on_the_lossy_recording_loses_what_the_path_declares():
    udp, meta = _measured("iperf3_udp_lossy")
    rate = meta["test"]["udp_rate_bps"]
    judged = judge_udp(udp, _path(meta), rate)
    assert judged.verdict == "PASS" and udp.packets and 0.5 < (udp.lost_pct or 0) < 2
    assert judged.explanation.startswith(f"{udp.packets} datagrams at 308 Mb/s: 1.120 % lost, declared 1 %")
    lossless = judge_udp(udp, _path(meta, loss_pct=0.0), rate)
    assert lossless.verdict == "FAIL" and "declared 0 %" in lossless.explanation
    # the LAN's judge (the same judge_loss) names the cables where the loss is not this machine's
    lan = judge_loss(udp, 0.0, rate, where="lab: h1 -> h4")
    assert lan.verdict == "FAIL" and lan.explanation.endswith(": frames are lost on lab: h1 -> h4")


def test_tcp_beside_the_recorded_udp_load_gets_what_the_udp_leaves():
    (udp, meta), (tcp, _) = _measured("iperf3_udp_load"), _measured("nuttcp_tcp_under_udp_load")
    assert meta["beside"] == "nuttcp_tcp_under_udp_load"
    udp_judged, tcp_judged = judge_under_load(udp, tcp, _path(meta), meta["test"]["udp_rate_bps"], 0.9)
    assert (udp_judged.verdict, tcp_judged.verdict) == ("PASS", "PASS"), tcp_judged.explanation
    assert tcp_judged.explanation == ("beside 154 Mb/s of UDP: 455 Mb/s, 98% of the 462 Mb/s the UDP leaves of "
                                      "616 Mb/s")
    # a stream that got less than pass_ratio of what the UDP leaves fails
    assert judge_under_load(udp, tcp, _path(meta), meta["test"]["udp_rate_bps"], 0.99)[1].verdict == "FAIL"


@pytest.mark.parametrize("case", ["ping_56", "ping_8972"])
def test_the_recorded_pings_pass_the_declared_rtt_and_fail_twice_the_delay(case):
    meta = _meta(case)
    path, slower = _path(meta), _path(meta, one_way_ms=50)
    payload = int(meta["argv"][-2])
    probe = RttProbe(path.name, "h1", "h4", path.address, payload, path.rtt_ms, path.rtt_tolerance_ms)
    assert probe.argv == meta["argv"]
    row = judge_rtt(probe, _output(case))
    assert (row.verdict, row.min_ms, row.loss_pct) == ("PASS", 50.44 if payload == 56 else 50.438, 0.0)
    doubled = judge_rtt(RttProbe(path.name, "h1", "h4", path.address, payload, slower.rtt_ms,
                                 slower.rtt_tolerance_ms), _output(case))
    assert doubled.verdict == "FAIL" and doubled.cause is not None
    assert doubled.cause.startswith("fastest 50.4 ms (mean ") and doubled.cause.endswith("declared 100 ms +- 10.00")


def test_a_recorded_udp_test_that_never_started_is_no_measurement_or_this_machines_drops():
    """The recorded iperf3 whose opening datagram's reply never came (cases/iperf3/): no loss to
    judge; with the machine's own queues dropping meanwhile, no verdict (cpu_bound)."""
    case = CASES / "iperf3" / "udp_handshake_unanswered"
    meta = json.loads((case / "meta.json").read_text())
    hung = iperf3.parse((case / "output.json").read_text(), stderr=meta["stderr"], returncode=meta["returncode"])
    assert not hung.succeeded
    assert judge_loss(hung, 1.0, 20e6).explanation == f"no measurement: {hung.error}"
    dropped = judge_loss(hung, 1.0, 20e6, dropped_here={"r1": 12})
    assert (dropped.verdict, dropped.causes) == ("ERROR", ["cpu_bound"])
    assert dropped.explanation.startswith(f"CPU-bound: no measurement ({hung.error}) while r1 dropped 12 datagrams")
