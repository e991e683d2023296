"""The lab's IOS and EOS stand-ins run their ACLs statelessly, as the switches do (issue 66 item 5),
and a permit row passes only when its reply comes back (item 6). Planted in the derive stage, so
that the lab and the Batfish view run the same faulty configs: (a) eos-core's research ACL on the
IOS gateway without the echo-reply line ahead of `deny ip <research> <production>` (what the
derive stage rendered before the fix); (b) a secured VLAN on the EOS gateway whose outbound ACL
is a bare `deny ip any any`. Each fails its permit rows naming the ACL the replies die at, live
and in the Batfish column alike; the configs as derived pass."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import boothnet.derive.policy as policy
from boothnet.derive.model import AclEntry
from boothnet.lab.plan import lab_models
from boothnet.lab.runner import detect_vlan_mode
from boothnet.lab.scratch import copy_inventory
from boothnet.run import Run
from boothnet.validate.access import lab_access
from boothnet.validate.checks.convergence import wait_converged
from boothnet.validate.checks.isolation import batfish_answers, judge_batfish_agreement, run_isolation
from boothnet.validate.plan import isolation_plan
from boothnet.validate.replies import ReplyPaths
from boothnet.validate.results import IsolationRow
from tests.helpers import ROOT, quiet, running_lab

pytestmark = [
    pytest.mark.lab,
    pytest.mark.batfish,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces (CI runs as root)"),
]
SEED = 2026
EOS_CORE = ROOT / "inventories" / "eos-core"
SECURE_EOS = Path(__file__).parent / "secure-eos"


# under names and management subnets of their own: test_vendor_standins runs eos-core beside
OWN_NAMES = {EOS_CORE: ("sl-eos-core", "198.18.67.0/24"), SECURE_EOS: ("sl-secure-eos", "198.18.68.0/24")}


@contextmanager
def lab(inventory: Path, tmp_path: Path) -> Iterator[Run]:
    name, mgmt = OWN_NAMES[inventory]
    run = Run(copy_inventory(inventory, tmp_path / "inventory", name, mgmt), tmp_path / "build")
    with running_lab(run, tmp_path / "build", vlan_mode=(mode := detect_vlan_mode())):
        run.lab_vlan_mode = mode  # type: ignore[attr-defined]  # the test's own note
        yield run


def isolation(run: Run, host: str, planted: bool = False) -> list[IsolationRow]:
    """The isolation matrix live, with the Batfish column (both directions of every permit). A
    planted reply drop keeps convergence's pings from passing: routing is given its time alone."""
    net = run.net
    access = lab_access(net, run.layout.lab.resolve())
    flows = isolation_plan(net, SEED).flows
    # planted, the dropped replies keep it from ever passing: it waits its whole bound, which must
    # outlast OSPF on a loaded machine (ci: 15 s left a tcp/22 row 'unreachable')
    converged = wait_converged(net, access, flows, 45 if planted else 60)
    assert planted or converged.status == "PASS", converged.reason
    answers, stage = batfish_answers(run, flows, host, quiet)
    assert stage.status == "PASS", stage.reason  # a skipped Batfish column is no agreement
    rows = run_isolation(net, access, flows, quiet, answers,
                         ReplyPaths(net, lab_models(run, run.lab_vlan_mode)))  # type: ignore[attr-defined]
    judge_batfish_agreement(stage, rows)
    return rows


def failed(rows: list[IsolationRow]) -> list[IsolationRow]:
    return [r for r in rows if r.verdict != "PASS"]


def test_a_research_acl_dropping_production_echo_replies_fails_the_permit_rows_naming_it(
        host, tmp_path, monkeypatch) -> None:
    # the derive stage as it was: a rule `any` opens from the research VLAN too gave it no echo-reply line
    monkeypatch.setattr(policy, "reply_permitted", lambda entries, reply: True)
    with lab(EOS_CORE, tmp_path) as run:
        rows = isolation(run, host, planted=True)
    bad = failed(rows)
    assert bad, "the planted reply drop passed"
    assert {(r.src_zone, r.dst_zone, r.flow, r.expected, r.observed) for r in bad} == {
        ("users", "lab", "icmp", "permit", "deny")}, [(r.src, r.dst, r.flow, r.detail) for r in bad]
    for row in bad:
        assert "its reply dies at cs1 ACL LAB_IN: 'deny ip 10.4.20.0 0.0.0.255 10.4.10.0 0.0.0.255'" in row.detail, \
            row.detail
        assert row.batfish == "deny" and "its reply" in (row.batfish_detail or ""), row.batfish_detail
        assert "cs1 LAB_IN" in (row.batfish_detail or ""), row.batfish_detail


def test_a_secured_vlan_whose_outbound_acl_drops_every_reply_fails_its_permit_rows_naming_it(
        host, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(policy.PolicyCompiler, "outbound_secure",
                        lambda self, vlan: policy.number([AclEntry("deny", "ip", None, None, "default", log=True)]))
    with lab(SECURE_EOS, tmp_path) as run:
        rows = isolation(run, host, planted=True)
    bad = failed(rows)
    assert {(r.src, r.dst_zone, r.flow) for r in bad} >= {("h5", "lab", "tcp/22"), ("h5", "lab", "icmp")}, \
        [(r.src, r.dst, r.flow, r.detail) for r in bad]
    for row in bad:
        assert row.expected == "permit" and row.observed == "deny", (row.src, row.dst, row.flow, row.observed)
        assert "its reply dies at es1 ACL VAULT_OUT: 'deny ip any any log'" in row.detail, row.detail
        assert row.batfish == "deny" and "es1 VAULT_OUT" in (row.batfish_detail or ""), row.batfish_detail


@pytest.mark.parametrize("inventory", [EOS_CORE, SECURE_EOS], ids=["eos-core", "secure-eos"])
def test_the_configs_as_derived_carry_every_reply(host, tmp_path, inventory) -> None:
    with lab(inventory, tmp_path) as run:
        rows = isolation(run, host)
    assert failed(rows) == [], [(r.src, r.dst, r.flow, r.detail, r.batfish_detail) for r in failed(rows)]
    assert any(r.expected == "permit" for r in rows)
