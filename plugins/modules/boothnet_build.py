#!/usr/bin/python
"""Documentation of the boothnet_build action (plugins/action): it has no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_build
short_description: Validate the intent, derive and render every device's config, lint offline
description:
  - Runs the whole build stage in one Python call (not one template task per host), so it
    scales to hundreds of devices. Nothing is written when the intent is invalid.
  - Runs on the controller without a module process (an action plugin).
options:
  run_tools:
    description: Check frr_linux output with vtysh --dryrun and nft -c.
    type: bool
    default: true
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Build configs
  boothnet_build:
    inventory: inventories/sc-booth
"""

RETURN = r"""
summary:
  description: Devices, VLANs, configs written, findings and tool checks.
  type: dict
  returned: always
errors:
  description: Every intent error, each naming file, field path, value and what is allowed.
  type: list
  elements: str
  returned: on invalid intent
"""
