"""`boothnet acl-review --base <ref>` in a git repository made in tmp: commit, change, review."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from boothnet.cli import main
from tests.helpers import ROOT

POLICY = Path("inventories/sc-booth/group_vars/all/policy.yml")


def git(repo: Path, *args: str) -> str:
    cmd = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch, no_batfish):
    shutil.copytree(ROOT / "inventories" / "sc-booth", tmp_path / "inventories" / "sc-booth")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def open_client_subnet(repo: Path) -> None:
    data = yaml.safe_load((repo / POLICY).read_text())
    next(r for r in data["policy"]["rules"] if r["name"] == "clients-to-home")["from"] = "vlan:vpn-clients"
    (repo / POLICY).write_text(yaml.safe_dump(data, sort_keys=False))


def research_ssh_to_booth1(repo: Path) -> None:
    data = yaml.safe_load((repo / POLICY).read_text())
    data["host_groups"]["booth_ssh"] = ["booth1"]
    data["policy"]["rules"].insert(2, {"name": "research-ssh-booth", "from": "zone:research", "to": "group:booth_ssh",
                                       "proto": "tcp", "ports": [22], "action": "permit"})
    (repo / POLICY).write_text(yaml.safe_dump(data, sort_keys=False))


def test_working_tree_change_against_head_exits_3(repo, capsys):
    research_ssh_to_booth1(repo)
    assert main(["acl-review", "-n", "sc-booth"]) == 3
    out = capsys.readouterr().out
    assert "end to end: 16 flow(s) newly permitted (16 need security sign-off), 0 newly denied" in out
    assert "SIGN-OFF research research-01 -> production booth-lan: 10.110.1.254 -> 10.10.10.10 tcp/22: " \
           "research -> production: research and production are kept apart (Batfish: SKIPPED)" in out
    assert "gate: FAIL (exit 3)" in out
    data = json.loads((repo / "build/sc-booth/review/acl_review.json").read_text())
    assert data["base"] == "HEAD" and data["head"] == "working tree"
    assert data["batfish"].startswith("SKIPPED")
    # the intent extracted from git is gone; only the review and its configs stay
    assert sorted(p.name for p in (repo / "build").iterdir()) == ["sc-booth"]
    assert git(repo, "worktree", "list").count("\n") == 1


def test_a_layer_lost_end_to_end_passes_the_gate_and_says_so(repo, capsys):
    """The whole client subnet admitted at core1 and hgw1: bgw1's TO_HOME still admits the
    listed clients only, so nothing new gets in, the subnet's other hosts rest on one layer, and
    the listed clients lose their service (newly denied)."""
    open_client_subnet(repo)
    assert main(["acl-review", "-n", "sc-booth"]) == 0
    out = capsys.readouterr().out
    assert "end to end: 0 flow(s) newly permitted (0 need security sign-off), 15 newly denied, 5 still denied " \
           "by one ACL fewer (defence in depth)" in out
    assert "ACL by ACL: 10 newly permitted, 15 newly denied" in out and "gate: PASS (exit 0)" in out


def test_committed_change_between_two_refs(repo):
    research_ssh_to_booth1(repo)
    git(repo, "commit", "-q", "-am", "research may ssh to booth1")
    assert main(["acl-review", "-n", "sc-booth", "--base", "HEAD~1", "--head", "HEAD"]) == 3
    assert main(["acl-review", "-n", "sc-booth", "--base", "HEAD"]) == 0  # working tree == HEAD
    # Reverting newly denies only: the gate passes.
    assert main(["acl-review", "-n", "sc-booth", "--base", "HEAD", "--head", "HEAD~1"]) == 0


def test_unknown_ref_and_no_git_are_errors_that_say_why(repo, capsys, tmp_path_factory, monkeypatch):
    assert main(["acl-review", "-n", "sc-booth", "--base", "nosuchref"]) == 1
    assert "git ref 'nosuchref' not found" in capsys.readouterr().err
    plain = tmp_path_factory.mktemp("plain")
    shutil.copytree(ROOT / "inventories" / "sc-booth", plain / "inventories" / "sc-booth")
    monkeypatch.chdir(plain)
    assert main(["acl-review", "-n", "sc-booth"]) == 1
    err = capsys.readouterr().err
    assert "inventories/sc-booth: not inside a git repository" in err and "--base/--head need" in err


def test_invalid_intent_at_base_names_the_ref(repo, capsys):
    data = yaml.safe_load((repo / POLICY).read_text())
    data["policy"]["rules"][0]["from"] = "zone:nowhere"
    (repo / POLICY).write_text(yaml.safe_dump(data, sort_keys=False))
    git(repo, "commit", "-q", "-am", "break it")
    assert main(["acl-review", "-n", "sc-booth", "--base", "HEAD", "--head", "HEAD~1"]) == 1
    err = capsys.readouterr().err
    assert "the intent at 'HEAD' is invalid" in err and "zone:nowhere" in err
