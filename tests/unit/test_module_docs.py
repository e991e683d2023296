"""Every boothnet Ansible module documents itself in a form ansible-doc can read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

MODULES = sorted(f"boothnet.boothnet.{p.stem}" for p in (ROOT / "plugins" / "modules").glob("boothnet_*.py"))


def test_ansible_doc_reads_every_module():
    ansible_doc = Path(sys.executable).with_name("ansible-doc")
    proc = subprocess.run(
        [str(ansible_doc), "--json", "-t", "module", *MODULES], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and "ERROR" not in proc.stderr, proc.stderr
    docs = json.loads(proc.stdout)
    assert sorted(docs) == MODULES
    napalm = [name for name in MODULES if name.startswith("boothnet.boothnet.boothnet_napalm_")]
    for name in napalm:  # the shared connection options arrive through the doc fragment
        assert {"hostname", "known_hosts", "timeout"} <= set(docs[name]["doc"]["options"]), name
