"""verify.yml and acl_review.yml, as a security reviewer runs them: ansible-playbook, the
collection's action plugins, live Batfish."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tests.unit.acl_review.test_acl_review_cli import git, research_ssh_to_booth1

pytestmark = pytest.mark.batfish
PLAYBOOK = str(ROOT / ".venv" / "bin" / "ansible-playbook")


def play(playbook: str, inventory: Path, build: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([PLAYBOOK, "-i", str(inventory), str(ROOT / "playbooks" / playbook),
                           "-e", f"boothnet_build_dir={build}", *extra], cwd=ROOT, capture_output=True, text=True)


def test_verify_playbook_runs_every_batfish_check(host, tmp_path):
    done = play("verify.yml", ROOT / "inventories" / "lab-mini", tmp_path, "-e", f"batfish_host={host}",
                "-e", "require_batfish=true")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "status: PASS" in done.stdout
    checks = json.loads((tmp_path / "lab-mini" / "verify" / "verify.json").read_text())["checks"]
    batfish = [c for c in checks if c["source"] == "batfish"]
    assert len(batfish) >= 10 and {c["status"] for c in checks} == {"PASS"}


def test_verify_playbook_without_the_required_batfish_fails_saying_so(tmp_path):
    done = play("verify.yml", ROOT / "inventories" / "lab-mini", tmp_path, "-e", "batfish_host=127.0.0.9",
                "-e", "require_batfish=true")
    assert done.returncode == 2
    assert "require_batfish is set: Batfish at 127.0.0.9:9996 unreachable" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_acl_review_playbook_gates_a_widened_source(host, tmp_path):
    repo = tmp_path / "repo"
    (repo / "inventories").mkdir(parents=True)
    subprocess.run(["cp", "-r", str(ROOT / "inventories" / "sc-booth"), str(repo / "inventories")], check=True)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    inventory = repo / "inventories" / "sc-booth"
    unchanged = play("acl_review.yml", inventory, tmp_path / "build", "-e", f"batfish_host={host}")
    assert unchanged.returncode == 0, unchanged.stdout[-3000:]
    research_ssh_to_booth1(repo)
    gated = play("acl_review.yml", inventory, tmp_path / "build", "-e", f"batfish_host={host}",
                 "-e", "require_batfish=true")
    assert gated.returncode == 2, gated.stdout[-3000:]
    # end to end: each research VLAN's representative host to booth1 on tcp/22
    assert "ACL review: 16 flow(s) newly permitted end to end need security sign-off; see " in gated.stdout
    assert "gate: FAIL" in gated.stdout and f"batfish: ran at {host}" in gated.stdout
