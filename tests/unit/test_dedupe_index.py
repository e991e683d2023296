"""dedupe compares a line only with kept lines whose destination can hold its own; it must keep
exactly the lines that comparing with every kept line keeps."""

from __future__ import annotations

from dataclasses import replace
from ipaddress import IPv4Network

from hypothesis import given, settings
from hypothesis import strategies as st

from boothnet.derive.model import AclEntry
from boothnet.derive.policy import acl_decision, dedupe, undecided

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
        rest = undecided(line, kept)
        if rest is not None:
            kept.append(rest)
    return kept


@settings(max_examples=300, deadline=None)
@given(entries)
def test_indexed_dedupe_keeps_what_all_pairs_keeps(lines: list[AclEntry]) -> None:
    assert dedupe(lines) == naive(lines)


def _printed(line: AclEntry) -> list[tuple]:
    """The device lines an entry prints: one per destination port."""
    base = (line.action, line.proto, line.src, line.dst, line.src_port, line.established, line.icmp_type,
            line.via_tunnel)
    return [(*base, port) for port in line.dst_ports or (None,)]


@settings(max_examples=300, deadline=None)
@given(entries)
def test_dedupe_prints_no_line_twice_and_decides_every_packet_as_before(lines: list[AclEntry]) -> None:
    # as compiled: ports on tcp and udp lines only, `established` on tcp only
    lines = [replace(line, dst_ports=line.dst_ports if line.proto in ("tcp", "udp") else (),
                     established=line.established and line.proto == "tcp") for line in lines]
    kept = dedupe(lines)
    printed = [p for line in kept for p in _printed(line)]
    assert len(printed) == len(set(printed))
    for src in NETS[1:]:
        for dst in NETS[1:]:
            for proto, port in (("tcp", 22), ("tcp", 80), ("tcp", 443), ("udp", 80), ("icmp", None)):
                before, after = acl_decision(lines, src, dst, proto, port), acl_decision(kept, src, dst, proto, port)
                assert (before and before.action) == (after and after.action)


def test_a_port_an_earlier_line_decides_is_not_printed_again() -> None:
    """Found by the read-back fuzzer: `any -> outside tcp 22` then `any -> any tcp 22,443`
    printed `permit tcp ... any eq 22` twice in one IOS ACL."""
    net = IPv4Network("10.50.0.0/24")
    first = AclEntry("permit", "tcp", net, None, "r0", dst_ports=(22,))
    second = AclEntry("permit", "tcp", net, None, "r1", dst_ports=(22, 443))
    assert dedupe([first, second]) == [first, AclEntry("permit", "tcp", net, None, "r1", dst_ports=(443,))]


def test_a_line_whose_every_port_earlier_lines_decide_is_dropped_not_left_with_no_port() -> None:
    """Found by the policy property in CI: `any tcp 22`, `any tcp 5201`, then `any tcp 22,5201`
    left the third line with no port, which nftables printed as every TCP port."""
    net = IPv4Network("10.20.10.0/24")
    ssh = AclEntry("permit", "tcp", net, None, "r0", dst_ports=(22,))
    iperf = AclEntry("permit", "tcp", net, None, "r1", dst_ports=(5201,))
    both = AclEntry("permit", "tcp", net, None, "r2", dst_ports=(22, 5201))
    assert dedupe([ssh, iperf, both]) == [ssh, iperf]
    assert acl_decision(dedupe([ssh, iperf, both]), IPv4Network("10.20.10.254/32"), IPv4Network("10.120.1.254/32"),
                        "tcp", 33333) is None
