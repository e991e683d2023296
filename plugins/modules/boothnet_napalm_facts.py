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
author: boothnet
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

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_napalm import spec, target  # noqa: E402


def main():
    module = AnsibleModule(
        argument_spec=spec(getters=dict(type="list", elements="str", default=["facts"])),
        supports_check_mode=True,
    )
    t = target(module)
    out = {}
    try:
        dev = t.open()
    except Exception as exc:
        module.fail_json(msg=f"cannot connect: {exc}")
    try:
        for name in module.params["getters"]:
            fn = getattr(dev, f"get_{name}", None)
            if fn is None:
                module.fail_json(msg=f"driver {t.driver} has no getter get_{name}")
            out[name] = fn()
    finally:
        dev.close()
    module.exit_json(changed=False, napalm=out)


if __name__ == "__main__":
    main()
