"""Documentation of the options every boothnet stage module shares (its argument spec is
``boothnet_stage.STAGE_ARGS`` and ``BATFISH_ARGS`` in module_utils)."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  inventory:
    description: Inventory folder holding hosts.yml and group_vars/ (the intent).
    type: path
    required: true
  build_dir:
    description: Root of the build artifacts; a network's go to <build_dir>/<network>/.
    type: path
    default: build
"""

    BATFISH = r"""
options:
  batfish_host:
    description: Batfish service host; empty means the BATFISH_HOST environment variable.
    type: str
    default: ""
  require_batfish:
    description: Fail when no Batfish service answers.
    type: bool
    default: false
"""
