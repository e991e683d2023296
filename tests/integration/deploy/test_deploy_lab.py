"""Deploy on real FRR/nftables/sshd in namespaces: the faults of issue 4, each for real."""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.lab

if os.geteuid() != 0:
    pytest.skip("deploy lab tests need root (network namespaces, FRR, sshd)",
                allow_module_level=True)

import napalm  # noqa: E402
from fixture import DeployFixture, render_candidate, write_candidate  # noqa: E402
from napalm.base.exceptions import ReplaceConfigException  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
MARK = 'tcp dport 4711 counter accept comment "baseline"\n'


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DeployFixture]:
    fx = DeployFixture(Path("/tmp/bdtest-work")).up()
    try:
        yield fx
    finally:
        fx.down()


def driver(lab: DeployFixture, node: str = "bdt1"):  # type: ignore[no-untyped-def]
    a = lab.driver_args(node)
    d = napalm.get_network_driver("frr_linux")(
        a["hostname"], a["username"], a["password"], optional_args=a["optional_args"])
    d.open()
    return d


def baseline(lab: DeployFixture, node: str = "bdt1") -> dict[str, str]:
    """Put the node on a known, confirmed config and return it."""
    cand = render_candidate(node, nft_extra=MARK)
    d = driver(lab, node)
    d.load_replace_candidate(config=cand)
    if d.compare_config():
        d.commit_config(revert_in=60)
        d.confirm_commit()
    assert d.compare_config() == ""
    d.close()
    return cand


def running(lab: DeployFixture, node: str = "bdt1") -> tuple[str, str, str]:
    return (lab.run(node, "ip", "-br", "addr"), lab.run(node, "nft", "-s", "list", "ruleset"),
            lab.run(node, "vtysh", "-N", node, "-c", "show running-config"))


def playbook(lab: DeployFixture, build: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    inv = build / "inventory.yml"
    lab.write_inventory(inv, build)
    return subprocess.run(
        [str(REPO / ".venv/bin/ansible-playbook"), "-i", str(inv),
         str(REPO / "playbooks/deploy.yml"), "-e", f"boothnet_build_dir={build}", *extra],
        cwd=REPO, capture_output=True, text=True, timeout=600)


def changed_total(out: str) -> int:
    return sum(int(n) for n in re.findall(r"changed=(\d+)", out))


def test_deploy_then_second_run_changes_nothing(lab: DeployFixture, tmp_path: Path) -> None:
    for node, net in (("bdt1", "198.18.210.129/28"), ("bdt2", "198.18.210.161/28")):
        write_candidate(tmp_path / "bdtest/configs" / node, render_candidate(node, extra_net=net))
    check = playbook(lab, tmp_path, "--check", "--diff", "-e", "deploy_revert_in=30")
    assert check.returncode == 0, check.stdout[-3000:]
    assert "+addr add 198.18.210.129/28 dev br9" in check.stdout
    assert "br9" not in lab.run("bdt1", "ip", "-br", "link")  # check mode changed nothing
    first = playbook(lab, tmp_path, "-e", "deploy_revert_in=30")
    assert first.returncode == 0, first.stdout[-3000:]
    assert "198.18.210.129/28" in lab.run("bdt1", "ip", "-br", "addr")
    summary = (tmp_path / "bdtest/deploy/summary.json").read_text()
    assert summary.count('"new-confirmed"') >= 2
    second = playbook(lab, tmp_path, "-e", "deploy_revert_in=30")
    assert second.returncode == 0, second.stdout[-3000:]
    assert changed_total(second.stdout) == 0, second.stdout[-2000:]
    assert list((tmp_path / "bdtest/backups/bdt1").iterdir())


def test_frr_syntax_error_leaves_device_unchanged(lab: DeployFixture) -> None:
    cand = baseline(lab)
    before = running(lab)
    bad = dict(cand, **{"frr.conf": cand["frr.conf"] + "router ospf\n netwrk 10.9.9.0/24\n"})
    bad["interfaces.ip"] += "link add br7 type bridge\n"  # would change, must not
    d = driver(lab)
    d.load_replace_candidate(config=bad)
    with pytest.raises(ReplaceConfigException, match="Unknown command.*netwrk"):
        d.commit_config(revert_in=30)
    assert not d.has_pending_commit()
    d.close()
    assert running(lab) == before


def test_bad_ruleset_keeps_old_one_in_force_throughout(lab: DeployFixture) -> None:
    cand = baseline(lab)
    samples: list[str] = []
    stop = threading.Event()

    def watch() -> None:  # the old ruleset must be there in every sample
        while not stop.is_set():
            samples.append(lab.run("bdt1", "nft", "-s", "list", "ruleset"))

    t = threading.Thread(target=watch)
    t.start()
    try:
        d = driver(lab)
        bad = dict(cand, **{"nftables.nft": cand["nftables.nft"].replace(
            "policy accept;", "policy accept;\n    tcp dport 22 acept")})
        d.load_replace_candidate(config=bad)
        with pytest.raises(ReplaceConfigException, match="nftables.nft rejected"):
            d.commit_config(revert_in=30)
        # and a good replace: the flush and the new rules land in one transaction
        good = dict(cand, **{"nftables.nft": cand["nftables.nft"].replace(
            "baseline", "next")})
        d.load_replace_candidate(config=good)
        d.commit_config(revert_in=30)
        d.confirm_commit()
        d.close()
    finally:
        stop.set()
        t.join()
    assert samples
    assert all("dport 4711" in s for s in samples), "a sample without the ruleset: a window"
    assert 'comment "next"' in samples[-1] or 'comment "next"' in running(lab)[1]


def test_session_drop_during_commit_reverts_within_revert_in(lab: DeployFixture) -> None:
    cand = baseline(lab)
    before = running(lab)
    d = driver(lab)
    d.load_replace_candidate(config=dict(cand, **{"interfaces.ip": cand["interfaces.ip"]
                                                  + "link add br8 type bridge\n"}))
    d.commit_config(revert_in=5)
    assert "br8" in lab.run("bdt1", "ip", "-br", "link")
    # Kill the SSH session's server side, never confirm.
    lab.run("bdt1", "pkill", "-KILL", "-f", "sshd: root@", check=False)
    d.close()
    t0 = time.monotonic()
    marker = Path("/var/lib/boothnet/bdt1/reverted")  # written once the restore is done
    while not marker.exists() and time.monotonic() - t0 < 15:
        time.sleep(0.5)
    assert running(lab)[0] == before[0]
    assert time.monotonic() - t0 < 15
    assert "not confirmed within 5 s" in Path("/var/lib/boothnet/bdt1/reverted").read_text()


def test_change_cutting_management_reverts_by_itself(lab: DeployFixture, tmp_path: Path) -> None:
    cand = baseline(lab)
    cut = dict(cand, **{"nftables.nft": cand["nftables.nft"].replace(
        "policy accept;", "policy accept;\n    tcp dport 22 ct state new drop")})
    write_candidate(tmp_path / "bdtest/configs/bdt1", cut)
    write_candidate(tmp_path / "bdtest/configs/bdt2", render_candidate("bdt2"))
    res = playbook(lab, tmp_path, "-e", "deploy_revert_in=20", "-e", "deploy_revert_margin=20",
                   "-e", "deploy_health_timeout=5")
    assert res.returncode != 0  # bdt1 failed: it is on its previous config
    summary = (tmp_path / "bdtest/deploy/summary.json").read_text()
    assert "\"outcome\": \"reverted\"" in summary and "management unreachable" in summary, summary
    assert "dport 22 ct state new drop" not in running(lab)[1]
    d = driver(lab)  # reachable again
    d.load_replace_candidate(config=cand)
    assert d.compare_config() == ""
    d.close()
