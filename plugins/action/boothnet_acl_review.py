"""Action plugin: boothnet's ACL review (intent at a git ref against now), on the controller."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import BATFISH_ARGS, STAGE_ARGS
from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_action import StageAction


class ActionModule(StageAction):
    ARGS = {
        **STAGE_ARGS,
        **BATFISH_ARGS,
        "base": {"type": "str", "default": "HEAD"},
        "head": {"type": "str", "default": ""},
        "fail_on_gate": {"type": "bool", "default": True},
    }

    def stage(self, args):
        from boothnet.verify.acl_review.report import review_facts

        inventory, build_dir = Path(args["inventory"]), Path(args["build_dir"])
        review = self.call("boothnet.verify.acl_review.stage:run_acl_review", inventory, build_dir, args["base"],
                           args["head"] or None, args["batfish_host"] or None, args["require_batfish"],
                           lock=(inventory, build_dir, False))
        facts = {"changed": False, **review_facts(review)}
        if review.exit_code and args["fail_on_gate"]:
            why = (f"{len(review.gated)} flow(s) newly permitted end to end need security sign-off" if review.gated
                   else f"head permits {len(review.replies_die)} flow(s) whose replies a stateless ACL drops"
                   if review.replies_die else "head's compiled ACLs contradict its own policy")
            return {**facts, "failed": True, "msg": f"ACL review: {why}; see {review.files['md']}"}
        return facts
