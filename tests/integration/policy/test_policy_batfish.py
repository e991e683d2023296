"""The compiler equals the intent, as Batfish reads the rendered configs: verify's policy check
(every representative flow at every ACL on its path, Batfish's searchFilters against the
intent's decision) passes on generated policies and fails, naming the flow, the rule, the
device, the ACL and the line, when the shadowing bug of issue 33 is planted back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from boothnet.derive.policy import PolicyCompiler
from boothnet.intent.model import Network, Rule
from boothnet.verify.batfish.from_intent import render_batfish_view, verify_intent_from_model
from boothnet.verify.batfish.report import Status, VerifyReport
from boothnet.verify.batfish.verify import run_verify
from tests.policies import policies, reference
from tests.unit.test_policy_property import ping_only, shadowing_inbound

pytestmark = pytest.mark.batfish

EXAMPLES = int(os.environ.get("BOOTHNET_POLICY_BATFISH_EXAMPLES", "4"))


def verify(host: str, net: Network, work: Path, name: str) -> VerifyReport:
    result, models = render_batfish_view(net, work / "build")
    intent = verify_intent_from_model(net, models)
    return run_verify(intent, result.out_dir, work / "verify", host=host, require=True,
                      network="boothnet-policy", snapshot=f"{name}-{os.getpid()}")


def test_the_policy_check_names_the_planted_shadowing(host, tmp_path, monkeypatch):
    monkeypatch.setattr(PolicyCompiler, "inbound", shadowing_inbound)
    report = verify(host, reference("fw-booth"), tmp_path, "planted")
    check = report.check("policy")
    assert check.status == Status.FAIL
    messages = [f.message for f in check.findings]
    # searchFilters gives one example source per question: the subnet's or the admin host's
    assert any(m.startswith("10.20.10.") and m.endswith(
        " -> 10.120.1.254 icmp: the intent permits it (rule ping-anywhere), but fw1 ACL OFFICE_IN denies it at "
        "'deny ip 10.20.10.0 0.0.0.255 10.120.1.0 0.0.0.255'") for m in messages), messages
    assert {f.device for f in check.findings} == {"fw1"}


def test_the_booth_from_the_issue_passes_every_check(host, tmp_path):
    report = verify(host, reference("fw-booth"), tmp_path, "fw-booth")
    assert {c.name: str(c.status) for c in report.checks if c.status != Status.PASS} == {}


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(net=policies(booths=("fw-booth", "lab-mini")))
def test_batfish_decides_generated_policies_as_the_intent(host, tmp_path_factory, net):
    report = verify(host, net, tmp_path_factory.mktemp("policy"), "generated")
    check = report.check("policy")
    assert check.status == Status.PASS, "\n".join(f.message for f in check.findings[:8])


def test_batfish_decides_a_ping_only_rule_by_icmp_type_and_names_it_widened(host, tmp_path, monkeypatch):
    """A rule naming ICMP types (issue 69) as Batfish reads the rendered configs: the ping-only
    booth passes the policy check, asked for echo requests and for another type apart; its ICMP
    lines widened to every type, the other type is named, with its rule and line."""
    net = ping_only("lab-mini")
    report = verify(host, net, tmp_path / "typed", "typed")
    check = report.check("policy")
    assert check.status == Status.PASS, "\n".join(f.message for f in check.findings[:8])
    monkeypatch.setattr(Rule, "icmp_types_in", lambda self, family: [None])
    widened = verify(host, net, tmp_path / "widened", "widened").check("policy")
    assert widened.status == Status.FAIL
    messages = [f.message for f in widened.findings]
    assert any(" icmp destination-unreachable: the intent denies it (rule default), but " in m
               and "permits it at" in m for m in messages), messages
