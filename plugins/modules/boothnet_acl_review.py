#!/usr/bin/python
"""Documentation of the boothnet_acl_review action (plugins/action): it has no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_acl_review
short_description: Report the flows an ACL/policy change newly permits or denies
description:
  - Renders the intent at git ref O(base) and the working tree (or ref O(head)) and lists every flow
    whose fate at an ACL changes, with device, ACL and line, in build/<network>/review/acl_review.md
    and .json. The inventory must be in a git repository.
  - Uses Batfish's differential questions when a service answers; else boothnet's own ACL evaluator
    over a representative flow set, Batfish reported SKIPPED (never passed).
  - The gate fails when something is newly permitted into zone C(secure) or between research and
    production. Runs on the controller without a module process (an action plugin).
options:
  base: {description: Git ref of the intent to compare against., type: str, default: HEAD}
  head: {description: Git ref of the proposed intent; empty means the working tree., type: str, default: ""}
  fail_on_gate: {description: Fail the task when the change needs security sign-off., type: bool, default: true}
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
  - boothnet.boothnet.boothnet_stage.batfish
author: boothnet maintainers (@boothnet)
"""

EXAMPLES = r"""
- name: Review the ACL change since the last commit
  boothnet_acl_review:
    inventory: inventories/sc-booth
    base: HEAD~1
"""

RETURN = r"""
gate: {description: "FAIL when the change needs security sign-off, else PASS.", type: str, returned: always}
method: {description: "Batfish, or offline evaluation (Batfish SKIPPED).", type: str, returned: success}
newly_permitted: {description: Newly permitted flows (per ACL)., type: int, returned: success}
newly_denied: {description: Newly denied flows (per ACL)., type: int, returned: success}
needs_sign_off: {description: Newly permitted flows that need security sign-off., type: int, returned: success}
markdown: {description: The review report as Markdown., type: str, returned: success}
"""
