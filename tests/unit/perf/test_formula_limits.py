"""Expected TCP goodput knows the window and the loss: the SC2000 ASCI path to LLNL (622 Mb/s,
50 ms RTT) as the yardstick."""

from __future__ import annotations

import pytest

from boothnet.validate.perf.formula import bdp_bytes, expected_goodput, expected_tcp_goodput

OC12 = 622e6


def test_without_window_or_loss_the_physical_limit_holds():
    e = expected_tcp_goodput(OC12, 1500)
    assert e.limit == "physical" and e.bps == pytest.approx(expected_goodput(OC12, 1500))


def test_a_window_below_the_bdp_limits_to_window_over_rtt():
    assert bdp_bytes(OC12, 50) == pytest.approx(3.8875e6)  # the 3.88 MB of DESIGN.md
    e = expected_tcp_goodput(OC12, 1500, rtt_ms=50, window_bytes=1_500_000)  # the 1.5 MB plateau
    assert e.limit == "window" and e.bps == pytest.approx(240e6)
    above = expected_tcp_goodput(OC12, 1500, rtt_ms=50, window_bytes=8_000_000)
    assert above.limit == "physical" and above.window_bps == pytest.approx(1280e6)


def test_loss_sets_the_mathis_bound():
    e = expected_tcp_goodput(OC12, 1500, rtt_ms=50, window_bytes=8_000_000, loss_pct=0.01)
    # 1448-byte segments, 50 ms, p = 1e-4: 1448*8/0.05 * 1.22/0.01 = 28.26 Mb/s
    assert e.limit == "loss" and e.bps == pytest.approx(28.26e6, rel=1e-3)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rtt_ms": 0}, "RTT must be > 0 ms, got 0"),
    ({"rtt_ms": 50, "loss_pct": 100}, r"loss must be in \(0, 100\) %, got 100"),
])
def test_impossible_inputs_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        expected_tcp_goodput(OC12, 1500, **kwargs)
