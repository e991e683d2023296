"""Action plugin: boothnet's build stage, on the controller."""

from __future__ import annotations

from pathlib import Path

from ansible.plugins.action import ActionBase
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import (
    STAGE_ARGS,
    OnController,
    StageFailed,
    run_stage,
)


class ActionModule(ActionBase):
    """The build reads the intent and writes build/ on the controller: a module process would add
    a Python start, the module's packaging and its imports (0.5 s of a 500-device build)."""

    TRANSFERS_FILES = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec({**STAGE_ARGS, "run_tools": {"type": "bool", "default": True}})
        inventory, build_dir = Path(args["inventory"]), Path(args["build_dir"])
        try:
            built = run_stage(OnController(), "boothnet.render.build:build", inventory, build_dir,
                              lock=(inventory, build_dir, False), takes_run=True, run_tools=args["run_tools"])
        except StageFailed as failed:
            return dict(result, failed=True, **failed.result)
        if not built.ok:
            return dict(result, failed=True, msg="build findings:\n" + "\n".join(built.findings),
                        summary=built.facts())
        warnings = [f"intent: {warning}" for warning in built.warnings]
        return dict(result, changed=bool(built.changed), summary=built.facts(), warnings=warnings)
