"""Hardware deploy of sc-booth's core1 (cisco_ios) and rsw1 (arista_eos) through NAPALM's
real ``ios`` and ``eos`` drivers, their transport replaced by simulated switches answering
with recorded device output (simulated/simulated_devices.py says what is recorded and what
the simulation renders). Each case runs boothnet.deploy.steps.deploy, the function the
deploy role's one module calls, and reads the outcome the summary table prints."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "simulated"))

import simulated_devices as sim

from boothnet.deploy import steps
from boothnet.deploy.secrets import mask
from boothnet.render.build import build
from tests.helpers import ROOT

PSK = "Sh0wFl00r-psk-for-tests"
# the management user's secret hashes (network.management): what the crew keeps in vault
SECRETS = {"BOOTHNET_VPN_PSK": PSK,
           "BOOTHNET_ADMIN_SECRET_IOS": "$9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM",
           "BOOTHNET_ADMIN_SECRET_EOS": "$6$rounds=5000$boothnet$Kq1"}


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("build")
    result = build(ROOT / "inventories" / "sc-booth", root, run_tools=False)
    assert result.ok, result.findings
    return root / "sc-booth" / "configs"


@pytest.fixture(autouse=True)
def fresh_devices(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """New switches per test; the deploy's waits move the simulated clock, not the real one."""
    sim.DEVICES.clear()

    class Clock:
        now = 0.0

        def monotonic(self) -> float:
            return self.now

        def sleep(self, seconds: float) -> None:
            self.now += seconds
            sim.advance(seconds)

    monkeypatch.setattr(steps, "time", Clock())
    yield
    sim.DEVICES.clear()


PLATFORMS = {"core1": ("cisco_ios", "ios_simulated"), "rsw1": ("arista_eos", "eos_simulated")}


def filled(text: str) -> str:
    """A rendered config with its placeholders filled, as the deploy commits it."""
    for name, value in SECRETS.items():
        text = text.replace(f"${{{name}}}", value)
    return text


def target(device: str) -> steps.Target:
    platform, driver = PLATFORMS[device]
    return steps.Target(hostname=f"{device}.booth", username="boothnet", password="pw",
                        platform=platform, driver=driver)


def switch(device: str, configs: Path) -> sim.Device:
    """The simulated switch: its ports and OSPF neighbours are the floor's (simulated/floor.yml)."""
    return sim.device(f"{device}.booth", "ios" if device == "core1" else "eos")


def deploy(device: str, configs: Path, tmp_path: Path, check: bool = False, health_timeout: float = 0
           ) -> tuple[steps.DeployRun, str]:
    job = steps.Job(device, target(device), configs / device, tmp_path / "backups" / device,
                    steps.Secrets(given=SECRETS), revert_in=120, health_timeout=health_timeout)
    run = steps.deploy(job, check=check)
    return run, run.result(device, check, 0.0).outcome


def deploy_edited(device: str, configs: Path, tmp_path: Path, edit: Callable[[str], str]
                  ) -> tuple[steps.DeployRun, str]:
    """A deploy of the device's rendered config with `edit` applied (the file restored after)."""
    cfg = configs / f"{device}.cfg"
    original = cfg.read_text()
    try:
        cfg.write_text(edit(original))
        return deploy(device, configs, tmp_path)
    finally:
        cfg.write_text(original)


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_clean_deploy_commits_with_a_timer_checks_health_and_confirms(device, configs, tmp_path):
    dev = switch(device, configs)
    before = dev.running
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "new-confirmed", (run.error, run.health)
    # the switch keeps the configuration, printed its own way (its header and order, its defaults)
    printed, given = sim.flat(dev.running), sim.flat(filled((configs / f"{device}.cfg").read_text()))
    assert printed != given and set(given) <= set(printed)
    assert dev.pending is None and not dev.reverted_by_timer
    # the backup on the controller is the running config the device had before
    backup = Path(run.commit["backup"])
    saved = sim.body((backup / "running.cfg").read_text())
    # NAPALM's get_config drops IOS's "Building configuration..." / "Current configuration" header
    before_masked = sim.body(mask(before, []))  # the user's secret hash is masked in every record
    assert set(saved) <= set(before_masked) and len(saved) >= len(before_masked) - 2
    # the commit went through the driver's commit-confirm command, then its confirm
    if device == "core1":
        assert any(c.startswith("configure replace flash:/candidate_config.txt force revert trigger error timer 2")
                   for c in dev.log)
        assert "configure confirm" in dev.log
    else:
        assert any(c.endswith("commit timer 00:02:00") for c in dev.log)
    assert run.health["healthy"] and run.health["interfaces"] == [] and run.health["adjacencies"] == []


@pytest.mark.parametrize("release", ["", "4.32.1F"])
def test_eos_commit_confirm_reads_the_pending_session_in_both_release_formats(release, configs, tmp_path):
    """NAPALM finds the session to confirm in `show configuration sessions detail`: before EOS 4.32
    (the recorded 4.30) as the session's own commitBy, from 4.32 as commitTimerSessionName."""
    dev = switch("rsw1", configs)
    dev.eos_version = release
    run, outcome = deploy("rsw1", configs, tmp_path)
    assert outcome == "new-confirmed", (run.error, run.health)
    assert dev.pending is None and any(c.endswith(" commit") and c.startswith("configure session") for c in dev.log)


def test_check_mode_shows_the_diff_and_changes_nothing(configs, tmp_path):
    switch("core1", configs)
    run, outcome = deploy("core1", configs, tmp_path, check=True)
    assert outcome == "check-only"
    assert "+hostname core1" in run.commit["diff"] and "+archive" in run.commit["diff"]
    assert "-hostname CSR1" in run.commit["diff"]  # the recorded device's own name goes
    assert sim.DEVICES["core1.booth"].pending is None
    assert not any(c.startswith("configure replace") for c in sim.DEVICES["core1.booth"].log)


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_redeploy_of_the_same_intent_changes_nothing(device, configs, tmp_path):
    """The switch prints what it was given its own way (IOS: its order and header, comments gone;
    EOS: its header and defaults): the post-commit check and the re-deploy ask the switch for its
    diff, which compares configurations, so neither sees a change that is only the printing."""
    dev = switch(device, configs)
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "new-confirmed" and run.health["device"] == [], run.health
    text = (configs / f"{device}.cfg").read_text()
    assert dev.running.splitlines()[0] != text.splitlines()[0]
    if device == "core1":
        assert dev.running.startswith("Building configuration...") and "generated by boothnet" not in dev.running
        assert dev.running.index("\nvlan 10\n") < dev.running.index("\ninterface GigabitEthernet0/0\n")
    else:
        assert "transceiver qsfp default-mode 4x10G" in dev.running and "transceiver" not in text
    commits_before = len(sim.DEVICES[f"{device}.booth"].log)
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "unchanged" and run.commit["changed"] is False and run.commit["diff"] == ""
    new_commands = sim.DEVICES[f"{device}.booth"].log[commits_before:]
    assert not any("configure replace" in c or "commit timer" in c for c in new_commands)


@pytest.mark.parametrize("device,line", [("core1", "router ospf 1"), ("rsw1", "switchport mode trunk")])
def test_a_config_the_device_rejects_changes_nothing(device, line, configs, tmp_path):
    dev = switch(device, configs)
    dev.rejects = line
    before = dev.running
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "failed-before-apply", run
    assert "rejected before apply" in run.error
    assert dev.running == before and dev.pending is None
    if device == "core1":  # `revert trigger error`: IOS restored the original config itself
        assert "original configuration has been successfully restored" in run.error
    else:  # the session was aborted before any commit
        assert "invalid command" in run.error and not any("commit" in c for c in dev.log)


def test_a_failed_health_check_is_never_confirmed_and_the_device_reverts(configs, tmp_path):
    device = "core1"  # rsw1 runs no OSPF: its failed health check is the down link below
    dev = switch(device, configs)
    dev.ospf_state = "INIT"
    before = dev.running
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "reverted", run
    assert "expected a Full neighbor, found Init" in run.health["reason"]
    assert dev.reverted_by_timer and dev.running == before
    assert "configure confirm" not in dev.log


@pytest.mark.parametrize("health_timeout,outcome", [(30, "new-confirmed"), (0, "reverted")])
def test_a_neighbour_full_only_on_the_second_poll_passes_when_the_check_waits(health_timeout, outcome, configs,
                                                                              tmp_path):
    """The health check polls until its timeout on the deploy's clock (the simulated one here):
    an adjacency still in INIT at the first poll and FULL at the second is healthy when the check
    may wait a poll, and fails when it may not."""
    dev = switch("core1", configs)
    dev.ospf_polls = ["INIT", "FULL"]
    clock = steps.time
    run, found = deploy("core1", configs, tmp_path, health_timeout=health_timeout)
    assert found == outcome, run.health
    if outcome == "new-confirmed":
        assert dev.ospf_polls == [] and clock.now >= 1  # two polls, a simulated second apart
    else:
        assert "found Init" in run.health["reason"]


def edited(configs: Path, tmp_path: Path, device: str, old: str, new: str) -> Path:
    """A copy of the build's configs (and the model beside them) with *old* replaced in *device*'s."""
    copy = tmp_path / "edited" / "configs"
    shutil.copytree(configs, copy)
    for beside in configs.parent.glob(f"{configs.name}.*.json"):
        shutil.copy(beside, copy.parent / beside.name)
    cfg = copy / f"{device}.cfg"
    assert old in cfg.read_text()
    cfg.write_text(cfg.read_text().replace(old, new))
    return copy


@pytest.mark.parametrize("device,port,wrong,said", [
    # IOS takes any candidate file onto flash: boothnet compares it with the switch's interface list
    ("core1", "TenGigabitEthernet1/1/1", "TenGigabitEthernet1/1/9",
     "core1 has no port TenGigabitEthernet1/1/9: the candidate configures it"),
    # EOS refuses the line while the driver loads its configure session
    ("rsw1", "Ethernet49", "Ethernet60", "'interface Ethernet60' failed: invalid command")])
def test_a_port_the_switch_does_not_have_is_refused_before_anything_is_applied(device, port, wrong, said, configs,
                                                                               tmp_path):
    """The simulated switch lists its hardware's ports (floor.yml), not the candidate's: a port name
    wrong in the intent is named before the commit, and the switch keeps its config."""
    candidates = edited(configs, tmp_path, device, f"interface {port}\n", f"interface {wrong}\n")
    dev = switch(device, configs)
    before = dev.running
    run, outcome = deploy(device, candidates, tmp_path)
    assert outcome == "failed-before-apply", run
    assert said in run.error
    assert dev.running == before and dev.pending is None
    assert not any(c.startswith("configure replace") or c.endswith((" commit", "commit timer 00:02:00"))
                   for c in dev.log)


def test_ospf_neighbours_come_from_the_floor_and_the_running_config(configs, tmp_path):
    """core1's neighbours on VLAN 60 are the floor's routers, reported only while the config it runs
    makes Vlan60 an active OSPF interface: a candidate that leaves it passive fails the health check
    (the intent still expects the neighbour), and so does a floor where no router answers."""
    passive = edited(configs, tmp_path, "core1", " no passive-interface Vlan60\n", "")
    dev = switch("core1", configs)
    before = dev.running
    run, outcome = deploy("core1", passive, tmp_path)
    assert outcome == "reverted" and "Vlan60" in run.health["reason"], run.health
    assert dev.running == before
    sim.DEVICES.clear()
    dev = switch("core1", configs)
    dev.ospf_peers = []
    run, outcome = deploy("core1", configs, tmp_path)
    assert outcome == "reverted" and "Vlan60" in run.health["reason"], run.health
    sim.DEVICES.clear()
    run, outcome = deploy("core1", configs, tmp_path)
    assert outcome == "new-confirmed" and [n for n, _ in sim.device("core1.booth", "ios").ospf_interfaces()] == [
        "Vlan60", "Vlan60"]


VLAN60 = " ip address 10.10.60.1 255.255.255.248\n mtu 9000\n"


@pytest.mark.parametrize(("old", "new"), [
    ("ip routing\n!\n", ""),  # routing off: a Catalyst switch runs no OSPF
    (VLAN60 + " ip ospf hello-interval 1\n ip ospf dead-interval 4\n", VLAN60),  # IOS's 10/40 against 1/4
    (VLAN60, " ip address 10.10.60.1 255.255.255.248\n"),  # MTU 1500 against the routers' 9000
], ids=["no ip routing", "no timers", "no mtu"])
def test_a_config_without_what_the_adjacency_needs_is_reverted_naming_it(configs, tmp_path, old, new):
    """The simulated switch reads its running config as the reader does: without `ip routing`, with
    Vlan60's timers at the IOS defaults or its MTU at 1500, the routers on VLAN 60 are no neighbours."""
    broken = edited(configs, tmp_path, "core1", old, new)
    dev = switch("core1", configs)
    before = dev.running
    run, outcome = deploy("core1", broken, tmp_path)
    assert outcome == "reverted" and "Vlan60" in run.health["reason"], run.health
    assert dev.running == before


def test_a_down_link_fails_the_health_check(configs, tmp_path):
    dev = switch("rsw1", configs)
    dev.down = {"Ethernet49"}
    before = dev.running
    run, outcome = deploy("rsw1", configs, tmp_path)
    assert outcome == "reverted" and "Ethernet49: down" in run.health["reason"]
    assert dev.reverted_by_timer and dev.running == before
    assert not any(c.startswith("configure session") and c.endswith(" commit") for c in dev.log)


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_the_session_lost_after_commit_ends_in_a_revert(device, configs, tmp_path):
    dev = switch(device, configs)
    dev.drop_session_after_commit = True
    before = dev.running
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "reverted", run
    assert "session lost before confirming" in run.error or "commit interrupted" in run.error
    assert dev.reverted_by_timer and dev.running == before


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_management_unreachable_after_the_commit_is_never_confirmed_and_reverts(device, configs, tmp_path):
    """A new config that cuts the management path: the health check cannot open its session, so
    nothing is confirmed, and the switch's own timer restores the old config (and management)."""
    dev = switch(device, configs)
    dev.unreachable_while_pending = True
    before = dev.running
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "reverted", (run.error, run.health, run.revert)
    assert "Cannot connect" in run.health["reason"], run.health
    assert dev.reverted_by_timer and dev.running == before and not run.confirmed


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_a_running_config_that_drifts_from_the_candidate_after_the_commit_reverts(device, configs, tmp_path):
    """Something else changes the switch between the commit and the health check: the running
    config no longer is the candidate, so the commit is not confirmed."""
    dev = switch(device, configs)
    dev.drift_after_commit = "ip domain lookup source-interface Loopback9"
    before = dev.running
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "reverted", (run.error, run.health)
    assert "running differs from the candidate after the commit" in run.health["reason"], run.health
    assert "ip domain lookup source-interface Loopback9" in run.health["reason"]
    assert dev.reverted_by_timer and dev.running == before


def test_an_unreachable_device_is_not_touched(configs, tmp_path):
    dev = switch("core1", configs)
    dev.unreachable = True
    run, outcome = deploy("core1", configs, tmp_path)
    assert outcome == "failed-before-apply" and "unreachable before apply" in run.error
    assert dev.log == []


def test_ios_takes_a_revert_timer_only_in_whole_minutes(configs, tmp_path):
    switch("core1", configs)
    run = steps.deploy(steps.Job("core1", target("core1"), configs / "core1", secrets=steps.Secrets(given=SECRETS),
                                 revert_in=90), check=False)
    assert run.result("core1", False, 0).outcome == "failed-before-apply"
    assert run.error == ("refused before any change: cisco_ios takes a revert timer of 60-7200 s "
                         "in steps of 60 s (NAPALM ios), not 90")
    assert sim.DEVICES["core1.booth"].log == []


def test_ios_without_archive_refuses_the_revert_timer_before_any_change(configs, tmp_path):
    dev = switch("core1", configs)
    dev.archive = False
    before = dev.running
    run, outcome = deploy("core1", configs, tmp_path)
    assert outcome == "failed-before-apply", run
    assert "archive" in run.error and dev.running == before


def hw_playbook(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    """`ansible-playbook -i inventories/sc-booth playbooks/deploy.yml --check --diff` with core1 and
    rsw1 on simulated switches."""
    build_dir = tmp_path / "build"
    assert build(ROOT / "inventories" / "sc-booth", build_dir, run_tools=False).ok
    drivers = '{"boothnet_napalm_drivers": {"cisco_ios": "ios_simulated", "arista_eos": "eos_simulated"}}'
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent / "simulated"), "ANSIBLE_NOCOLOR": "1", **SECRETS}
    run = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "-i", "inventories/sc-booth",
         "playbooks/deploy.yml", "--check", "--diff", "--limit", "core1,rsw1,localhost",
         "-e", f"boothnet_build_dir={build_dir}", "-e", drivers, "-e", "ansible_user=boothnet", *extra],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return run, build_dir


def test_playbook_check_diff_on_the_intent_inventory_prints_the_switches_diffs(tmp_path):
    """The diffs are printed, nothing is committed. The simulated switches have no cables (their
    LLDP tables are empty), so the pre-deploy cabling check is turned off here; the next test
    keeps it."""
    run, build_dir = hw_playbook(tmp_path, "-e", "boothnet_cabling_check=false")
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    assert "+hostname core1" in out and "+archive" in out  # IOS contextual diff
    assert "@@ -1," in out and "+hostname rsw1" in out  # EOS session diff (unified)
    summary = json.loads((build_dir / "sc-booth" / "deploy-check" / "summary.json").read_text())
    assert {d: r["outcome"] for d, r in summary["devices"].items()} == {"core1": "check-only", "rsw1": "check-only"}
    # a simulated run says so, device by device, in the record and the printed table
    assert {d: (r["driver"], r["transport"], r["simulated"]) for d, r in summary["devices"].items()} == {
        "core1": ("ios_simulated", "ssh", True), "rsw1": ("eos_simulated", "https", True)}
    assert "ios_simulated over ssh, SIMULATED" in out


def test_switches_whose_ports_hear_no_neighbour_stop_the_deploy_before_anything_is_done(tmp_path):
    run, build_dir = hw_playbook(tmp_path)
    out = run.stdout + run.stderr
    assert run.returncode != 0
    assert "C05: core1 Te1/1/1 hears no LLDP neighbour; the intent says rsw1 Et49" in out, out[-3000:]
    assert "Deploy stopped before any device was changed" in out
    summary = json.loads((build_dir / "sc-booth" / "deploy-check" / "summary.json").read_text())
    assert summary["devices"] == {}


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_a_commit_already_pending_on_the_switch_is_refused_before_anything_is_applied(device, configs, tmp_path):
    """Another session's commit-confirm waits on the switch: NAPALM ios would raise
    CommandErrorException, eos CommitError, and a deploy that took either for "maybe applied"
    would wait for the revert of a commit it never made."""
    dev = switch(device, configs)
    theirs = dev.running + "! someone else's change\n"
    dev.commit(theirs, 600, session="someone-else")
    if dev.platform == "eos":
        dev.sessions["someone-else"] = {"state": "pendingCommitTimer", "config": theirs}
    run, outcome = deploy(device, configs, tmp_path)
    assert outcome == "failed-before-apply"
    assert "a commit is already pending on" in run.error and "nothing applied" in run.error, run.error
    assert run.revert is None and dev.running == theirs and dev.pending["session"] == "someone-else"


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_drift_on_a_switch_names_a_line_added_by_hand(device, configs, tmp_path):
    """The validate stage's drift check (boothnet.validate.checks.drift.check_drift) on IOS and EOS: the
    same compare as a deploy's, read through the real NAPALM drivers."""
    from boothnet.validate.checks.drift import check_drift
    from boothnet.validate.drift import DriftTarget

    switch(device, configs)
    deploy(device, configs, tmp_path)
    item = DriftTarget(device, target(device), configs / device, steps.Secrets(given=SECRETS))
    assert check_drift(item).verdict == "PASS"
    dev = sim.DEVICES[f"{device}.booth"]
    dev.running += "\nsnmp-server community public RO\n"
    row = check_drift(item)
    assert row.verdict == "FAIL" and "snmp-server community public RO" in (row.cause or ""), row.cause


@pytest.mark.parametrize("device", ["core1", "rsw1"])
def test_a_candidate_without_the_deploys_own_user_is_refused_before_any_change(device, configs, tmp_path):
    """A full replace removes what the candidate lacks: without the management user the switch
    would shut the deploy out. The deploy names the user and touches nothing."""
    dev = switch(device, configs)
    before = dev.running
    run, outcome = deploy_edited(device, configs, tmp_path, lambda text: "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith("username boothnet ")))
    assert outcome != "new-confirmed"
    assert run.error.startswith(f"refused before any change: the candidate would lock this deploy out of "
                                f"{device}.booth: it has no a privilege-15 user 'boothnet'"), run.error
    assert dev.running == before and not dev.pending


def test_an_ios_candidate_without_aaa_exec_authorization_is_refused_naming_the_scp_server(configs, tmp_path):
    """SCP needs AAA exec authorization (Cisco's Secure Copy guide): without it NAPALM ios could not
    copy the next candidate, nor the health check this one; refused before any change."""
    dev = switch("core1", configs)
    before = dev.running
    run, outcome = deploy_edited("core1", configs, tmp_path,
                                 lambda text: text.replace("aaa authorization exec default local\n", ""))
    assert outcome != "new-confirmed"
    assert run.error.startswith("refused before any change: the candidate would lock this deploy out of core1.booth: "
                                "it has no the SCP server (ip scp server enable with aaa authorization exec default "
                                "local)"), run.error
    assert dev.running == before and not dev.pending


def test_a_switch_that_loses_the_login_reverts_and_says_so(configs, tmp_path, monkeypatch):
    """Without the refusal (planted: the check switched off), the simulated switch commits the
    candidate without the user, the health session cannot log in, nobody confirms and the
    switch reverts by its own timer: the simulated switches lose logins as a real one does."""
    dev = switch("core1", configs)
    before = sim.body(dev.running)
    monkeypatch.setattr(steps, "access_lost", lambda *_: None)
    run, outcome = deploy_edited("core1", configs, tmp_path,
                                 lambda text: text.replace("username boothnet ", "username someone-else "))
    assert outcome == "reverted", (outcome, run.error, run.health)
    assert "Authentication failed for boothnet" in str(run.health), run.health
    assert sim.body(dev.running) == before


def test_a_replace_carries_what_the_catalyst_keeps_of_its_own(configs, tmp_path):
    """core1 runs a recorded C9300's own sections (licence, stack member, certificate, its
    control-plane policy): the deploy carries them into the candidate from the running config, so
    the replace keeps them and the switch confirms."""
    dev = switch("core1", configs)
    run, outcome = deploy("core1", configs, tmp_path)
    assert outcome == "new-confirmed", (run.error, run.health)
    assert {"control-plane", "license boot level network-advantage addon dna-advantage",
            "switch 1 provision c9300-24u", "redundancy"} <= set(run.commit["carried"])
    assert sim.SYSTEM_CPP in dev.running and "crypto pki trustpoint TP-self-signed-4016338086" in dev.running
    assert "username boothnet privilege 15" in dev.running  # the candidate's own sections stay its own


def test_a_replace_that_drops_the_system_cpp_policy_is_refused_and_the_switch_keeps_its_config(
        configs, tmp_path, monkeypatch):
    """Planted: the carrying switched off. The Catalyst may not delete its system-cpp-policy
    (9300 security guide, CoPP restrictions): the replace is refused, `revert trigger error`
    restores the config, and the deploy says what the switch refused."""
    monkeypatch.setattr(steps, "carry_switch_owned", lambda cand, _running, _owned: (cand, []))
    dev = switch("core1", configs)
    before = dev.running
    run, outcome = deploy("core1", configs, tmp_path)
    assert outcome != "new-confirmed"
    assert "no service-policy input system-cpp-policy" in run.error, run.error
    assert dev.running == before and not dev.pending
