"""Action plugin: boothnet's build stage, on the controller."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import STAGE_ARGS
from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_action import StageAction


class ActionModule(StageAction):
    ARGS = {**STAGE_ARGS, "run_tools": {"type": "bool", "default": True}}

    def stage(self, args):
        inventory, build_dir = Path(args["inventory"]), Path(args["build_dir"])
        built = self.call("boothnet.render.build:build", inventory, build_dir, lock=(inventory, build_dir, False),
                          takes_run=True, run_tools=args["run_tools"])
        if not built.ok:
            return {"failed": True, "msg": "build findings:\n" + "\n".join(built.findings), "summary": built.facts()}
        warnings = [f"intent: {warning}" for warning in built.warnings]
        return {"changed": bool(built.changed), "summary": built.facts(), "warnings": warnings}
