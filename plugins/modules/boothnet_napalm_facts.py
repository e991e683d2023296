#!/usr/bin/python
"""Run NAPALM getters on a device."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_napalm_facts
short_description: Run NAPALM getters
description:
  - "Calls each getter named in O(getters) (C(facts), C(interfaces), C(interfaces_ip),
    C(ospf_neighbors), ...; the C(get_) prefix is added) and returns their results."
options:
  getters:
    description: Getter names without the C(get_) prefix.
    type: list
    elements: str
    default: [facts]
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_napalm
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Facts and OSPF neighbors
  boothnet_napalm_facts:
    hostname: "{{ ansible_host }}"
    username: root
    getters: [facts, ospf_neighbors]
"""

RETURN = r"""
napalm:
  description: Getter name -> result.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_napalm import getters, spec


def main():
    module = AnsibleModule(argument_spec=spec(getters=dict(type="list", elements="str", default=["facts"])),
                           supports_check_mode=True)
    module.exit_json(changed=False, napalm=getters(module))


if __name__ == "__main__":
    main()
