"""The ICMPv6 types IPv6 needs (neighbour and router discovery, Packet Too Big) are kept ahead of
every rule in every IPv6 ACL, and the review says so; an ACL without one is a warning naming it."""

from __future__ import annotations

from tests.acl_changes import review_change


def drop_packet_too_big(models):
    acl = next(a for a in models["core1"].acls if a.name == "BOOTH_LAN_IN_V6")
    acl.entries[:] = [e for e in acl.entries if e.icmp_type != "packet-too-big"]


def test_dual_stack_head_keeps_them_and_the_review_says_so(tmp_path, no_batfish):
    review = review_change(tmp_path, "sc-booth-ds")
    assert len(review.icmpv6) == 25 and not any(review.icmpv6.values())
    md = review.files["md"].read_text()
    assert "## ICMPV6 THAT IPV6 NEEDS" in md
    assert "packet-too-big, nd-ns, nd-na, router-solicitation, router-advertisement" in md
    assert "- all 25 IPv6 ACLs of head keep them" in md


def test_an_ipv6_acl_without_packet_too_big_is_named(tmp_path, no_batfish):
    review = review_change(tmp_path, "sc-booth-ds", models=drop_packet_too_big)
    assert review.icmpv6["core1 BOOTH_LAN_IN_V6"] == ["packet-too-big"]
    assert "- **WARNING**: core1 BOOTH_LAN_IN_V6 does not permit packet-too-big" in review.files["md"].read_text()


def test_an_ipv4_only_intent_has_no_such_section(tmp_path, no_batfish):
    review = review_change(tmp_path, "eos-core")
    assert review.icmpv6 == {} and "ICMPV6 THAT IPV6 NEEDS" not in review.files["md"].read_text()
