"""iperf3, nuttcp and ping parsers on real recorded outputs (cases/<tool>/<case>/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boothnet.validate.perf import iperf3, nuttcp
from boothnet.validate.perf.probes import parse_ping
from boothnet.validate.perf.schema import ThroughputResult

CASES = Path(__file__).parent / "cases"


def _cases(tool: str) -> list[Path]:
    return sorted(p for p in (CASES / tool).iterdir() if p.is_dir())


def _load(case: Path) -> tuple[str, dict, dict]:
    out = next(case.glob("output.*")).read_text()
    return out, json.loads((case / "meta.json").read_text()), json.loads(
        (case / "expected.json").read_text())


def _parse(tool: str, case: Path) -> tuple[ThroughputResult, dict]:
    out, meta, expected = _load(case)
    kwargs = {"stderr": meta.get("stderr", ""), "returncode": meta["returncode"]}
    if tool == "iperf3":
        return iperf3.parse(out, **kwargs), expected
    return nuttcp.parse(out, streams=meta.get("streams"), **kwargs), expected


SCALARS = ("succeeded", "error", "source", "destination", "streams", "bytes", "retransmits",
           "mss", "sender_throughput", "packets", "buffer_bytes", "stream_throughputs")
FLOATS = ("throughput", "duration", "rtt_ms", "lost_pct", "jitter_ms")


@pytest.mark.parametrize("tool,case", [(t, c) for t in ("iperf3", "nuttcp") for c in _cases(t)],
                         ids=lambda v: v.name if isinstance(v, Path) else v)
def test_throughput_case(tool: str, case: Path) -> None:
    result, expected = _parse(tool, case)
    assert result.tool == tool
    for key in SCALARS:
        if key in expected:
            assert getattr(result, key) == expected[key], key
    for key in FLOATS:
        if key in expected:
            assert getattr(result, key) == pytest.approx(expected[key], rel=1e-9), key
    if "error_contains" in expected:
        assert result.error and expected["error_contains"] in result.error
    if "hung_at" in expected:  # a client stopped at its bound: where it had got to
        assert expected["hung_at"] in (iperf3 if tool == "iperf3" else nuttcp).hung_at(_load(case)[0])
    assert len(result.intervals) == expected["n_intervals"]
    if first := expected.get("first_interval"):
        got = result.intervals[0]
        assert got.start == first["start"]
        assert got.throughput == pytest.approx(first["throughput"], rel=1e-9)
        assert got.retransmits == first["retransmits"]
    # the raw output is kept for the report, and the schema round-trips through JSON
    assert result.raw and (result.raw.strip() or not result.succeeded)
    assert ThroughputResult.from_json(result.to_json()) == result


def test_intervals_are_contiguous() -> None:
    for tool in ("iperf3", "nuttcp"):
        for case in _cases(tool):
            result, _ = _parse(tool, case)
            for a, b in zip(result.intervals, result.intervals[1:], strict=False):
                assert b.start == pytest.approx(a.end, abs=1e-3), case


def test_nuttcp_prefers_receiver_over_sender() -> None:
    result, _ = _parse("nuttcp", CASES / "nuttcp" / "multi_stream_9000")
    # the sender's figure counts socket-buffered data; goodput is what arrived
    assert result.sender_throughput is not None
    assert result.throughput < result.sender_throughput


def test_iperf3_nonzero_exit_is_failure_even_with_data() -> None:
    out = (CASES / "iperf3" / "single_stream_1500" / "output.json").read_text()
    result = iperf3.parse(out, returncode=1, stderr="iperf3: interrupt - the client has terminated")
    assert not result.succeeded
    assert "interrupt" in (result.error or "")


def test_garbage_is_an_error_not_an_exception() -> None:
    assert not iperf3.parse("iperf3: error - unable to connect").succeeded
    assert "unable to connect" in (iperf3.parse("iperf3: error - unable to connect").error or "")
    assert not nuttcp.parse("", stderr="nuttcp-t: Error: server not ACKing data",
                            returncode=1).succeeded


@pytest.mark.parametrize("case", _cases("ping"), ids=lambda p: p.name)
def test_ping_case(case: Path) -> None:
    out, meta, expected = _load(case)
    result = parse_ping(out, meta["returncode"], argv=meta["argv"])
    for key, value in expected.items():
        assert getattr(result, key) == value, key
    assert result.ok == (expected["cause"] == "ok")


def test_sender_and_receiver_cpu_are_read_from_both_tools() -> None:
    """iperf3's cpu_utilization_percent (client = sender) and nuttcp's tx_cpu/rx_cpu, recorded."""
    iperf, _ = _parse("iperf3", CASES / "iperf3" / "single_stream_1500")
    assert (iperf.sender_cpu_pct, iperf.receiver_cpu_pct) == (27.9, 64.5)
    nut, _ = _parse("nuttcp", CASES / "nuttcp" / "single_stream_1500_brief")
    assert (nut.sender_cpu_pct, nut.receiver_cpu_pct) == (51.0, 33.0)
    verbose, _ = _parse("nuttcp", CASES / "nuttcp" / "single_stream_1500")  # each end's "stats=cpu ... cpu=N%"
    assert (verbose.sender_cpu_pct, verbose.receiver_cpu_pct) == (48.0, 37.0)


def test_a_reverse_run_names_the_server_as_the_source_and_swaps_the_cpu_ends() -> None:
    """iperf3 -R and nuttcp -r: the client receives. The data's source is the server, and
    iperf3's host_total (the client) is then the receiver's CPU."""
    iperf, _ = _parse("iperf3", CASES / "iperf3" / "reverse_500M")
    assert iperf.reverse and (iperf.source, iperf.destination) == ("10.9.0.2", "10.9.0.1")
    assert (iperf.sender_cpu_pct, iperf.receiver_cpu_pct) == (0.6, 0.9)
    forward, _ = _parse("iperf3", CASES / "iperf3" / "single_stream_1500")
    assert not forward.reverse
