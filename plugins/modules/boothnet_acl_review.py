#!/usr/bin/python
"""Ansible module: boothnet's ACL review for security staff (intent at a git ref vs now)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: boothnet_acl_review
short_description: Report the flows an ACL/policy change newly permits or denies
description:
  - Compares the intent at git ref I(base) with the working tree (or with ref I(head)), renders
    both, and lists every flow whose fate at an ACL changes, with device, ACL and line.
    Writes build/<network>/review/acl_review.json and acl_review.md. The inventory must be
    inside a git repository.
  - With a reachable Batfish service it uses Batfish's differential questions; without one it
    evaluates a representative flow set with boothnet's own ACL evaluator and reports Batfish
    as SKIPPED (never as passed).
  - The gate fails when something is newly permitted into zone C(secure) or between research
    and production; with I(fail_on_gate=true) the task then fails.
options:
  base:
    description: Git ref of the intent to compare against.
    type: str
    default: HEAD
  head:
    description: Git ref of the proposed intent; empty means the working tree.
    type: str
    default: ""
  fail_on_gate:
    description: Fail the task when the change needs security sign-off.
    type: bool
    default: true
extends_documentation_fragment:
  - boothnet.boothnet.boothnet_stage
  - boothnet.boothnet.boothnet_stage.batfish
author: boothnet
"""

EXAMPLES = r"""
- name: Review the ACL change since the last commit
  boothnet_acl_review:
    inventory: inventories/sc-booth
    base: HEAD~1
"""

RETURN = r"""
gate:
  description: FAIL when something is newly permitted into secure or research<->production, else PASS.
  type: str
  returned: always
method:
  description: Batfish, or offline evaluation (Batfish SKIPPED).
  type: str
  returned: success
newly_permitted:
  description: Number of newly permitted flows (per ACL).
  type: int
  returned: success
newly_denied:
  description: Number of newly denied flows (per ACL).
  type: int
  returned: success
markdown:
  description: The review report as Markdown.
  type: str
  returned: success
"""

from pathlib import Path

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import (
    BATFISH_ARGS,
    STAGE_ARGS,
    run_stage,
)


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            **STAGE_ARGS,
            **BATFISH_ARGS,
            "base": {"type": "str", "default": "HEAD"},
            "head": {"type": "str", "default": ""},
            "fail_on_gate": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    from boothnet.status import Status
    from boothnet.verify.acl_review.report import review_markdown
    p = module.params
    review = run_stage(module, "boothnet.verify.acl_review.stage:run_acl_review", Path(p["inventory"]),
                       Path(p["build_dir"]), p["base"], p["head"] or None, p["batfish_host"] or None,
                       p["require_batfish"], lock=(Path(p["inventory"]), Path(p["build_dir"]), False))
    markdown = review_markdown(review)
    result = {
        "changed": False,
        "gate": str(Status.of(not review.gated)),
        "method": review.method,
        "batfish": review.batfish,
        "newly_permitted": len(review.permitted),
        "newly_denied": len(review.denied),
        "needs_sign_off": len(review.gated),
        "report": str(review.files["md"]),
        "markdown": markdown,
    }
    if review.gated and p["fail_on_gate"]:
        module.fail_json(msg=f"ACL review: {len(review.gated)} newly permitted flow(s) need security sign-off; "
                             f"see {review.files['md']}", **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
