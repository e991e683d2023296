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


def test_working_tree_change_against_head_exits_3(repo, capsys):
    open_client_subnet(repo)
    assert main(["acl-review", "-n", "sc-booth"]) == 3
    out = capsys.readouterr().out
    assert "newly permitted: 10 (10 need security sign-off), newly denied: 15" in out
    assert "SIGN-OFF core1 VPN_CLIENTS_IN: TCP 10.10.30.254 -> 10.200.1.254 port 22" in out
    assert "gate: FAIL (exit 3)" in out
    data = json.loads((repo / "build/sc-booth/review/acl_review.json").read_text())
    assert data["base"] == "HEAD" and data["head"] == "working tree"
    assert data["batfish"].startswith("SKIPPED")
    # the intent extracted from git is gone; only the review and its configs stay
    assert sorted(p.name for p in (repo / "build").iterdir()) == ["sc-booth"]
    assert git(repo, "worktree", "list").count("\n") == 1


def test_committed_change_between_two_refs(repo):
    open_client_subnet(repo)
    git(repo, "commit", "-q", "-am", "open the client subnet")
    assert main(["acl-review", "-n", "sc-booth", "--base", "HEAD~1", "--head", "HEAD"]) == 3
    assert main(["acl-review", "-n", "sc-booth", "--base", "HEAD"]) == 0  # working tree == HEAD
    # Reverting is gated too: bgw1's TO_HOME newly lets the three listed clients into `secure` again.
    assert main(["acl-review", "-n", "sc-booth", "--base", "HEAD", "--head", "HEAD~1"]) == 3


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
