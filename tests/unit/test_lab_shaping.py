"""The lab's htb class rate: frames of the link's MTU get their share of line rate once the
24 wire bytes per frame are paid, so TCP goodput in the lab is the physical formula."""

from __future__ import annotations

import pytest

from boothnet.lab.shaping import htb_params
from boothnet.validate.perf.formula import expected_goodput


@pytest.mark.parametrize(
    ("speed_mbps", "mtu", "rate_bits"),
    [
        (1000, 1500, 984_395_312),  # 1e9 x 1514 / 1538
        (1000, 9000, 997_344_544),  # 1e9 x 9014 / 9038
        (100, 1500, 98_439_528),
    ],
)
def test_rate_is_the_frames_share_of_line_rate(speed_mbps: int, mtu: int, rate_bits: int) -> None:
    assert htb_params(speed_mbps, mtu)["rate_bytes"] * 8 == rate_bits


@pytest.mark.parametrize("mtu", [1280, 1400, 1500, 8950, 9000])
def test_goodput_through_the_class_is_the_formula(mtu: int) -> None:
    p = htb_params(1000, mtu)
    frames_per_s = p["rate_bytes"] / p["frame"]  # htb charges skb length: frame with its L2 header
    goodput = frames_per_s * (mtu - 52) * 8  # TCP payload with timestamps
    assert goodput == pytest.approx(expected_goodput(1e9, mtu), rel=1e-6)


def test_a_jumbo_frame_fits_the_bucket_of_a_slow_link() -> None:
    p = htb_params(10, 9000)
    assert p["burst"] >= 4 * 9014
    assert p["quantum"] >= 9014
