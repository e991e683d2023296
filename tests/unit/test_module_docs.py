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
    # the shared connection options arrive through the doc fragments: one device's, or a list of them
    options = {name: set(docs[name]["doc"]["options"]) for name in MODULES}
    assert {"hostname", "known_hosts", "timeout"} <= options["boothnet.boothnet.boothnet_napalm_facts"]
    for name in ("boothnet_napalm_deploy", "boothnet_cabling_check"):
        assert {"devices", "inventory", "lab_vlan_mode", "report_dir"} <= options[f"boothnet.boothnet.{name}"], name
