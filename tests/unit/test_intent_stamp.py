"""The stamp of an intent: equal for the same files, and a change names the file."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

from boothnet.intent.stamp import IntentStamp, changed_files, intent_files, stamp_intent
from tests.helpers import ROOT


def _copy(tmp_path: Path, name: str = "inv") -> Path:
    return Path(shutil.copytree(ROOT / "inventories" / "lab-mini", tmp_path / name))


def test_same_intent_same_stamp_wherever_it_lives(tmp_path):
    one, two = _copy(tmp_path, "one"), _copy(tmp_path, "two")
    first, again, elsewhere = stamp_intent(one), stamp_intent(one), stamp_intent(two)
    assert first == again
    assert first.digest == elsewhere.digest and first.files == elsewhere.files
    assert first.directory == str(one.resolve()) and len(first.digest) == 64
    assert sorted(first.files) == [
        "group_vars/all/links.yml",
        "group_vars/all/network.yml",
        "group_vars/all/policy.yml",
        "group_vars/all/throughput.yml",
        "group_vars/all/vlans.yml",
        "host_vars/r1.yml",
        "host_vars/r2.yml",
        "hosts.yml",
    ]


def test_one_byte_changed_names_that_file(tmp_path):
    inv = _copy(tmp_path)
    built = stamp_intent(inv)
    vlans = inv / "group_vars" / "all" / "vlans.yml"
    vlans.write_bytes(vlans.read_bytes().replace(b"mtu: 9000", b"mtu: 9001"))
    now = stamp_intent(inv)
    assert now.digest != built.digest
    assert changed_files(built, now) == ["group_vars/all/vlans.yml"]


def test_file_added_or_removed_is_a_change(tmp_path):
    inv = _copy(tmp_path)
    built = stamp_intent(inv)
    (inv / "host_vars" / "r3.yml").write_text("---\nplatform: frr_linux\n")
    (inv / "host_vars" / "r2.yml").unlink()
    now = stamp_intent(inv)
    assert now.digest != built.digest
    assert changed_files(built, now) == ["host_vars/r2.yml (removed)", "host_vars/r3.yml (new)"]


def test_a_file_moved_to_another_name_is_a_change(tmp_path):
    inv = _copy(tmp_path)
    built = stamp_intent(inv)
    (inv / "host_vars" / "r1").mkdir()
    (inv / "host_vars" / "r1.yml").rename(inv / "host_vars" / "r1" / "main.yml")
    assert changed_files(built, stamp_intent(inv)) == ["host_vars/r1.yml (removed)", "host_vars/r1/main.yml (new)"]


def test_hidden_vault_and_other_files_are_not_intent(tmp_path):
    inv = _copy(tmp_path)
    built = stamp_intent(inv)
    (inv / "README.md").write_text("notes\n")
    (inv / "group_vars" / "all" / ".vlans.yml.swp").write_bytes(b"\0editor")
    (inv / "group_vars" / "all" / "vault.yml").write_text("$ANSIBLE_VAULT;1.1;AES256\n6162\n")
    assert stamp_intent(inv) == built
    assert not any(p.name in ("README.md", ".vlans.yml.swp") for p in intent_files(inv))


def test_stamp_round_trips_through_its_json_form(tmp_path):
    stamp = stamp_intent(_copy(tmp_path))
    assert IntentStamp.from_dict(json.loads(json.dumps(asdict(stamp)))) == stamp
