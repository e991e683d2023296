"""What the report says a link's wires carried, from their counters."""

from __future__ import annotations

from boothnet.validate.counters import describe
from boothnet.validate.perf.schema import LinkLoad


def test_the_busiest_wires_are_named_and_the_idle_twins_counted() -> None:
    loads = [LinkLoad(wire=f"C05 VLAN {110 + i}", a_to_b_bps=1e9 - i * 1e7, b_to_a_bps=5e6) for i in range(6)]
    loads += [LinkLoad(wire="C05 VLAN 125", a_to_b_bps=2e6, b_to_a_bps=0),
              LinkLoad(wire="C05 VLAN 124", error="ip -s link on core1: exit 1")]
    said = describe(loads, shown=2)
    assert said.startswith("counters: C05 VLAN 110 1000 -> / 5 <- Mb/s; C05 VLAN 111 990 -> / 5 <- Mb/s; ")
    assert "4 more wire(s) from 950 Mb/s" in said and "1 wire(s) idle (under 100 Mb/s)" in said
    assert said.endswith("C05 VLAN 124: ip -s link on core1: exit 1")
