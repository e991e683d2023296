"""Batfish's policy check asks both directions of every permit (issue 66): the replies of a flow
the intent permits must pass every ACL on their way back. Planted (eos-core's research ACL without
the echo-reply line ahead of its deny of the users' network, as the derive stage rendered it
before the fix), the check FAILs naming the reply, the rule, the device, the ACL and the line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import boothnet.derive.policy as policy
from boothnet.intent.model import Network
from boothnet.verify.batfish.from_intent import render_batfish_view, verify_intent_from_model
from boothnet.verify.batfish.report import Status, VerifyReport
from boothnet.verify.batfish.verify import run_verify
from tests.policies import reference

pytestmark = pytest.mark.batfish


def verify(host: str, net: Network, work: Path, name: str) -> VerifyReport:
    result, models = render_batfish_view(net, work / "build")
    intent = verify_intent_from_model(net, models)
    assert any(q.reply for q in intent.policy)
    return run_verify(intent, result.out_dir, work / "verify", host=host, require=True,
                      network="boothnet-policy", snapshot=f"{name}-{os.getpid()}")


def test_a_reply_an_ios_acl_denies_fails_the_policy_check_naming_it(host, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(policy, "reply_permitted", lambda entries, reply: True)
    check = verify(host, reference("eos-core"), tmp_path, "planted-reply").check("policy")
    assert check.status == Status.FAIL
    messages = [f.message for f in check.findings]
    assert messages and all(m.startswith("10.4.10.") and m.endswith(
        " icmp: the intent permits it (rule ping-anywhere), but its reply is denied by cs1 ACL LAB_IN at "
        "'deny ip 10.4.20.0 0.0.0.255 10.4.10.0 0.0.0.255' (a stateless ACL: the reply needs a line of its own)")
        for m in messages), messages


# the references with IOS or EOS ACLs (an all-frr_linux network tracks its flows: no reply is asked)
@pytest.mark.parametrize("name", ["eos-core", "sc-booth"])
def test_the_references_replies_pass_the_policy_check(host, tmp_path, name) -> None:
    check = verify(host, reference(name), tmp_path, name).check("policy")
    assert check.status == Status.PASS, [f.message for f in check.findings[:8]]
