"""dedupe compares a line only with kept lines whose destination can hold its own; it must keep
exactly the lines that comparing with every kept line keeps."""

from __future__ import annotations

from ipaddress import IPv4Network

from hypothesis import given, settings
from hypothesis import strategies as st

from boothnet.derive.model import AclEntry
from boothnet.derive.policy import covers, dedupe

NETS = [None, IPv4Network("0.0.0.0/0"), IPv4Network("10.0.0.0/16"), IPv4Network("10.0.1.0/24"),
        IPv4Network("10.0.4.0/23"), IPv4Network("10.0.5.0/24"), IPv4Network("10.0.5.9/32"),
        IPv4Network("192.0.2.0/24")]

entries = st.lists(st.builds(
    AclEntry,
    action=st.sampled_from(["permit", "deny"]), proto=st.sampled_from(["ip", "tcp", "udp", "icmp"]),
    src=st.sampled_from(NETS), dst=st.sampled_from(NETS), rule=st.just("r"),
    dst_ports=st.sampled_from([(), (22,), (80, 443)]), established=st.booleans(), via_tunnel=st.booleans(),
), max_size=30)


def naive(lines: list[AclEntry]) -> list[AclEntry]:
    kept: list[AclEntry] = []
    for line in lines:
        if not any(covers(earlier, line) for earlier in kept):
            kept.append(line)
    return kept


@settings(max_examples=300, deadline=None)
@given(entries)
def test_indexed_dedupe_keeps_what_all_pairs_keeps(lines: list[AclEntry]) -> None:
    assert dedupe(lines) == naive(lines)
