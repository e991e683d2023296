"""The remediation preview without the switch: hier_config between a recorded running config (NAPALM's
captures of an IOS-XE CSR1000V and a vEOS) and boothnet's rendered candidates for sc-booth's core1
(IOS) and rsw1 (EOS). What it does not prove: that the switch would accept the commands in that
order (hier_config's drivers decide it; no switch was asked)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from boothnet.deploy.remediation import NoRemediation, newest_backup, remediation
from boothnet.layout import Layout
from boothnet.platforms import platforms
from boothnet.render.build import build
from tests.helpers import INVENTORIES, ROOT

RECORDED = ROOT / "tests" / "unit" / "deploy" / "recorded" / "napalm"
CASES = {"core1": ("cisco_ios", RECORDED / "ios" / "show_running-config.txt"),
         "rsw1": ("arista_eos", RECORDED / "eos" / "show_running_config.text")}


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("build")
    assert build(INVENTORIES / "sc-booth", root, run_tools=False).ok
    return root / "sc-booth" / "configs"


def test_ios_from_the_recorded_csr_to_core1_and_back(configs: Path) -> None:
    found = remediation("core1", platforms()["cisco_ios"], CASES["core1"][1], configs / "core1.cfg")
    lines = found.remediation.splitlines()
    assert "no hostname CSR1" in lines and "hostname core1" in lines and "vlan 110" in lines
    assert "interface TenGigabitEthernet1/1/1" in lines
    back = found.rollback.splitlines()
    assert "hostname CSR1" in back and "no hostname core1" in back and "no vlan 110" in back


def test_eos_from_the_recorded_veos_to_rsw1(configs: Path) -> None:
    found = remediation("rsw1", platforms()["arista_eos"], CASES["rsw1"][1], configs / "rsw1.cfg")
    lines = found.remediation.splitlines()
    assert "hostname rsw1" in lines and "vlan 110" in lines and "interface Ethernet49" in lines
    assert "no vlan 110" in found.rollback.splitlines()


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_a_switch_already_running_the_candidate_needs_nothing(configs: Path, device: str) -> None:
    candidate = configs / ("core1.cfg" if device == "core1" else "rsw1.cfg")
    found = remediation(device, platforms()[CASES[device][0]], candidate, candidate)
    assert (found.remediation, found.rollback) == ("", "")


def test_a_line_added_by_hand_is_the_whole_remediation(configs: Path, tmp_path: Path) -> None:
    running = tmp_path / "running.cfg"
    running.write_text((configs / "core1.cfg").read_text() + "username intruder privilege 15 secret 0 x\n")
    found = remediation("core1", platforms()["cisco_ios"], running, configs / "core1.cfg")
    assert found.remediation == "no username intruder privilege 15 secret 0 x"
    assert found.rollback == "username intruder privilege 15 secret 0 x"


def test_the_newest_backup_is_the_default_and_its_absence_is_named(tmp_path: Path) -> None:
    layout = Layout(tmp_path, "sc-booth")
    with pytest.raises(NoRemediation, match="core1: no backup under .*give a saved `show running-config`"):
        newest_backup(layout, "core1")
    for stamp in ("20261123T100000Z", "20261124T090000Z"):
        (layout.backups("core1") / stamp).mkdir(parents=True)
        (layout.backups("core1") / stamp / "running.cfg").write_text(f"hostname {stamp}\n")
    assert newest_backup(layout, "core1").parent.name == "20261124T090000Z"


def test_the_command_writes_remediation_and_rollback_per_device(configs: Path) -> None:
    build_dir = configs.parent.parent
    out = subprocess.run([str(ROOT / ".venv" / "bin" / "boothnet"), "remediation", "-n", "sc-booth", "--build-dir",
                          str(build_dir), "--device", "core1", "--running", str(CASES["core1"][1])], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "== core1 (cisco_ios)" in out.stdout and "no hostname CSR1" in out.stdout
    written = build_dir / "sc-booth" / "remediation"
    assert sorted(p.name for p in written.iterdir()) == ["core1.remediation.cfg", "core1.rollback.cfg"]
    bad = subprocess.run([str(ROOT / ".venv" / "bin" / "boothnet"), "remediation", "-n", "sc-booth", "--build-dir",
                          str(build_dir), "--device", "bgw1", "--running", str(CASES["core1"][1])], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 1
    assert "bgw1: platform frr_linux has no hier_config driver" in bad.stderr


def test_ios_remediation_touches_the_sections_the_switchs_own_diff_names(configs: Path) -> None:
    """hier_config's commands against the simulated IOS switch's `show archive config differences`
    (the diff NAPALM shows before a deploy), section by section. They agree but for one line:
    `version`, which the switch's diff lists as removed and hier_config knows IOS never removes.
    A `no ...` line the switch's diff removes is a command without the `no` in the remediation."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "unit" / "deploy" / "simulated"))
    import simulated_devices as sim

    running, candidate = CASES["core1"][1], configs / "core1.cfg"
    found = remediation("core1", platforms()["cisco_ios"], running, candidate)
    diff = sim.contextual_diff(running.read_text(), candidate.read_text()).splitlines()[1:]

    def section(line: str) -> str:
        return line.removeprefix("no ")

    by_switch = {section(line.lstrip("+-")) for line in diff if not line.startswith(" ")}
    by_hier_config = {section(line) for line in found.remediation.splitlines() if not line.startswith(" ")}
    assert by_switch - by_hier_config == {"version 15.5"}
    assert by_hier_config - by_switch == set()
