#!/usr/bin/python
"""Check devices' cabling by LLDP against the intent, read-only."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_cabling_check
short_description: Check devices' cables by LLDP against the intent
description:
  - "Reads each device's LLDP neighbours through its NAPALM driver (C(get_lldp_neighbors): ios, eos,
    and frr_linux through lldpcli), all devices at once, and compares each port's neighbour with the
    intent's cables. A platform without C(lldp_reader) in capabilities.yml is skipped, except in the
    lab. Fails naming every missing, extra or swapped cable by its label. Changes nothing."
options:
  inventory:
    description: The intent's inventory folder (where the cables come from).
    type: path
    required: true
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_napalm.devices
  - boothnet.boothnet.boothnet_napalm.cabling
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Cables of every device where the intent says
  boothnet_cabling_check:
    devices: [{device: core1, hostname: 192.0.2.11, username: admin, platform: cisco_ios}]
    inventory: inventories/sc-booth
"""

RETURN = r"""
rows:
  description: One per cable (label, cable, verdict, cause, device).
  returned: always
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_napalm import (
    CABLING_SPEC,
    cabling,
    devices_spec,
    lldp_readers,
)


def main():
    module = AnsibleModule(argument_spec=dict(
        CABLING_SPEC, devices=devices_spec(), inventory=dict(type="path", required=True)), supports_check_mode=True)
    from boothnet.deploy.batch import sessions

    p = module.params
    readers, skipped = lldp_readers(module, p["devices"], bool(p["lab_vlan_mode"]))
    with sessions(readers) as opened:
        rows, wrong = cabling(module, opened, p["inventory"], p["lab_vlan_mode"], p["report_dir"])
    if wrong:
        module.fail_json(msg=wrong, rows=rows, skipped=skipped)
    module.exit_json(changed=False, rows=rows, skipped=skipped,
                     msg=f"all {len(rows)} cables where the intent says" + "".join(f"; {s}" for s in skipped))


if __name__ == "__main__":
    main()
