"""ACL review, two methods, one verdict: for each intent change, Batfish's differential rows and
the offline evaluator's agree change for change, with the same exit code (live Batfish)."""

from __future__ import annotations

import shutil

import pytest
import yaml

from boothnet.verify.acl_review.report import BATFISH, OFFLINE, _groups
from boothnet.verify.acl_review.stage import review_intents
from boothnet.verify.batfish.service import BatfishAsk
from tests.acl_changes import (
    NO_RESEARCH_TO_THEATER_WEB,
    add_static,
    drop_acl,
    remove_rule,
    review_change,
    widen_source,
)
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


# widened_source: per ACL the whole client subnet is newly permitted at core1 and hgw1, but end to
# end bgw1's TO_HOME still admits only the listed clients: nothing new gets in, the gate passes
@pytest.mark.parametrize(("change", "exit_code"), [(new_permit, 3), (widened_source, 0), (removed_rule, 0)])
def test_batfish_and_offline_agree(host, tmp_path, change, exit_code):
    for side in ("base", "head"):
        shutil.copytree(ROOT / "inventories" / "sc-booth", tmp_path / side)
    policy = tmp_path / "head" / "group_vars" / "all" / "policy.yml"
    data = yaml.safe_load(policy.read_text())
    change(data)
    policy.write_text(yaml.safe_dump(data, sort_keys=False))

    def review(with_host, build):
        return review_intents(tmp_path / "base", tmp_path / "head", tmp_path / build, "HEAD", ask=BatfishAsk(with_host))

    live = review(host, "live")
    offline = review("127.0.0.1:1", "offline")  # a port nothing listens on: offline evaluation
    assert (live.method, offline.method) == (BATFISH, OFFLINE)
    assert live.disagreements == []
    assert changes(live) == changes(offline) != set()
    assert live.exit_code == offline.exit_code == exit_code
    assert len(_groups(live.permitted)) == len(_groups(offline.permitted))
    assert len(_groups(live.denied)) == len(_groups(offline.denied))
    assert "DISAGREEMENT" not in live.files["md"].read_text()


# --- end to end: the gate's flows, offline and Batfish side by side --------------------------

END_TO_END = {
    # a redundant outbound ACL removed: nothing newly permitted, a defence-in-depth row
    "sc-booth, TO_HOME removed": ("sc-booth", {"models": drop_acl("bgw1", "TO_HOME")}, 0, 0),
    "sc-booth-ds, TO_HOME removed": ("sc-booth-ds", {"models": drop_acl("bgw1", "TO_HOME")}, 0, 0),
    # the same layer kind that was the only one from outside: the secured network opens
    "sc-booth, SECURE_HOME_OUT removed": ("sc-booth", {"models": drop_acl("hgw1", "SECURE_HOME_OUT")}, 10, 3),
    "sc-booth, source widened": ("sc-booth", {"head": widen_source("noc-ssh-to-research", "zone:production")}, 119, 3),
    "sc-booth, rule removed": ("sc-booth", {"base": NO_RESEARCH_TO_THEATER_WEB}, 16, 3),
    "sc-booth, static around the uplink ACL": (
        "sc-booth", {"models": add_static("show1", "10.10.10.128/25", "198.51.100.2")}, 20, 3),
    "eos-core, rule removed": ("eos-core", {"head": remove_rule("research-not-to-users")}, 2, 3),
    "eos-core, source widened": ("eos-core", {"head": widen_source("admins-ssh-to-lab", "zone:production")}, 1, 3),
}


@pytest.mark.parametrize("case", list(END_TO_END))
def test_end_to_end_batfish_and_offline_agree_flow_for_flow(host, tmp_path, case):
    network, change, permitted, exit_code = END_TO_END[case]
    live = review_change(tmp_path, network, host=host, build="live", **change)
    offline = review_change(tmp_path, network, host="127.0.0.1:1", build="offline", **change)
    assert (live.method, offline.method) == (BATFISH, OFFLINE)
    assert live.exit_code == offline.exit_code == exit_code
    ipv4 = [c for c in live.flows_permitted if c.family == 4]
    assert len(ipv4) == permitted == len([c for c in offline.flows_permitted if c.family == 4])
    # every changed IPv4 flow traced by Batfish in both snapshots, with the same before and after
    assert {c.batfish for c in ipv4} <= {"agrees: deny -> permit"}, [c.batfish for c in ipv4][:3]
    assert [c for c in live.flow_changes if c.batfish.startswith("DISAGREES")] == []
    # and Batfish's own differentialReachability finds no end-to-end change the offline walk missed
    assert [d for d in live.disagreements if "differentialReachability" in d] == []
    for row in live.depth:
        if row.family == 4 and row.batfish != "-":
            assert row.batfish.startswith("agrees: denied in both"), row
    if permitted == 0:
        assert live.depth and all(d.lost for d in live.depth)
