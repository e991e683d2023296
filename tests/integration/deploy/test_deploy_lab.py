"""Deploy on the real netns lab (day 0, lab-mini as its own network "lab-dep"): the safe
deploy of issue 4 end to end, and each of its faults for real.

The tests share one lab and run in file order: day 0 -> check -> deploy -> re-deploy ->
faults, each fault starting from (and proving it comes back to) the deployed configs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="deploy lab tests need root (namespaces, FRR, sshd)"),
]

import napalm  # noqa: E402
from napalm.base.exceptions import ReplaceConfigException  # noqa: E402

from boothnet.deploy.parts import load_parts  # noqa: E402
from boothnet.errors import IntentInvalid  # noqa: E402
from boothnet.lab import services  # noqa: E402
from boothnet.lab.plan import plan_lab  # noqa: E402
from boothnet.lab.runner import lab_up, read_state  # noqa: E402
from boothnet.lab.scratch import copy_inventory  # noqa: E402
from boothnet.lab.spec import LabSpec  # noqa: E402
from tests.helpers import ROOT, quiet, running_lab  # noqa: E402

NETWORK = "lab-dep"  # lab-mini under its own name and mgmt subnet: never clashes with lab-mini
MGMT_SUBNET = "198.18.2.0/24"
ROUTERS = ("r1", "r2")


@dataclass
class Lab:
    spec: LabSpec
    build: Path
    state_dir: Path
    intent: Path  # the private copy of the intent the lab configs are built from

    @property
    def inventory(self) -> Path:
        return self.state_dir / "inventory.yml"

    def hostvars(self, node: str) -> dict[str, Any]:
        inv = yaml.safe_load(self.inventory.read_text())
        return dict(inv["all"]["children"]["routers"]["hosts"][node])

    def configs(self, node: str) -> Path:
        return Path(self.hostvars(node)["boothnet_config_dir"])

    def ns(self, node: str) -> str:
        return str(self.hostvars(node)["boothnet_netns"])

    def device_state(self, node: str) -> Path:
        return Path(self.hostvars(node)["boothnet_deploy_state_dir"])

    def run(self, node: str, *cmd: str) -> str:
        return services.run(services.in_ns(self.ns(node), *cmd), f"{' '.join(cmd)} on {node}")

    def running(self, node: str) -> tuple[str, str, str]:
        ps = self.hostvars(node)["boothnet_frr_pathspace"]
        return (self.run(node, "ip", "-br", "addr"), self.run(node, "nft", "-s", "list", "ruleset"),
                self.run(node, "vtysh", "-N", ps, "-c", "show running-config"))

    def driver(self, node: str) -> Any:
        hv = self.hostvars(node)
        d = napalm.get_network_driver("frr_linux")(
            hv["ansible_host"], "root", "", optional_args={
                "key_file": hv["ansible_ssh_private_key_file"],
                "known_hosts": str(self.state_dir / "known_hosts"),
                "pathspace": hv["boothnet_frr_pathspace"],
                "state_dir": hv["boothnet_deploy_state_dir"],
            })
        d.open()
        return d

    def converge(self, node: str, parts: dict[str, str] | None = None) -> dict[str, str]:
        """Put *node* on *parts* (default: its lab configs), confirmed; return them."""
        cand = parts or load_parts(self.configs(node))
        d = self.driver(node)
        try:
            d.load_replace_candidate(config=cand)
            if d.compare_config():
                d.commit_config(revert_in=60)
                d.confirm_commit()
            assert d.compare_config() == ""
        finally:
            d.close()
        return cand

    def playbook(self, *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ROOT / ".venv/bin/ansible-playbook"), "-i", str(self.inventory),
             str(ROOT / "playbooks/deploy.yml"), "-e", f"boothnet_build_dir={self.build}", *extra],
            cwd=ROOT, capture_output=True, text=True, timeout=600)

    def summary(self) -> dict[str, Any]:
        return dict(json.loads((self.build / NETWORK / "deploy" / "summary.json").read_text()))

    def ospf_full(self, node: str, timeout: float = 30) -> bool:
        ps = self.hostvars(node)["boothnet_frr_pathspace"]
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if "Full" in self.run(node, "vtysh", "-N", ps, "-c", "show ip ospf neighbor"):
                return True
            time.sleep(0.5)
        return False


def changed_total(out: str) -> int:
    return sum(int(n) for n in re.findall(r"changed=(\d+)", out))


def tail(res: subprocess.CompletedProcess[str]) -> str:
    return (res.stdout + res.stderr)[-4000:]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    work = tmp_path_factory.mktemp("lab-dep")
    inventory = copy_inventory(ROOT / "inventories/lab-mini", work / "inventory", NETWORK, MGMT_SUBNET)
    build = work / "build"
    with running_lab(inventory, build, configs="day0") as (spec, state_dir):
        yield Lab(spec, build, state_dir, inventory)
    assert not (state_dir / "nodes").exists()  # device-side deploy state went with it


def test_day0_lab_is_unconfigured_and_up_twice_is_a_noop(lab: Lab) -> None:
    state = read_state(lab.state_dir)
    assert state and state.configs == "day0"
    assert yaml.safe_load(lab.inventory.read_text())["all"]["vars"]["boothnet_lab_configs"] == "day0"
    addrs, ruleset, frr = lab.running("r1")
    assert "10.0." not in addrs and "198.18.2.11/24" in addrs  # mgmt only
    assert ruleset.strip() == ""
    assert "router ospf" not in frr
    assert lab_up(lab.spec, lab.state_dir, quiet, configs="day0").changed is False


def test_configs_of_another_intent_version_are_refused_before_any_device(lab: Lab) -> None:
    """The audit case: the intent changed (here: invalid, so a rebuild writes nothing) and the
    lab configs left by the earlier build no longer match it. Deploy, also --check, refuses
    them in its first play, with one message; no device is touched, no record is written."""
    vlans = lab.intent / "group_vars" / "all" / "vlans.yml"
    original = vlans.read_bytes()
    before = {n: lab.running(n) for n in ROUTERS}
    try:
        vlans.write_bytes(original.replace(b"id: 20,", b"id: 5000,"))
        with pytest.raises(IntentInvalid, match="5000"):
            plan_lab(lab.intent, lab.spec.vlan_mode, lab.build)
        configs, intent = (lab.build / NETWORK / "lab" / "configs").resolve(), lab.intent.resolve()
        expected = (
            f"{configs} were built from another version of {intent} (changed: group_vars/all/vlans.yml); "
            f"run `ansible-playbook -i {intent} playbooks/lab_up.yml -e boothnet_lab_configs=day0` first: "
            "nothing deployed"
        )
        for extra in ((), ("--check", "--diff")):
            res = lab.playbook(*extra)
            assert res.returncode != 0, tail(res)
            assert expected in " ".join((res.stdout + res.stderr).split()), tail(res)
            assert "PLAY [Deploy devices]" not in res.stdout
    finally:
        vlans.write_bytes(original)
    assert {n: lab.running(n) for n in ROUTERS} == before
    for left in ("backups", "deploy", "deploy-check"):
        assert not (lab.build / NETWORK / left).exists(), left


def test_check_diff_shows_the_diff_and_changes_nothing(lab: Lab) -> None:
    before = {n: lab.running(n) for n in ROUTERS}
    res = lab.playbook("--check", "--diff")
    assert res.returncode == 0, tail(res)
    assert "+addr add 10.0.0.1/30 dev eth3" in res.stdout
    assert "+router ospf" in res.stdout and "+table inet boothnet {" in res.stdout
    assert {n: lab.running(n) for n in ROUTERS} == before
    assert not (lab.build / NETWORK / "backups").exists()
    outcomes = {d: r["outcome"] for d, r in
                json.loads((lab.build / NETWORK / "deploy-check/summary.json").read_text())["devices"].items()}
    assert outcomes == {"r1": "check-only", "r2": "check-only"}


def test_deploy_from_day0_brings_ospf_up_with_configs_in_force(lab: Lab) -> None:
    t0 = time.monotonic()
    res = lab.playbook()
    took = time.monotonic() - t0
    assert res.returncode == 0, tail(res)
    summary = lab.summary()
    assert {d: r["outcome"] for d, r in summary["devices"].items()} == {
        "r1": "new-confirmed", "r2": "new-confirmed"}, summary
    assert lab.ospf_full("r1") and lab.ospf_full("r2")
    addrs, ruleset, frr = lab.running("r1")
    assert "10.0.0.1/30" in addrs and "10.0.10.1/24" in addrs
    assert "table inet boothnet" in ruleset and "router ospf" in frr
    for node in ROUTERS:  # backup of the day-0 state, with the (masked) diff beside it
        (backup,) = (lab.build / NETWORK / "backups" / node).iterdir()
        assert {"interfaces.ip", "nftables.nft", "frr.conf", "changes.diff"} <= {p.name for p in backup.iterdir()}
        assert "+router ospf" in (backup / "changes.diff").read_text()
    print(f"day-0 deploy of 2 routers: {took:.1f} s")


def test_shaping_still_fits_after_deploy_set_the_mtus(lab: Lab) -> None:
    for link in lab.spec.links:
        for end in (link.a, link.b):
            if end.node not in ROUTERS:
                continue
            info = json.loads(lab.run(end.node, "ip", "-j", "-d", "link", "show", end.ifname))[0]
            assert info["mtu"] <= link.mtu, f"{link.label}: mtu {info['mtu']} above the shaped {link.mtu}"
            qdisc = lab.run(end.node, "tc", "qdisc", "show", "dev", end.ifname)
            assert "htb 1:" in qdisc, f"{end.node}:{end.ifname} lost its shaping: {qdisc}"


def test_second_deploy_changes_nothing(lab: Lab) -> None:
    before = {n: lab.running(n) for n in ROUTERS}
    res = lab.playbook()
    assert res.returncode == 0, tail(res)
    assert changed_total(res.stdout) == 0, tail(res)
    assert {d: r["outcome"] for d, r in lab.summary()["devices"].items()} == {"r1": "unchanged", "r2": "unchanged"}
    assert [len(list((lab.build / NETWORK / "backups" / n).iterdir())) for n in ROUTERS] == [1, 1]
    after = {n: lab.running(n) for n in ROUTERS}
    assert {n: v[:2] for n, v in after.items()} == {n: v[:2] for n, v in before.items()}


def test_frr_changed_by_hand_after_the_deploy_is_seen_though_the_candidate_is_the_same(lab: Lab) -> None:
    """A no-change compare skips frr-reload for a candidate and running config it already found
    equal: a running config changed by hand is another pair, and the compare sees the change."""
    ps = lab.hostvars("r1")["boothnet_frr_pathspace"]
    verified = lab.device_state("r1") / "frr.verified"
    assert verified.exists()  # the deploys before this test remembered the pair
    lab.run("r1", "vtysh", "-N", ps, "-c", "configure terminal", "-c", "ip route 203.0.113.0/24 Null0")
    try:
        d = lab.driver("r1")
        try:
            d.load_replace_candidate(config=load_parts(lab.configs("r1")))
            diff = d.compare_parts()["frr.conf"]
        finally:
            d.close()
        assert "-ip route 203.0.113.0/24 Null0" in diff
    finally:
        lab.run("r1", "vtysh", "-N", ps, "-c", "configure terminal", "-c", "no ip route 203.0.113.0/24 Null0")


def _candidates(lab: Lab, tmp_path: Path, **edit: dict[str, str]) -> Path:
    """A copy of the lab configs with parts replaced per node: ``r1={"frr.conf": text}``."""
    root = tmp_path / "candidates"
    for node in ROUTERS:
        shutil.copytree(lab.configs(node), root / node)
        for part, text in edit.get(node, {}).items():
            (root / node / part).write_text(text)
    return root


def test_frr_syntax_error_leaves_device_unchanged_and_max_fail_decides(lab: Lab, tmp_path: Path) -> None:
    lab.converge("r1"), lab.converge("r2")
    good = {n: load_parts(lab.configs(n)) for n in ROUTERS}
    bad_frr = good["r1"]["frr.conf"] + "router ospf\n netwrk 10.9.9.0/24 area 0\n"
    r2_nft = good["r2"]["nftables.nft"].replace("ct state invalid drop", "ct state invalid drop\n\t\tmeta mark 7 drop")
    cands = _candidates(lab, tmp_path, r1={"frr.conf": bad_frr, "interfaces.ip": good["r1"]["interfaces.ip"]
                                           + "link add br7 type bridge\n"},
                        r2={"nftables.nft": r2_nft})
    before = {n: lab.running(n) for n in ROUTERS}
    common = ("-e", f"deploy_config_dir={cands}/{{{{ inventory_hostname }}}}")
    # one device per batch, budget 0: r1 (first batch) fails, the run stops, r2 is never touched
    stop = lab.playbook(*common, "-e", "boothnet_deploy_serial=1", "-e", "boothnet_deploy_max_fail_percentage=0")
    assert stop.returncode != 0
    devices = lab.summary()["devices"]
    assert devices["r1"]["outcome"] == "failed-before-apply" and "netwrk" in devices["r1"]["reason"], devices
    assert "r2" not in devices
    assert {n: lab.running(n) for n in ROUTERS} == before
    # defaults (one batch, budget 100 %): r1 still fails before apply, r2 is deployed.
    # (Ansible ends a serial play whenever a whole batch fails, so "go on" needs batches > 1.)
    cont = lab.playbook(*common)
    assert cont.returncode != 0
    devices = lab.summary()["devices"]
    assert devices["r1"]["outcome"] == "failed-before-apply" and devices["r2"]["outcome"] == "new-confirmed"
    assert lab.running("r1") == before["r1"]
    assert "meta mark 0x00000007 drop" in lab.running("r2")[1]
    lab.converge("r2")


def test_bad_ruleset_keeps_old_one_in_force_throughout(lab: Lab) -> None:
    cand = lab.converge("r1")
    samples: list[str] = []
    stop = threading.Event()

    def watch() -> None:  # the old ruleset must be there in every sample: no open window
        while not stop.is_set():
            samples.append(lab.run("r1", "nft", "-s", "list", "ruleset"))

    t = threading.Thread(target=watch)
    t.start()
    try:
        d = lab.driver("r1")
        bad = dict(cand, **{"nftables.nft": cand["nftables.nft"].replace(
            "ct state invalid drop", "ct state invalid drop\n\t\ttcp dport 22 acept")})
        d.load_replace_candidate(config=bad)
        with pytest.raises(ReplaceConfigException, match="nftables.nft rejected"):
            d.commit_config(revert_in=30)
        assert not d.has_pending_commit()
        # and a good replace: the flush and the new rules land in one transaction
        d.load_replace_candidate(config=dict(cand, **{"nftables.nft": cand["nftables.nft"].replace(
            "boothnet deny default", "boothnet deny v2")}))
        d.commit_config(revert_in=30)
        d.confirm_commit()
        d.close()
    finally:
        stop.set()
        t.join()
    assert len(samples) > 5
    assert all("chain USERS_IN" in s for s in samples), "a sample without the ruleset: a window"
    assert "boothnet deny v2" in lab.running("r1")[1]
    lab.converge("r1")


def _kill_ssh_sessions(lab: Lab, node: str) -> int:
    """SIGKILL the server side of every SSH session on *node* (not its listening sshd)."""
    ns = lab.ns(node)
    killed = 0
    for pid in services.pids_in_namespaces([ns])[ns]:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if cmd.startswith("sshd: root@"):
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


def test_session_drop_during_commit_reverts_within_revert_in(lab: Lab) -> None:
    cand = lab.converge("r1")
    before = lab.running("r1")
    d = lab.driver("r1")
    d.load_replace_candidate(config=dict(cand, **{"interfaces.ip": cand["interfaces.ip"]
                                                  + "link add br8 type bridge\n"}))
    d.commit_config(revert_in=5)
    assert "br8" in lab.run("r1", "ip", "-br", "link")
    t0 = time.monotonic()
    assert _kill_ssh_sessions(lab, "r1") >= 1  # the session drops; nobody confirms
    d.close()
    marker = lab.device_state("r1") / "reverted"  # written once the restore is done
    while not marker.exists() and time.monotonic() - t0 < 15:
        time.sleep(0.2)
    took = time.monotonic() - t0
    assert marker.exists() and took < 5 + 5, f"no revert after {took:.1f} s"
    assert "not confirmed within 5 s" in marker.read_text()
    assert "br8" not in lab.run("r1", "ip", "-br", "link")
    assert lab.running("r1")[:2] == before[:2]
    assert lab.ospf_full("r1")


def test_change_cutting_management_reverts_by_itself(lab: Lab, tmp_path: Path) -> None:
    cand = lab.converge("r1")
    cut = cand["nftables.nft"].replace(
        "\tchain forward {",
        "\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n"
        "\t\ttcp dport 22 ct state new drop\n\t}\n\n\tchain forward {")
    assert cut != cand["nftables.nft"]
    cands = _candidates(lab, tmp_path, r1={"nftables.nft": cut})
    res = lab.playbook("--limit", "r1", "-e", f"deploy_config_dir={cands}/{{{{ inventory_hostname }}}}",
                       "-e", "deploy_revert_in=15", "-e", "deploy_revert_margin=20",
                       "-e", "deploy_health_timeout=5")
    assert res.returncode != 0  # r1 is back on its previous config: a failed device
    r1 = lab.summary()["devices"]["r1"]
    assert r1["outcome"] == "reverted" and "management unreachable" in r1["reason"], r1
    assert "not confirmed within 15 s" in r1["reason"]
    assert "dport 22 ct state new drop" not in lab.running("r1")[1]
    d = lab.driver("r1")  # reachable again, on the deployed config
    d.load_replace_candidate(config=cand)
    assert d.compare_config() == ""
    d.close()
