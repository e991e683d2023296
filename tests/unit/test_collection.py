"""The repository builds as the collection boothnet.boothnet, and the installed collection runs
its build.yml on lab-mini, from a folder with no ansible.cfg of ours, to the golden configs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import INVENTORIES, ROOT

BIN = Path(sys.executable).parent


def test_the_built_collection_installs_and_runs_build_yml(tmp_path: Path) -> None:
    built = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "build", "--output-path", str(tmp_path), "."],
                           cwd=ROOT, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    tarball = tmp_path / "boothnet-boothnet-1.0.0.tar.gz"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env["ANSIBLE_COLLECTIONS_PATH"] = str(tmp_path / "collections")
    installed = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "install", str(tarball), "-p",
                                str(tmp_path / "collections")], cwd=tmp_path, capture_output=True, text=True,
                               check=False, env=env)
    assert installed.returncode == 0, installed.stderr
    shutil.copytree(INVENTORIES / "lab-mini", tmp_path / "inv")
    run = subprocess.run([str(BIN / "ansible-playbook"), "-i", "inv", "boothnet.boothnet.build",
                          "-e", f"boothnet_build_dir={tmp_path / 'build'}"],
                         cwd=tmp_path, capture_output=True, text=True, check=False, env=env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    installed_at = tmp_path / "collections" / "ansible_collections" / "boothnet" / "boothnet"
    assert str(installed_at) in _module_path(env, tmp_path)
    for golden in sorted((ROOT / "tests" / "golden" / "lab-mini").rglob("*")):
        if golden.is_file():
            rendered = tmp_path / "build" / "lab-mini" / "configs" / golden.relative_to(ROOT / "tests/golden/lab-mini")
            assert rendered.read_text() == golden.read_text(), rendered


def _module_path(env: dict[str, str], cwd: Path) -> str:
    """Where ansible-doc finds the build module with this environment: the installed copy."""
    doc = subprocess.run([str(BIN / "ansible-doc"), "-t", "module", "boothnet.boothnet.boothnet_build"],
                         cwd=cwd, capture_output=True, text=True, check=False, env=env)
    return doc.stdout.splitlines()[0] if doc.stdout else doc.stderr


def _lookup(expression: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "ansible"), "localhost", "-m", "ansible.builtin.debug", "-a",
                           f"msg={{{{ {expression} }}}}"], cwd=ROOT, capture_output=True, text=True, check=False)


def test_the_playbooks_get_their_paths_from_the_layout() -> None:
    from boothnet.layout import Layout

    out = _lookup("lookup('boothnet.boothnet.boothnet_layout', 'deploy_check', 'backups', network='n', "
                  "build_dir='b', device='core1')")
    layout = Layout(ROOT / "b", "n")  # build_dir is a path option: made absolute from the cwd
    assert out.returncode == 0, out.stderr
    assert f"{layout.deploy_check},{layout.backups('core1')}" in out.stdout
    wrong = _lookup("lookup('boothnet.boothnet.boothnet_layout', 'deploys', network='n')")
    assert wrong.returncode != 0
    said = wrong.stdout + wrong.stderr
    assert "boothnet_layout: no path 'deploys'; one of backups, cabling_check, configs," in said
