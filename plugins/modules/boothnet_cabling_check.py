#!/usr/bin/python
"""Check one device's cabling by LLDP against the intent, read-only."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_cabling_check
short_description: Check a device's cables by LLDP against the intent
description:
  - "Reads the device's LLDP neighbours through its NAPALM driver (C(get_lldp_neighbors): ios, eos,
    and frr_linux through lldpcli) and compares each port's neighbour with the intent's cables.
    A platform without C(lldp_reader) in capabilities.yml is skipped, except in the lab.
    Fails naming every missing, extra or swapped cable by its label. Changes nothing on the device."
options:
  inventory:
    description: The intent's inventory folder.
    type: path
    required: true
  device:
    description: The device, as the intent names it.
    type: str
    required: true
  lab_vlan_mode:
    description: The lab's VLAN mode when the device is a lab stand-in (its ports are eth<N>); empty on hardware.
    type: str
    default: ""
  report_dir:
    description: Folder for C(<device>.json) with the rows; none when empty.
    type: path
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_napalm
author: boothnet
"""

EXAMPLES = r"""
- name: Cables of core1 where the intent says
  boothnet_cabling_check:
    hostname: "{{ ansible_host }}"
    username: admin
    platform: cisco_ios
    inventory: inventories/sc-booth
    device: core1
"""

RETURN = r"""
rows:
  description: One per cable of the device (label, cable, verdict, cause).
  returned: always
  type: list
  elements: dict
"""

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_napalm import spec, target  # noqa: E402


def main():
    module = AnsibleModule(argument_spec=spec(
        inventory=dict(type="path", required=True), device=dict(type="str", required=True),
        lab_vlan_mode=dict(type="str", default=""), report_dir=dict(type="path")), supports_check_mode=True)
    from boothnet.deploy.lldp import check_device, intent_ports
    from boothnet.errors import IntentInvalid
    from boothnet.intent import load_network
    from boothnet.lab.lldp import lab_ifnames
    from boothnet.platforms import platforms

    p = module.params
    try:
        net = load_network(Path(p["inventory"]))
    except IntentInvalid as exc:
        module.fail_json(msg=exc.summary())
    if not p["lab_vlan_mode"] and not platforms()[p["platform"]].lldp_reader:
        module.exit_json(changed=False, skipped=True, rows=[],
                         msg=f"{p['device']}: not checked: no LLDP reader for platform {p['platform']}")
    ifnames = lab_ifnames(net, p["lab_vlan_mode"]) if p["lab_vlan_mode"] else intent_ports
    try:
        rows = [r.model_dump(mode="json") for r in check_device(net, p["device"], target(module), ifnames)]
    except Exception as exc:  # noqa: BLE001 - a device that cannot be read is named, not a traceback
        module.fail_json(msg=f"{p['device']}: cannot read LLDP neighbours: {type(exc).__name__}: {exc}")
    if p["report_dir"]:
        Path(p["report_dir"]).mkdir(parents=True, exist_ok=True)
        (Path(p["report_dir"]) / f"{p['device']}.json").write_text(json.dumps(rows, indent=1) + "\n")
    bad = [f"{r['label']}: {r['cause']}" for r in rows if r["verdict"] != "PASS"]
    if bad:
        module.fail_json(msg=f"{p['device']}: {len(bad)} of {len(rows)} cables not where the intent says: "
                         + "; ".join(bad), rows=rows)
    module.exit_json(changed=False, rows=rows, msg=f"{p['device']}: all {len(rows)} cables where the intent says")


if __name__ == "__main__":
    main()
