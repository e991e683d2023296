"""The floor path against the lab reached only through its management network, as a booth team
validates the network it deployed: `boothnet validate-hw --lab` ends PASS from the controller
namespace, enters no lab namespace (every command it or Ansible started is recorded by an audit
hook in each Python process), leaves nothing on the hosts, and agrees with validate-lab row for row
on what it probes. Its rates are judged by their own rows (PASS against the same limit as the
lab's); validate-lab's rates are test_dual_stack_lab's and the demo's to prove."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boothnet.lab.scratch import copy_inventory
from boothnet.lab.services import _cmdline, pids_in_namespaces
from boothnet.report.history import load_results
from boothnet.report.summary import summarize
from boothnet.run import Run
from boothnet.validate.profile import QUICK
from boothnet.validate.stage import run_validate
from tests.helpers import ROOT, cpu_bound, lab_mini_in_both_families, quiet, running_lab, unjudged

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces (CI runs as root)"),
]
NETWORK, MGMT = "floor-mini", "198.18.9.0/24"
SEED = "7"
# every command a Python process starts, one JSON line each: the CLI, ansible-playbook and its workers
AUDIT_HOOK = """
import json, os, sys
_log = os.environ["BOOTHNET_AUDIT_LOG"]
def _hook(event, args):
    if event in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.system"):
        argv = args[0] if event == "os.system" else args[1]
        argv = [argv] if isinstance(argv, (str, bytes)) else list(argv or [])
        with open(_log, "a") as f:
            f.write(json.dumps({"event": event, "pid": os.getpid(),
                                "argv": [a.decode() if isinstance(a, bytes) else str(a) for a in argv]}) + "\\n")
sys.addaudithook(_hook)
"""


def commands(log: Path) -> list[list[str]]:
    return [json.loads(line)["argv"] for line in log.read_text().splitlines()]


def test_validate_hw_on_the_lab_passes_enters_no_lab_namespace_and_agrees_with_validate_lab(tmp_path: Path) -> None:
    inventory = copy_inventory(ROOT / "inventories" / "lab-mini", tmp_path / "inv", NETWORK, MGMT)
    lab_mini_in_both_families(inventory)  # the floor path probes and measures IPv6 too (issue 44)
    # h1's user vaulted, as a booth team keeps its credentials (host_vars outrank the lab inventory's)
    password = tmp_path / "vault-password"
    password.write_text("booth-vault\n")
    vault = str(Path(sys.executable).parent / "ansible-vault")
    vaulted = subprocess.run([vault, "encrypt_string", "--vault-password-file", str(password), "root", "--name",
                              "ansible_user"], capture_output=True, text=True, check=True)
    (inventory / "host_vars" / "h1.yml").write_text("---\n" + vaulted.stdout)
    build = tmp_path / "build"
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(AUDIT_HOOK)
    log = tmp_path / "commands.jsonl"
    env = {**os.environ, "PYTHONPATH": str(hook), "BOOTHNET_AUDIT_LOG": str(log), "BOOTHNET_ISOLATION_SEED": SEED}
    with running_lab(inventory, build) as (spec, _):
        floor = subprocess.run([str(Path(sys.executable).parent / "boothnet"), "validate-hw", "-i", str(inventory),
                                "--build-dir", str(build), "--lab", "--", "--vault-password-file", str(password)],
                               cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        floor_results = load_results(sorted((build / NETWORK / "runs").iterdir())[-1])
        # PASS, but for a measurement this machine's load slowed, which says so (cpu_bound), as
        # validate-lab's: the lab reached as a floor still forwards on these cores
        honest = [r for r in floor_results.throughput + floor_results.production if unjudged(r)]
        failures = summarize(floor_results).failures
        assert all(f.kind == "ERROR" for f in failures) and len([f for f in failures if f.section != "stage"]) == len(
            honest), floor.stdout[-3000:] + floor.stderr[-3000:]
        assert (floor.returncode == 0) == (not failures) and ("PASS: all" in floor.stdout) == (not failures)
        left_files = [str(p) for node in spec.nodes for p in Path("/tmp").glob(f"boothnet-{NETWORK}-{node.name}-*")]
        left_processes = [pid for pids in pids_in_namespaces(f"{NETWORK}-{n.name}" for n in spec.nodes).values()
                          for pid in pids if any(tool in _cmdline(pid) for tool in ("iperf3", "nuttcp", "python3"))]
        assert left_files == [] and left_processes == [], (left_files, [_cmdline(p) for p in left_processes])
        run = Run(inventory, build)
        lab_results = run_validate(run, QUICK.edit(isolation_seed=int(SEED)), progress=quiet)
        lab_namespaces = {f"{NETWORK}-{node.name}" for node in spec.nodes}

    ran = commands(log)
    assert any(argv[:1] == ["ssh"] or argv[0].endswith("/ssh") for argv in ran), "no ssh: nothing was audited"
    entered = [argv for argv in ran if any(ns in argv for ns in lab_namespaces) or "nsenter" in argv]
    assert entered == [], entered[:5]
    # the one namespace entered is the controller's, to start ansible-playbook there
    into = [argv[3] for argv in ran if argv[:3] == ["ip", "netns", "exec"]]
    assert into == [f"{NETWORK}-floor-controller"], into
    mgmt_prefix = MGMT.rsplit(".", 2)[0]
    for argv in ran:
        if argv[:1] == ["ssh"]:  # every ssh goes to a management address
            assert any(a.startswith(mgmt_prefix) or a.split("@")[-1].startswith(mgmt_prefix) for a in argv), argv

    def rows(results, section: str, key) -> dict:
        return {key(r): r.verdict for r in getattr(results, section)}

    for section, key in (("isolation", lambda r: (r.src, r.dst, r.flow, r.family)),
                         ("mtu", lambda r: (r.path, r.family)),
                         ("endpoints", lambda r: (r.host, r.family)), ("cabling", lambda r: r.label)):
        assert rows(floor_results, section, key) == rows(lab_results, section, key), section
    for section in ("isolation", "mtu", "endpoints", "cabling"):
        assert getattr(floor_results, section), f"no {section} rows"
    # both families placed, probed and measured on the floor path (lab-mini's one routed jumbo path is
    # closed to ping by its policy: its IPv6 MTU rows are the hosts' links)
    assert {r.family for r in floor_results.isolation} == {r.family for r in floor_results.throughput} == \
        {r.family for r in floor_results.endpoints} == {r.family for r in floor_results.mtu} == {4, 6}
    # every path measured by both tools in each family, each row judged (PASS, or CPU-bound said)
    measured = {(t.path, t.tool, t.family) for t in floor_results.throughput if t.verdict == "PASS" or cpu_bound(t)}
    assert {tool for _, tool, _ in measured} == {"iperf3", "nuttcp"} and \
        {(path, family) for path, _, family in measured} == {(t.path, t.family) for t in floor_results.throughput}
