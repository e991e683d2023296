"""A deploy refuses configs not built from the current intent: exact messages, nothing else read.

Each test builds a copy of lab-mini (``inv`` under a temp working directory, so messages name
``inv/...`` and ``build/...``) and then checks what a deploy would take.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boothnet.deploy.preflight import REPO, StaleConfigs, preflight, rebuild_command
from boothnet.errors import IntentInvalid
from boothnet.render.build import build
from boothnet.verify.stage import run_verify_stage

CONFIGS = Path("build/lab-mini/configs")
DEVICES = {"r1": CONFIGS / "r1", "r2": CONFIGS / "r2"}
REBUILD = "run `ansible-playbook -i inv playbooks/build.yml` first: nothing deployed"


@pytest.fixture
def built(inventory_copy):
    inv = inventory_copy()
    result = build(inv.path, Path("build"), run_tools=False)
    assert result.ok and result.intent
    return inv


def refusal(devices=DEVICES, lab_configs=None) -> str:
    with pytest.raises(StaleConfigs) as exc:
        preflight(devices, "lab-mini", lab_configs)
    return str(exc.value)


def test_configs_of_the_current_intent_pass(built):
    (check,) = preflight(DEVICES, "lab-mini")
    assert check.configs == CONFIGS.resolve() and check.problems == []
    summary = json.loads(Path("build/lab-mini/configs.summary.json").read_text())
    assert check.intent and summary["intent"]["digest"] == check.intent.digest
    assert summary["intent"]["directory"] == str(built.path.resolve())


def test_changed_intent_is_refused_naming_the_file(built):
    built.edit("group_vars/all/vlans.yml", lambda d: d["vlans"][1].update(mtu=1500))
    assert refusal() == (
        "build/lab-mini/configs were built from another version of inv (changed: group_vars/all/vlans.yml); " + REBUILD
    )


def test_intent_invalid_now_leaves_old_configs_that_are_refused(built):
    built.edit("group_vars/all/vlans.yml", lambda d: d["vlans"][1].update(id=5000))
    with pytest.raises(IntentInvalid):
        build(built.path, Path("build"), run_tools=False)
    assert (CONFIGS / "r2" / "frr.conf").is_file()  # the build wrote nothing: the old ones stay
    assert refusal().startswith("build/lab-mini/configs were built from another version of inv (changed: ")


def test_added_and_removed_files_and_a_long_list(built):
    (built.path / "host_vars" / "r2.yml").unlink()
    for n in range(7):
        (built.path / "host_vars" / f"x{n}.yml").write_text("---\n")
    assert refusal() == (
        "build/lab-mini/configs were built from another version of inv (changed: host_vars/r2.yml (removed), "
        "host_vars/x0.yml (new), host_vars/x1.yml (new), host_vars/x2.yml (new), host_vars/x3.yml (new) "
        "and 3 more); " + REBUILD
    )


def test_rebuilding_makes_the_configs_deployable_again(built):
    built.edit("group_vars/all/vlans.yml", lambda d: d["vlans"][1].update(mtu=1500))
    with pytest.raises(StaleConfigs):
        preflight(DEVICES, "lab-mini")
    build(built.path, Path("build"), run_tools=False)
    assert preflight(DEVICES, "lab-mini")[0].problems == []


def test_every_problem_in_one_message(built):
    built.edit("hosts.yml", lambda d: d)  # re-dumped: other bytes, same meaning
    devices = {**DEVICES, "r3": CONFIGS / "r3", "r4": CONFIGS / "r4"}
    assert refusal(devices) == (
        "build/lab-mini/configs were built from another version of inv (changed: hosts.yml); "
        "build/lab-mini/configs have no configs for r3, r4; " + REBUILD
    )


def test_no_configs_no_summary_no_stamp(built):
    assert refusal({"r1": Path("build/other/configs/r1")}) == (
        "no configs in build/other/configs; run `make build NET=lab-mini` first: nothing deployed"
    )
    summary = Path("build/lab-mini/configs.summary.json")
    data = json.loads(summary.read_text())
    summary.write_text(json.dumps({k: v for k, v in data.items() if k != "intent"}))
    assert refusal() == (
        "build/lab-mini/configs do not say which intent they were built from (an older build); "
        "run `make build NET=lab-mini` first: nothing deployed"
    )
    summary.unlink()
    assert refusal(lab_configs="day0") == (
        "build/lab-mini/configs have no build summary (configs.summary.json); "
        "run `make lab-up NET=lab-mini DAY0=1` first: nothing deployed"
    )


def test_intent_folder_gone(built):
    built.path.rename("moved")
    assert refusal() == (
        "build/lab-mini/configs were built from inv, which is gone; "
        "run `ansible-playbook -i inv playbooks/build.yml` first: nothing deployed"
    )


def test_configs_with_build_findings_are_refused(built):
    summary = Path("build/lab-mini/configs.summary.json")
    data = json.loads(summary.read_text())
    summary.write_text(json.dumps({**data, "findings": ["nft -c r1: FAIL: syntax error"]}))
    assert refusal() == (
        "build/lab-mini/configs failed the build's checks (1 finding(s), first: nft -c r1: FAIL: syntax error); "
        + REBUILD
    )


def test_verify_stage_builds_deployable_configs(inventory_copy, no_batfish):
    inv = inventory_copy()
    run_verify_stage(inv.path, Path("build"))
    assert preflight(DEVICES, "lab-mini")[0].problems == []


def test_rebuild_command_for_the_build_or_the_lab():
    ours = REPO / "inventories" / "sc-booth"
    assert rebuild_command(ours, "sc-booth", None) == "make build NET=sc-booth"
    assert rebuild_command(ours, "sc-booth", "full") == "make lab-up NET=sc-booth"
    assert rebuild_command(ours, "sc-booth", "day0") == "make lab-up NET=sc-booth DAY0=1"
    assert rebuild_command(None, "lab-dep", None) == "make build NET=lab-dep"
    elsewhere = Path("/srv/intents/booth")
    assert rebuild_command(elsewhere, "x", None) == "ansible-playbook -i /srv/intents/booth playbooks/build.yml"
    assert rebuild_command(elsewhere, "x", "day0") == (
        "ansible-playbook -i /srv/intents/booth playbooks/lab_up.yml -e boothnet_lab_configs=day0"
    )


def test_a_reference_intent_gets_the_make_command_and_repository_paths(tmp_path):
    build(REPO / "inventories" / "lab-mini", tmp_path, run_tools=False)
    summary = tmp_path / "lab-mini" / "configs.summary.json"
    data = json.loads(summary.read_text())  # as if built from an older vlans.yml (the repo's stays as it is)
    data["intent"]["files"]["group_vars/all/vlans.yml"] = "0" * 64
    data["intent"]["digest"] = "0" * 64
    summary.write_text(json.dumps(data))
    configs = tmp_path / "lab-mini" / "configs"
    with pytest.raises(StaleConfigs) as exc:
        preflight({"r1": configs / "r1", "r2": configs / "r2"}, "lab-mini")
    assert str(exc.value) == (
        f"{configs} were built from another version of inventories/lab-mini (changed: group_vars/all/vlans.yml); "
        "run `make build NET=lab-mini` first: nothing deployed"
    )
