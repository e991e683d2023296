"""One Run: the intent loaded once and each context derived once, whichever stages ask."""

from __future__ import annotations

from collections import Counter

import pytest

from boothnet.errors import IntentInvalid
from boothnet.lab.plan import lab_models, plan_lab
from boothnet.render.build import build
from boothnet.run import Run
from boothnet.verify.batfish.from_intent import batfish_view
from boothnet.verify.stage import run_verify_stage
from tests.helpers import INVENTORIES


@pytest.fixture(autouse=True)
def _offline(no_batfish):
    """The stages' offline part."""


def test_build_lab_verify_of_one_run_load_and_derive_once(tmp_path, traced):
    run = Run(INVENTORIES / "sc-booth", tmp_path)
    build(run, tmp_path, run_tools=False)
    plan_lab(run, "dot1q", tmp_path)
    run_verify_stage(run, tmp_path)
    lab_models(run, "dot1q")  # what the validate stage's VPN checks ask for
    batfish_view(run)  # what the validate stage's Batfish flows ask for

    counts = Counter(e.split(":")[0] if e.startswith("derive") else e.split(" of ")[0].split(" from ")[0]
                     for e in traced())
    assert counts == {
        f"load intent {INVENTORIES / 'sc-booth'}": 1,
        "derive hardware": 1,
        "derive lab dot1q": 1,
        "derive batfish": 1,
        "render Batfish view": 1,
    }
    assert run.layout.configs().is_dir() and run.layout.configs("lab/configs").is_dir()


def test_another_vlan_mode_is_another_context(tmp_path, traced):
    run = Run(INVENTORIES / "lab-mini", tmp_path)
    assert lab_models(run, "dot1q") is lab_models(run, "dot1q")
    assert lab_models(run, "segment") is not lab_models(run, "dot1q")
    assert [e.split(":")[0] for e in traced() if e.startswith("derive")] == ["derive lab dot1q", "derive lab segment"]


def test_an_invalid_intent_raises_every_time_it_is_asked_for(inventory_copy, tmp_path):
    inv = inventory_copy("lab-mini")
    inv.edit("group_vars/all/network.yml", lambda data: data.update(name="Not A Name!"))
    run = Run(inv.path, tmp_path)
    for _ in range(2):  # a failed load is not cached as a success
        with pytest.raises(IntentInvalid):
            run.net  # noqa: B018
