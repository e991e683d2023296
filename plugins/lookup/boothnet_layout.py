"""Lookup plugin: a path of a network's run under the build folder, named by boothnet.layout."""

from __future__ import annotations

DOCUMENTATION = r"""
name: boothnet_layout
short_description: A path under build/<network>/, as boothnet names it
description:
  - The playbooks and roles get every path of a run from here, the same names the boothnet
    package uses (C(boothnet.layout.Layout)), instead of building the strings themselves.
options:
  _terms:
    description:
      - The paths to return, in order; any of C(configs), C(lab_configs), C(lab), C(lab_inventory),
        C(deploy), C(deploy_check), C(backups) (with O(device)), C(report), C(verify).
    required: true
  network:
    description: The network's name (the intent's C(network.name)).
    type: str
    required: true
  build_dir:
    description: The build folder.
    type: path
    default: build
  device:
    description: The device, for C(backups).
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: Where the deploy records go
  ansible.builtin.debug:
    msg: "{{ lookup('boothnet.boothnet.boothnet_layout', 'deploy', network='sc-booth', build_dir='build') }}"
"""

RETURN = r"""
_raw:
  description: One absolute path per term.
  type: list
  elements: str
"""

from pathlib import Path

from ansible.errors import AnsibleError
from ansible.plugins.lookup import LookupBase


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        try:
            from boothnet.layout import Layout
        except ImportError as exc:
            raise AnsibleError(f"boothnet is not importable by the controller's Python: {exc}") from None
        layout = Layout(Path(self.get_option("build_dir")), self.get_option("network"))
        paths = {
            "configs": layout.configs(),
            "lab_configs": layout.configs("lab/configs"),
            "lab": layout.lab,
            "lab_inventory": layout.lab_inventory,
            "deploy": layout.deploy,
            "deploy_check": layout.deploy_check,
            "report": layout.report,
            "verify": layout.verify,
            "cabling_check": layout.cabling_check,
        }
        found = []
        for term in terms:
            if term == "backups":
                found.append(str(layout.backups(self.get_option("device"))))
            elif term in paths:
                found.append(str(paths[term]))
            else:
                known = ", ".join(sorted([*paths, "backups"]))
                raise AnsibleError(f"boothnet_layout: no path {term!r}; one of {known}")
        return found
