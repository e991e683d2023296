"""What Batfish 0.36 cannot read on EOS, against a live service: the recorded evidence is what it
answers today; eos-core-ds (an EOS IPv4/IPv6 gateway) verifies clean, the report naming every line
left out of Batfish's view and what decided it; a wrong EOS IPv6 line still fails parsing, naming
it; and an IPv6 ACL fault Batfish cannot see still fails verify, by the offline evaluator."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from pybatfish.datamodel.answer import TableAnswer

from boothnet.derive.model import AclEntry
from boothnet.intent import load_network
from boothnet.run import Run
from boothnet.verify.batfish import blind
from boothnet.verify.batfish.from_intent import batfish_context, render_view, verify_intent_from_model
from boothnet.verify.batfish.report import Status, VerifyReport
from boothnet.verify.batfish.service import open_session, probe
from boothnet.verify.batfish.verify import run_verify
from boothnet.verify.stage import run_verify_stage
from tests.helpers import ROOT

pytestmark = pytest.mark.batfish

EOS_DS = ROOT / "inventories" / "eos-core-ds"


def failed(report: VerifyReport) -> dict[str, list[str]]:
    return {c.name: [f.one_line() for f in c.findings] for c in report.checks if c.status != Status.PASS}


def test_the_recorded_evidence_is_what_batfish_answers_today(host):
    """Each form's source: the probe asked again gives the recorded answer, row for row."""
    for folder in sorted({(ROOT / f.source.config).parent.parent for forms in blind.blind_forms().values()
                          for f in forms}):
        bf = open_session(probe(host), "boothnet-blind-evidence")
        name = f"evidence-{os.getpid()}"
        bf.init_snapshot(str(folder), name=name, overwrite=True)
        for question, columns in (("fileParseStatus", ["File_Name", "Status", "File_Format"]),
                                  ("parseWarning", ["Filename", "Line", "Text", "Comment"])):
            live = getattr(bf.q, question)().answer(snapshot=name).frame()[columns]
            kept = TableAnswer(json.loads((folder / "answers" / f"{question}.json").read_text())).frame()[columns]
            assert live.astype(str).values.tolist() == kept.astype(str).values.tolist(), question


def test_eos_core_ds_verifies_clean_naming_what_batfish_could_not_read(host, tmp_path):
    report = run_verify_stage(EOS_DS, tmp_path, host=host, require=True)
    assert failed(report) == {}
    assert report.check("parsing").findings == []
    (accepted,) = report.check("unused").findings
    assert accepted.device == "es1" and str(accepted.severity) == "warning"
    assert "USERS_IN_V6 is unused in the Batfish view: accepted" in accepted.message
    notes = [n for n in report.view_notes if "left out of the view (" in n]
    assert [n.split(" left out")[0] for n in notes] == [
        "es1: `ipv6 unicast-routing`", "es1: `ipv6 access-group <acl> in|out`",
        "es1: `permit icmpv6 <source> <destination> neighbor-solicitation|neighbor-advertisement`"]
    assert all("Batfish 0.36.0 cannot read it on arista_eos" in n and "decided instead by the read-back" in n
               for n in notes)
    assert "offline IPv6 evaluator" in notes[1]
    text = (tmp_path / "eos-core-ds" / "verify" / "verify.md").read_text()
    assert "## What Batfish reads" in text and "interface Vlan10: ipv6 access-group USERS_IN_V6 in" in text


@pytest.fixture(scope="module")
def eos_view(tmp_path_factory: pytest.TempPathFactory):
    net = load_network(EOS_DS)
    configs, models, _ = render_view(net, tmp_path_factory.mktemp("build"))
    return configs.out_dir, models, verify_intent_from_model(net, models)


@pytest.mark.parametrize("old, new, wrong", [
    # a misspelled direction on the binding whose right form the view leaves out
    ("   ip access-group USERS_IN in\n", "   ip access-group USERS_IN in\n   ipv6 access-group USERS_IN_V6 inbound\n",
     "ipv6 access-group USERS_IN_V6 inbound"),
    # the binding without its direction (EOS takes none without `in` or `out`)
    ("   ip access-group USERS_IN in\n", "   ip access-group USERS_IN in\n   ipv6 access-group USERS_IN_V6\n",
     "ipv6 access-group USERS_IN_V6"),
    # a misspelled ICMPv6 type beside the right ones (planted back, left out again)
    ("   permit icmpv6 any any packet-too-big\n",
     "   permit icmpv6 any any packet-too-big\n   permit icmpv6 any any neighbor-solicitation\n"
     "   permit icmpv6 any any neighbour-solicitation\n   permit icmpv6 any any neighbor-advertisement\n",
     "permit icmpv6 any any neighbour-solicitation"),
])
def test_a_wrong_eos_ipv6_line_still_fails_parsing_naming_it(host, eos_view, tmp_path, old, new, wrong):
    """Planted in es1's config before the view leaves its blind lines out (the right forms are
    planted back too, and left out again): only the wrong line reaches Batfish, and fails."""
    configs, models, intent = eos_view
    planted = tmp_path / "configs"
    shutil.copytree(configs, planted)
    path = planted / "es1.cfg"
    text = path.read_text()
    assert text.count(old) == 1 and "ipv6 unicast-routing" not in text
    text = text.replace(old, new).replace("ip routing\n", "ip routing\n!\nipv6 unicast-routing\n")
    path.write_text(text)
    left = blind.leave_out_blind(planted, {n: m.platform for n, m in models.items()})
    assert [g.text for g in left.left_out if g.form.id != "icmpv6-neighbor-discovery"] == ["ipv6 unicast-routing"]
    report = run_verify(intent, planted, tmp_path / "verify", host=host, require=True,
                        network="boothnet-blind-planted", snapshot=f"planted-{os.getpid()}")
    assert set(failed(report)) == {"parsing"}, failed(report)
    findings = report.check("parsing").findings
    assert {f.device for f in findings} == {"es1"}
    number = path.read_text().splitlines().index(f"   {wrong}") + 1  # in the view Batfish read
    assert [f.message for f in findings if f.message.startswith("line ")] == [
        f"line {number} '{wrong}': This syntax is unrecognized"]


def test_an_ipv6_acl_fault_batfish_cannot_see_still_fails_verify(host, tmp_path):
    """USERS_IN_V6's binding is left out of Batfish's view: a permit-all planted ahead of its rules
    (in the model, so the device config and the view both print it) passes every Batfish check,
    and verify fails by the offline IPv6 evaluator, naming es1, the ACL and the line."""
    run = Run(EOS_DS, tmp_path)
    for models in (run.models("hardware"), run.models("batfish", batfish_context)):
        acl = next(a for a in models["es1"].acls if a.name == "USERS_IN_V6")
        acl.entries.insert(0, AclEntry("permit", "ip", None, None, "planted"))
        acl.lines.insert(0, "permit ipv6 any any")
    report = run_verify_stage(run, tmp_path, host=host, require=True)
    assert report.status == Status.FAIL
    assert set(failed(report)) == {"ipv6_policy"}, failed(report)
    findings = report.check("ipv6_policy").findings
    assert {(f.device, f.location) for f in findings} == {("es1", "USERS_IN_V6: permit ipv6 any any")}
    view = (tmp_path / "eos-core-ds" / "batfish" / "configs" / "es1.cfg").read_text()
    assert "ipv6 access-list USERS_IN_V6\n   permit ipv6 any any\n" in view  # Batfish read it, could not apply it
    assert "ipv6 access-group" not in view
    assert probe(host).reachable
