"""One run loads its Batfish view once: validate asks its isolation flows of the snapshot verify
loaded, on the same service, and loads its own only when that service is another."""

from __future__ import annotations

import pytest

from boothnet.run import Run
from boothnet.validate.checks.isolation import batfish_answers
from boothnet.validate.plan import isolation_flows
from boothnet.verify.batfish.snapshot import snapshot_name
from boothnet.verify.stage import run_verify_stage
from tests.helpers import INVENTORIES, quiet

pytestmark = pytest.mark.batfish


def test_validate_asks_the_snapshot_verify_loaded(host, tmp_path, traced):
    run = Run(INVENTORIES / "lab-mini", tmp_path)
    assert str(run_verify_stage(run, tmp_path, host=host).status) == "PASS"
    verify_snapshot = run.batfish_snapshot
    flows = [f for f in isolation_flows(run.net) if f.ask_batfish][:3]
    answers, stage = batfish_answers(run, flows, host, quiet)
    assert stage.status == "PASS" and len(answers) == 3 and None not in answers
    assert run.batfish_snapshot is verify_snapshot
    assert [e for e in traced() if e.startswith(("load Batfish snapshot", "render Batfish view"))] == [
        "render Batfish view of lab-mini",
        f"load Batfish snapshot '{snapshot_name('verify', tmp_path / 'lab-mini' / 'verify')}' from "
        f"{tmp_path}/lab-mini/verify/snapshot"]


def test_another_service_gets_the_view_loaded_again(host, tmp_path, traced):
    run = Run(INVENTORIES / "lab-mini", tmp_path)
    run_verify_stage(run, tmp_path, host=host)
    run.batfish_snapshot = type(run.batfish_snapshot)("elsewhere:9996", None, "verify")  # loaded on another service
    answers, stage = batfish_answers(run, isolation_flows(run.net)[:3], host, quiet)
    validate_snapshot = snapshot_name("validate", tmp_path / "lab-mini" / "validate" / "snapshot")
    assert stage.status == "PASS" and run.batfish_snapshot.name == validate_snapshot
    assert [e.split(" from ")[0] for e in traced() if e.startswith("load Batfish snapshot")] == [
        f"load Batfish snapshot '{snapshot_name('verify', tmp_path / 'lab-mini' / 'verify')}'",
        f"load Batfish snapshot '{validate_snapshot}'"]
