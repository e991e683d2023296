"""The policy compiler equals the intent, as a property: for generated policies over the
reference booths, every ACL on every representative flow's path decides what the intent's
first-match decision (`policy_decision`) says, through the offline evaluator.

`make test` runs BOOTHNET_POLICY_EXAMPLES (default 200) policies; `make fuzz` runs thousands.
The Batfish and live-lab halves of the property are in tests/integration/policy/.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

from boothnet.derive import derive_network
from boothnet.derive.model import AclEntry
from boothnet.derive.policy import PolicyCompiler, dedupe, number
from boothnet.intent.model import Network, Rule
from boothnet.verify.flows import acl_views
from boothnet.verify.policy import PolicyPaths
from tests.policies import policies, reference

EXAMPLES = int(os.environ.get("BOOTHNET_POLICY_EXAMPLES", "200"))


def assert_compiled_equals_intent(paths: PolicyPaths) -> None:
    mismatches = paths.mismatches()
    assert not mismatches, f"{len(mismatches)} decisions differ:\n" + "\n".join(m.describe() for m in mismatches[:8])
    for flow in paths.flows:
        if paths.on_path(flow):
            assert paths.compiled(flow) == paths.intent(flow), flow


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(policies())
def test_every_compiled_acl_decides_as_the_intent(net):
    assert_compiled_equals_intent(PolicyPaths(net, derive_network(net)))


def test_the_booth_from_the_issue_permits_production_to_research_ping():
    net = reference("fw-booth")
    paths = PolicyPaths(net, derive_network(net))
    assert_compiled_equals_intent(paths)
    ping = next(f for f in paths.flows if str(f.src) == "10.20.10.254" and str(f.dst) == "10.120.1.254"
                and f.proto == "icmp")
    assert (paths.intent(ping), paths.compiled(ping)) == ("permit", "permit")


def shadowing_inbound(self: PolicyCompiler, vlan):  # the compiler before issue 33
    """The bug of issue 33, planted back: an outside rule as one terminal deny per internal subnet."""
    forward: list[AclEntry] = []
    for rule in self.rules_for(vlan):
        for src in self.part_in(rule.source, vlan):
            if rule.destination == "zone:outside":
                forward += [AclEntry("deny", "ip", src, internal, rule.name)
                            for internal in self.internal if not internal.subnet_of(vlan.subnet)]
                forward.append(AclEntry(rule.action, rule.proto, src, None, rule.name, dst_ports=tuple(rule.ports)))
            else:
                forward += self._forward(rule, [src], vlan, list(self.prefixes(rule.destination)))
    tail = AclEntry(self.net.policy.default_action, "ip", None, None, "default")
    return number(dedupe([replace(e) for e in forward] + [tail]))


def test_the_planted_shadowing_bug_is_named_by_rule_and_flow(monkeypatch):
    monkeypatch.setattr(PolicyCompiler, "inbound", shadowing_inbound)
    net = reference("fw-booth")
    with pytest.raises(AssertionError) as failed:
        assert_compiled_equals_intent(PolicyPaths(net, derive_network(net)))
    assert ("10.20.10.11 -> 10.120.1.254 icmp: the intent permits it (rule ping-anywhere), but fw1 ACL OFFICE_IN "
            "denies it at 'ip saddr 10.20.10.0/24 ip daddr 10.120.1.0/24 counter drop' (compiled from rule "
            "production-out)") in str(failed.value)


def test_the_property_finds_the_planted_bug_in_generated_policies(monkeypatch):
    """The same generator, searched (deterministically) for a policy the planted compiler gets wrong.
    Not shrunk: finding it is the proof, and shrinking took nine calls in ten."""
    monkeypatch.setattr(PolicyCompiler, "inbound", shadowing_inbound)
    found = find(policies(), lambda net: bool(PolicyPaths(net, derive_network(net)).mismatches()),
                 settings=settings(max_examples=2000, database=None, derandomize=True, deadline=None,
                                   phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    wrong = PolicyPaths(found, derive_network(found)).mismatches()[0].describe()
    assert re.search(r"the intent permits it \(rule \w+\), but .* denies it at .* \(compiled from rule r\d\)$", wrong)


def test_a_network_with_more_flows_than_the_limit_is_sampled_and_says_so():
    net = reference("sc-booth")
    models = derive_network(net)
    whole = PolicyPaths(net, models)
    assert whole.sampled is None and len(whole.flows) == whole.total == 7440
    sample = PolicyPaths(net, models, limit=1000)
    assert len(sample.flows) <= 1000 and set(sample.flows) <= set(whole.flows)
    assert sample.sampled == f"a seeded sample of {len(sample.flows):,} of the 7,440 representative flows"
    assert sample.flows == PolicyPaths(net, models, limit=1000).flows  # seeded: the same sample again


def ping_only(name: str) -> Network:
    """A reference booth whose `ping-anywhere` permits echo requests only: every other ICMP type
    falls to the default deny (the replies come back by the stateless return lines or state)."""
    net = reference(name)
    rules = [rule.model_copy(update={"icmp_types": ["echo-request"]}) if rule.name == "ping-anywhere" else rule
             for rule in net.policy.rules]
    return net.model_copy(update={"policy": net.policy.model_copy(update={"rules": rules})})


@pytest.mark.parametrize(("name", "family"), [("lab-mini", 4), ("eos-core", 4), ("eos-core-ds", 6)])
def test_a_ping_only_rule_permits_echo_requests_and_no_other_type(name, family):
    net = ping_only(name)
    paths = PolicyPaths(net, derive_network(net), family=family)
    assert not paths.mismatches(), paths.mismatches()[0].describe()  # every ACL on every path, every type
    # the whole path (eos-core-ds's admin is bound by MAC: its gateway matches the prefix, its port the host)
    assert all(paths.compiled(f) == paths.intent(f) for f in paths.flows if f.proto == "icmp" and paths.on_path(f))
    kinds = {f.icmp_type for f in paths.flows if f.proto == "icmp"}
    assert kinds == {"echo-request", "destination-unreachable"}  # the one named, and one named nowhere
    src, dst = next((f.src, f.dst) for f in paths.flows if f.proto == "icmp" and paths.on_path(f)
                    and paths.intent(f) == "permit")
    decided = {f.icmp_type: (paths.intent(f), paths.compiled(f)) for f in paths.flows
               if (f.src, f.dst, f.proto) == (src, dst, "icmp")}
    assert decided == {"echo-request": ("permit", "permit"), "destination-unreachable": ("deny", "deny")}


def test_each_platform_prints_the_type_in_its_own_words():
    words = {}
    for name, family in (("lab-mini", 4), ("eos-core", 4), ("eos-core-ds", 6)):
        net = ping_only(name)
        for view in acl_views(derive_network(net), family).values():
            for entry, lines in zip(view.acl.entries, view.lines, strict=True):
                if entry.rule == "ping-anywhere":
                    words.setdefault((view.device, family), set()).update(lines)
    flat = {line for lines in words.values() for line in lines}
    assert any(line.endswith("icmp type echo-request counter accept") for line in flat), flat  # nftables
    assert any(line.startswith("permit icmp ") and line.endswith(" echo") for line in flat), flat  # IOS/EOS IPv4
    assert any(line.startswith("permit icmpv6 ") and line.endswith(" echo-request") for line in flat), flat  # EOS v6
    assert not any("meta l4proto icmp" in line or line.endswith(" any") for line in flat), flat  # never every type


def test_the_property_names_the_rule_whose_type_was_widened(monkeypatch):
    """The fault the property must catch: a rule's ICMP lines widened to every type."""
    monkeypatch.setattr(Rule, "icmp_types_in", lambda self, family: [None])
    net = ping_only("lab-mini")
    with pytest.raises(AssertionError) as failed:
        assert_compiled_equals_intent(PolicyPaths(net, derive_network(net)))
    assert re.search(r"-> \S+ icmp destination-unreachable: the intent denies it \(rule default\), but \w+ ACL \w+ "
                     r"permits it at '[^']*meta l4proto icmp counter accept' \(compiled from rule ping-anywhere\)",
                     str(failed.value)), str(failed.value)


def test_batfish_is_asked_each_typed_icmp_flow_apart():
    """The policy check's questions keep a rule's ICMP types apart: a ping and another type the
    intent decides otherwise are asked as two services, each with its own ICMP type."""
    from boothnet.verify.batfish.from_intent import policy_queries
    from boothnet.verify.batfish.questions import typed_packet

    net = ping_only("lab-mini")
    queries = policy_queries(PolicyPaths(net, derive_network(net)))
    asked = {(q.node, q.acl, q.proto, q.action) for q in queries if q.proto.startswith("icmp") and not q.reply}
    assert ("r1", "USERS_IN", "icmp", "permit") in asked
    assert ("r1", "USERS_IN", "icmp destination-unreachable", "deny") in asked
    assert (typed_packet("icmp").icmp_type, typed_packet("icmp destination-unreachable").icmp_type) == (8, 3)
