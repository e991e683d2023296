"""Action plugin: boothnet's verify stage (offline lint and Batfish), on the controller."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import BATFISH_ARGS, STAGE_ARGS
from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_action import StageAction


class ActionModule(StageAction):
    ARGS = {**STAGE_ARGS, **BATFISH_ARGS}

    def stage(self, args):
        from boothnet.status import Status

        inventory, build_dir = Path(args["inventory"]), Path(args["build_dir"])
        report = self.call("boothnet.verify.stage:run_verify_stage", inventory, build_dir,
                           args["batfish_host"] or None, args["require_batfish"],
                           lock=(inventory, build_dir, False), takes_run=True)
        facts = {"changed": False, "status": str(report.status), "markdown": report.to_markdown()}
        if report.status == Status.FAIL:
            return {**facts, "failed": True, "msg": "verify failed:\n" + facts["markdown"]}
        return facts
