#!/usr/bin/python
"""Documentation of the boothnet_acl_review action (plugins/action): it has no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_acl_review
short_description: Report the flows an ACL/policy change newly permits or denies
description:
  - Renders the intent at git ref O(base) and the working tree (or ref O(head)) and lists every flow
    whose end-to-end fate changes (walked hop by hop, routing and every ACL on the way), the flows
    that lost a layer without changing fate (defence in depth), and every flow whose fate at an ACL
    changes, in build/<network>/review/acl_review.md and .json. The inventory must be in a git repository.
  - Batfish traces the changed flows in both snapshots when a service answers; else the offline
    evaluator stands alone, Batfish reported SKIPPED (never passed).
  - The gate fails when a flow is newly permitted end to end into zone C(secure), between research
    and production, or into the booth from outside. Runs on the controller without a module process
    (an action plugin).
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
flows_newly_permitted: {description: Flows newly permitted end to end., type: int, returned: success}
flows_newly_denied: {description: Flows newly denied end to end., type: int, returned: success}
newly_permitted: {description: Newly permitted flows (per ACL)., type: int, returned: success}
newly_denied: {description: Newly denied flows (per ACL)., type: int, returned: success}
needs_sign_off: {description: Flows newly permitted end to end needing sign-off., type: int, returned: success}
markdown: {description: The review report as Markdown., type: str, returned: success}
"""
