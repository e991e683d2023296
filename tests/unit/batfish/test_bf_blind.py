"""What Batfish 0.36 cannot read on a platform (platforms/batfish_blind.yml): every form tied to the
recorded live answer that shows it unrecognized, the view leaving out those forms and no others, and
what decides them instead (the read-back, the offline IPv6 evaluator) catching a fault in them."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from pybatfish.datamodel.answer import TableAnswer

from boothnet.derive import derive_network
from boothnet.derive.model import AclEntry
from boothnet.intent import load_network
from boothnet.readback import expected_facts, mismatches, read_config
from boothnet.render.build import build_intent
from boothnet.run import Run
from boothnet.verify.batfish import blind
from boothnet.verify.batfish.from_intent import (
    batfish_context,
    batfish_view,
    render_view,
    verify_intent_from_model,
)
from boothnet.verify.batfish.report import Status
from boothnet.verify.stage import ipv6_policy
from tests.helpers import ROOT

EOS_DS = ROOT / "inventories" / "eos-core-ds"


def recorded(path: str) -> pd.DataFrame:
    return TableAnswer(json.loads((ROOT / path).read_text())).frame()


def all_forms() -> list[blind.BlindForm]:
    return [form for forms in blind.blind_forms().values() for form in forms]


def probe_lines(config: str) -> list[tuple[int, str, str | None]]:
    """(number, line, its stanza header) of every config line of a probe."""
    out, header = [], None
    for number, line in enumerate((ROOT / config).read_text().splitlines(), start=1):
        if line and not line[0].isspace():
            header = None if line.startswith("!") else line
        out.append((number, line, header))
    return out


def test_each_form_names_a_recorded_answer_of_its_batfish_and_platform():
    assert {f.id for f in all_forms()} >= {"ipv6-unicast-routing", "ipv6-access-group", "icmpv6-neighbor-discovery"}
    for form in all_forms():
        src = form.source
        assert src.batfish == "0.36.0" and src.lines, form.id
        index = json.loads((ROOT / src.answer).with_name("index.json").read_text())
        assert index["versions"]["Batfish"] == src.batfish, form.id
        status = recorded(str(Path(src.answer).with_name("fileParseStatus.json")))
        probe = f"configs/{Path(src.config).name}"
        row = status[status["File_Name"] == probe].iloc[0]
        # Batfish read the probe as this platform: a probe read as IOS proves nothing about EOS
        assert row["File_Format"] == {"arista_eos": "ARISTA", "cisco_ios": "CISCO_IOS"}[form.platform], form.id


def test_each_form_is_exactly_the_probe_lines_the_live_answer_shows_unrecognized():
    """A form covers the probe lines its source names and no other probe line; and every line
    the answer shows unrecognized is some form's (the data holds the whole answer, no more)."""
    for config in {f.source.config for f in all_forms()}:
        forms = [f for f in all_forms() if f.source.config == config]
        answer = recorded(forms[0].source.answer)
        unrecognized = {int(r.Line): str(r.Text) for r in answer.itertuples()
                        if r.Filename == f"configs/{Path(config).name}" and "unrecognized" in r.Comment}
        lines = probe_lines(config)
        for form in forms:
            matched = {n for n, line, header in lines if form.matches(line, header)}
            assert matched == set(form.source.lines), (form.id, sorted(matched))
            for n in matched:
                assert unrecognized.get(n) == lines[n - 1][1].strip(), (form.id, n)
        covered = {n for f in forms for n in f.source.lines}
        assert covered == set(unrecognized), sorted(set(unrecognized) - covered)


@pytest.mark.parametrize("line, header", [
    ("   ipv6 access-group USERS_IN_V6 inbound", "interface Vlan10"),  # a misspelled direction
    ("   ipv6 traffic-filter USERS_IN_V6 in", "interface Vlan10"),  # IOS's form on EOS
    ("ipv6 access-group USERS_IN_V6 in", None),  # not inside an interface
    ("   ipv6 access-group 6USERS in", "interface Vlan10"),  # not an EOS ACL name
    ("   permit icmpv6 any any nd-ns", "ipv6 access-list USERS_IN_V6"),  # boothnet's own name leaking
    ("   permit icmpv6 any any neighbour-solicitation", "ipv6 access-list USERS_IN_V6"),
    ("   deny icmpv6 any any neighbor-solicitation", "ipv6 access-list USERS_IN_V6"),  # no live answer for deny
    ("   permit icmpv6 any any neighbor-solicitation log", "ipv6 access-list USERS_IN_V6"),
    ("   permit icmpv6 host 10.4.10.11 any neighbor-solicitation", "ipv6 access-list USERS_IN_V6"),
    ("   permit icmpv6 any any neighbor-solicitation", "ip access-list USERS_IN"),  # in an IPv4 ACL
    ("   ipv6 unicast-routing", "interface Vlan10"),  # inside a stanza
    ("ipv6 unicast-routing vrf blue", None),
    ("   ipv6 access-group USERS_IN_V6 in", "ipv6 access-list USERS_IN_V6"),
])
def test_a_line_of_no_recorded_form_stays_in_the_view(line, header):
    """Only the forms a live answer proves are left out: a wrong line reaches Batfish and fails."""
    text = (f"{header}\n" if header else "") + line + "\n"
    view, gone = blind.leave_out("es1", text, blind.blind_forms()["arista_eos"])
    assert gone == [] and view == text


def test_the_view_of_eos_core_ds_leaves_out_the_blind_lines_and_the_device_keeps_them(tmp_path):
    net = load_network(EOS_DS)
    configs, models, left = render_view(net, tmp_path)
    assert [(g.device, g.form.id, g.stanza, g.text) for g in left.left_out] == [
        ("es1", "ipv6-unicast-routing", None, "ipv6 unicast-routing"),
        ("es1", "ipv6-access-group", "interface Vlan10", "ipv6 access-group USERS_IN_V6 in"),
        ("es1", "icmpv6-neighbor-discovery", "ipv6 access-list USERS_IN_V6",
         "permit icmpv6 any any neighbor-solicitation"),
        ("es1", "icmpv6-neighbor-discovery", "ipv6 access-list USERS_IN_V6",
         "permit icmpv6 any any neighbor-advertisement"),
    ]
    view = (configs.out_dir / "es1.cfg").read_text()
    for gone in left.left_out:
        assert gone.text not in view
    # everything else of the IPv6 ACL stays for Batfish to parse
    assert "ipv6 access-list USERS_IN_V6\n   permit icmpv6 any any packet-too-big\n" \
           "   permit icmpv6 any any router-solicitation\n" in view
    assert "ipv6 address 2001:db8:4:10::1/64" in view
    # the IOS core is not touched; leaving out again leaves nothing more (idempotent)
    assert {g.device for g in left.left_out} == {"es1"}
    assert blind.leave_out_blind(configs.out_dir, {n: m.platform for n, m in models.items()}).left_out == ()
    device = (build_intent(net, tmp_path / "hw")[0].out_dir / "es1.cfg").read_text()
    for gone in left.left_out:
        assert gone.text in device


def test_only_the_ipv6_acls_the_model_binds_are_accepted_unused():
    net = load_network(EOS_DS)
    models = derive_network(net, batfish_context(net))
    accepted = verify_intent_from_model(net, models).accepted_unused
    assert [(a.node, a.structure_type, a.name) for a in accepted] == [
        ("es1", "extended ipv6 access-list", "USERS_IN_V6")]
    assert "ipv6 access-group <acl> in|out" in accepted[0].reason and "read-back" in accepted[0].reason
    # an IPv6 ACL bound nowhere is dead config: not accepted
    vlan10 = next(i for i in models["es1"].interfaces if i.name == "Vlan10")
    vlan10.acl6_in = None
    assert blind.accepted_unused(models) == ()


def test_the_report_notes_name_each_form_its_evidence_and_what_decides_it(tmp_path):
    run = Run(EOS_DS, tmp_path)
    notes = batfish_view(run).notes(run.net)
    blind_notes = [n for n in notes if "left out of the view (" in n]
    assert len(blind_notes) == 3, notes
    for note, form in zip(blind_notes, blind.blind_forms()["arista_eos"], strict=True):
        assert note.startswith(f"es1: `{form.form}` left out of the view"), note
        assert form.source.answer in note and "decided instead by" in note and form.decided_by in note
    assert "interface Vlan10: ipv6 access-group USERS_IN_V6 in" in blind_notes[1]


# --- what decides them instead catches a fault Batfish cannot see -------------------------------

def _device_config(tmp_path: Path) -> tuple[str, object]:
    net = load_network(EOS_DS)
    models = derive_network(net)
    return (build_intent(net, tmp_path, models=models)[0].out_dir / "es1.cfg").read_text(), models["es1"]


@pytest.mark.parametrize("planted, field", [
    (("ipv6 unicast-routing\n", ""), "ipv6_routing"),
    (("   ipv6 access-group USERS_IN_V6 in\n", "   ipv6 access-group USERS_IN_V6 out\n"), "interface Vlan10 acl6_in"),
    (("   ipv6 access-group USERS_IN_V6 in\n", ""), "interface Vlan10 acl6_in"),
    (("   permit icmpv6 any any neighbor-solicitation\n", ""), "acl USERS_IN_V6 line 2"),
    (("   permit icmpv6 any any neighbor-advertisement\n", "   deny icmpv6 any any neighbor-advertisement\n"),
     "acl USERS_IN_V6 line 3"),
])
def test_the_read_back_catches_a_fault_in_a_left_out_line(tmp_path, planted, field):
    text, model = _device_config(tmp_path)
    assert mismatches(expected_facts(model), read_config(text, "arista_eos", "es1")) == []
    old, new = planted
    assert text.count(old) == 1
    found = mismatches(expected_facts(model), read_config(text.replace(old, new), "arista_eos", "es1"))
    assert field in [m.field for m in found], [str(m) for m in found]


def test_the_offline_evaluator_catches_an_ipv6_acl_batfish_cannot_see_applied(tmp_path):
    """USERS_IN_V6's binding is left out of the view; a permit-all ahead of its rules is the
    offline evaluator's to find, naming the device, the ACL and the line."""
    run = Run(EOS_DS, tmp_path)
    assert [c.status for c in ipv6_policy(run)] == [Status.PASS]
    acl = next(a for a in run.models("hardware")["es1"].acls if a.name == "USERS_IN_V6")
    acl.entries.insert(0, AclEntry("permit", "ip", None, None, "planted"))
    acl.lines.insert(0, "permit ipv6 any any")
    (check,) = ipv6_policy(run)
    assert check.status == Status.FAIL
    assert {(f.device, f.location) for f in check.findings} == {("es1", "USERS_IN_V6: permit ipv6 any any")}
    assert any("the intent denies it" in f.message for f in check.findings)
