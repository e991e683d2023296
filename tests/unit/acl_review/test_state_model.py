"""Each permit's state model in the review: on a stateless device (IOS, EOS) the replies pass
only by a line of their own, and the review names the ACL and line that carries them; a head
whose permit has no such line on the way back is a finding (exit 3)."""

from __future__ import annotations

from tests.acl_changes import drop_return_lines, review_change


def state(review, rule):
    return next(s for s in review.states if s.rule == rule)


def test_sc_booth_says_which_acl_carries_each_permits_replies(tmp_path, no_batfish):
    review = review_change(tmp_path, "sc-booth")
    assert review.replies_die == [] and review.exit_code == 0
    demo = state(review, "research-demo-to-theater")
    # research opens, the theater answers: core1's (IOS, stateless) THEATER_IN must pass the replies
    assert demo.flows == 32 and demo.stateful == set()
    # one line per service and per research prefix (the 16 research VLANs collapse to 5 prefixes)
    assert demo.carried == {"core1 THEATER_IN": {
        f"permit tcp 10.10.20.0 0.0.0.255 eq {port} {prefix} established" for port in (80, 443)
        for prefix in ("10.110.1.0 0.0.0.255", "10.110.2.0 0.0.1.255", "10.110.4.0 0.0.3.255",
                       "10.110.8.0 0.0.7.255", "10.110.16.0 0.0.0.255")}}
    # the clients' flows home: hgw1 (frr_linux) tracks them, nothing stateless on the way back
    clients = state(review, "clients-to-home")
    assert clients.stateful == {"hgw1 SECURE_HOME_IN"} and clients.carried == {}
    md = review.files["md"].read_text()
    assert "## STATE MODEL: WHAT EACH PERMIT'S REPLIES REST ON" in md
    assert "| research-demo-to-theater | IPv4 | 32 | - | core1 THEATER_IN (10 line(s), e.g. `permit tcp 10.10.20.0 " \
           "0.0.0.255 eq 443 10.110.1.0 0.0.0.255 established`) | 0 |" in md


def test_a_stateless_acl_without_its_return_lines_is_a_finding(tmp_path, no_batfish):
    review = review_change(tmp_path, "sc-booth", models=drop_return_lines("core1", "THEATER_IN"))
    assert review.flow_changes == []  # first packets pass as before: only the replies die
    assert review.exit_code == 3
    demo = state(review, "research-demo-to-theater")
    assert len(demo.dead) == 32 and demo.carried == {}
    dies = ("10.110.1.254 -> 10.10.20.254 tcp/80: its replies die at core1 THEATER_IN "
            "'deny ip 10.10.20.0 0.0.0.255 10.110.1.0 0.0.0.255'")
    assert dies in demo.dead
    md = review.files["md"].read_text()
    assert "**GATE: FAIL (exit 3)**: head permits 32 flow(s) whose replies a stateless ACL drops" in md
    assert f"- **REPLIES DIE**: {dies}" in md


def test_eos_core_a_stateless_ios_acl_without_return_lines(tmp_path, no_batfish):
    clean = review_change(tmp_path / "clean", "eos-core")
    assert state(clean, "admins-ssh-to-lab").carried == {
        "cs1 LAB_IN": {"permit tcp 10.4.20.0 0.0.0.255 eq 22 host 10.4.10.11 established"}}
    broken = review_change(tmp_path / "broken", "eos-core", models=drop_return_lines("cs1", "LAB_IN"))
    assert broken.exit_code == 3
    assert {d.split(":")[0] for d in broken.replies_die} == {
        "10.4.10.11 -> 10.4.20.254 tcp/22", "10.4.10.11 -> 10.4.20.254 udp/123", "10.4.10.254 -> 10.4.20.254 icmp",
        "10.4.10.11 -> 10.4.20.254 icmp"}
