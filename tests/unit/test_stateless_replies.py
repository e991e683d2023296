"""Issue 66 items 5 and 6 offline: IOS and EOS ACLs are stateless (platform data), a stand-in runs
them so, a reply an earlier deny shadows gets a line of its own, a permit row whose reply is lost
fails naming where it died, a deny row whose probe was seen is a leak."""

from __future__ import annotations

from pathlib import Path

import boothnet.derive.policy as policy
from boothnet.lab.plan import plan_lab
from boothnet.platforms import platforms
from boothnet.run import Run
from boothnet.validate.checks.isolation import SEEN, Responder, judge
from boothnet.validate.plan import isolation_plan
from boothnet.validate.replies import ReplyPaths
from tests.helpers import ROOT

EOS_CORE = ROOT / "inventories" / "eos-core"
SECURE_EOS = ROOT / "tests" / "integration" / "validate" / "secure-eos"


def test_statefulness_is_platform_data() -> None:
    assert {name: p.stateful_acls for name, p in platforms().items()} == {
        "cisco_ios": False, "arista_eos": False, "frr_linux": True}


def test_a_stand_in_runs_its_acls_statelessly_and_a_linux_router_keeps_conntrack(tmp_path: Path) -> None:
    _, result = plan_lab(EOS_CORE, "dot1q", tmp_path)
    cs1 = (result.out_dir / "cs1" / "nftables.nft").read_text()
    assert "ct state" not in cs1
    assert "tcp sport 22 tcp flags & (ack | rst) != 0 counter accept" in cs1  # IOS `established`
    assert cs1.index("icmp type echo-reply counter accept") < cs1.index("ip daddr 10.4.10.0/24 counter drop")
    _, result = plan_lab(ROOT / "inventories" / "lab-mini", "dot1q", tmp_path / "mini")
    assert "ct state established,related accept" in (result.out_dir / "r1" / "nftables.nft").read_text()


def test_an_inbound_permit_does_not_skip_the_outbound_acl_of_the_same_stand_in(tmp_path: Path) -> None:
    _, result = plan_lab(SECURE_EOS, "dot1q", tmp_path)
    es1 = (result.out_dir / "es1" / "nftables.nft").read_text()
    users_in = es1[es1.index("chain USERS_IN"):es1.index("\n\t}", es1.index("chain USERS_IN"))]
    assert "meta l4proto icmp counter return" in users_in and " accept" not in users_in


def test_the_secured_vlans_outbound_acl_carries_the_replies_its_hosts_need(tmp_path: Path) -> None:
    es1 = Run(SECURE_EOS, tmp_path).models("hardware")["es1"]
    vault_out = next(a for a in es1.acls if a.name == "VAULT_OUT")
    assert vault_out.lines == ["permit tcp 10.4.20.0/24 eq 22 10.4.30.0/24 established",
                               "permit icmp any 10.4.30.0/24 echo-reply", "deny ip any any log"]


def _ping(run: Run, src: str, dst: str):
    return next(f for f in isolation_plan(run.net, 2026).flows
                if (f.src.name, f.dst.name, f.proto) == (src, dst, "icmp"))


def test_the_reverse_path_names_the_acl_a_reply_dies_at(tmp_path: Path, monkeypatch) -> None:
    run = Run(EOS_CORE, tmp_path)
    flow = _ping(run, "h1", "h3")
    assert ReplyPaths(run.net, run.models("hardware")).dies_at(flow, None) is None
    monkeypatch.setattr(policy, "reply_permitted", lambda entries, reply: True)  # the derive stage before the fix
    planted = Run(EOS_CORE, tmp_path / "planted")
    assert ReplyPaths(planted.net, planted.models("hardware")).dies_at(flow, None) == \
        "its reply dies at cs1 ACL LAB_IN: 'deny ip 10.4.20.0 0.0.0.255 10.4.10.0 0.0.0.255'"


def test_a_probe_seen_whose_reply_is_lost_fails_a_permit_and_is_a_leak_on_a_deny(tmp_path: Path) -> None:
    run = Run(SECURE_EOS, tmp_path)
    flows = isolation_plan(run.net, 2026).flows
    permit = next(f for f in flows if f.expected == "permit" and f.proto == "tcp" and not f.sample)
    deny = next(f for f in flows if f.expected == "deny" and f.proto == "tcp" and not f.sample)
    for flow, observed in ((permit, "deny"), (deny, "permit")):
        responder = Responder(flow.dst.name, "ns", "log", seen={(flow.proto, flow.port, flow.src_address)})
        assert judge(flow, ["timeout"], responder)[:2] == (observed, SEEN)
