"""ACL review, two methods, one verdict: for each intent change, Batfish's differential rows and
the offline evaluator's agree change for change, with the same exit code (live Batfish)."""

from __future__ import annotations

import shutil

import pytest
import yaml

from boothnet.verify.acl_review.report import BATFISH, OFFLINE, _groups
from boothnet.verify.acl_review.stage import review_intents
from tests.helpers import ROOT

pytestmark = pytest.mark.batfish


def new_permit(data):
    """Research may reach a production host (booth1) on tcp/22."""
    data["host_groups"]["booth_ssh"] = ["booth1"]
    data["policy"]["rules"].insert(2, {"name": "research-ssh-booth", "from": "zone:research",
                                       "to": "group:booth_ssh", "proto": "tcp", "ports": [22],
                                       "action": "permit"})


def widened_source(data):
    """The whole client subnet, not just the three listed clients, may reach the secured network."""
    next(r for r in data["policy"]["rules"] if r["name"] == "clients-to-home")["from"] = "vlan:vpn-clients"


def removed_rule(data):
    """research-demo-to-theater removed."""
    rules = data["policy"]["rules"]
    rules.remove(next(r for r in rules if r["name"] == "research-demo-to-theater"))


def changes(review):
    return {(f.kind, f.device, f.acl) for f in review.findings}


@pytest.mark.parametrize(("change", "exit_code"), [(new_permit, 3), (widened_source, 3), (removed_rule, 0)])
def test_batfish_and_offline_agree(host, tmp_path, change, exit_code):
    for side in ("base", "head"):
        shutil.copytree(ROOT / "inventories" / "sc-booth", tmp_path / side)
    policy = tmp_path / "head" / "group_vars" / "all" / "policy.yml"
    data = yaml.safe_load(policy.read_text())
    change(data)
    policy.write_text(yaml.safe_dump(data, sort_keys=False))

    def review(with_host, build):
        return review_intents(tmp_path / "base", tmp_path / "head", tmp_path / build, "HEAD", host=with_host)

    live = review(host, "live")
    offline = review("127.0.0.1:1", "offline")  # a port nothing listens on: offline evaluation
    assert (live.method, offline.method) == (BATFISH, OFFLINE)
    assert live.disagreements == []
    assert changes(live) == changes(offline) != set()
    assert live.exit_code == offline.exit_code == exit_code
    assert len(_groups(live.permitted)) == len(_groups(offline.permitted))
    assert len(_groups(live.denied)) == len(_groups(offline.denied))
    assert "DISAGREEMENT" not in live.files["md"].read_text()
