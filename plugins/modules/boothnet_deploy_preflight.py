#!/usr/bin/python
"""Documentation of the boothnet_deploy_preflight action (plugins/action): it has no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_deploy_preflight
short_description: Fail unless the configs to deploy were built from the current intent
description:
  - Groups the devices' candidate folders by configs folder, reads the build summary beside
    each (C(<folder>.summary.json)) and compares the stamp of the intent recorded there
    (sha256 of hosts.yml, group_vars/ and host_vars/) with the intent's files as they are now.
  - Fails with one message naming every problem (intent changed since the build, with the
    changed files; no summary or stamp; no configs for a device; build findings) and the
    command that rebuilds the configs. Reads only; runs in check mode too.
  - Runs on the controller without a module process (an action plugin).
options:
  devices:
    description: Device name -> its candidate folder (empty or missing for I(configs_root)/<device>).
    type: dict
    required: true
  configs_root:
    description: Configs folder for devices without a folder of their own (C(build/<network>/configs)).
    type: path
    required: true
  network:
    description: Network name, for the rebuild command when the build recorded no intent.
    type: str
    required: true
  lab_configs:
    description: The lab's config mode when deploying to a lab (its rendering is rebuilt by lab-up).
    type: str
    choices: [full, day0]
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Refuse configs built from another version of the intent
  boothnet_deploy_preflight:
    devices: {r1: build/lab-mini/lab/configs/r1, r2: build/lab-mini/lab/configs/r2}
    configs_root: build/lab-mini/lab/configs
    network: lab-mini
    lab_configs: day0
"""

RETURN = r"""
intent:
  description: Each configs folder and the digest of the intent it was built from.
  type: dict
  returned: success
problems:
  description: Every problem found, each naming the folder (the message joins them).
  type: list
  elements: str
  returned: failure
"""
