#!/usr/bin/python
"""Documentation of the boothnet_verify action (plugins/action): it has no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_verify
short_description: Verify rendered configs offline and with Batfish
description:
  - Builds and lints the configs, renders the Batfish view, and runs every Batfish check
    derived from the intent. Writes build/<network>/verify/verify.json and verify.md.
  - Without a reachable Batfish service the Batfish checks are SKIPPED (never passed), with
    the command that starts one; I(require_batfish=true) makes that fatal.
  - Runs on the controller without a module process (an action plugin).
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
  - boothnet.boothnet.boothnet_stage.batfish
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Verify
  boothnet_verify:
    inventory: inventories/sc-booth
    require_batfish: false
"""

RETURN = r"""
status:
  description: PASS, FAIL or SKIPPED (some checks did not run).
  type: str
  returned: always
markdown:
  description: The verify report as Markdown.
  type: str
  returned: always
"""
