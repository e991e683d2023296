"""Action plugin: refuse a deploy of configs that were not built from the current intent."""

from __future__ import annotations

from pathlib import Path

from ansible.plugins.action import ActionBase
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import (
    OnController,
    StageFailed,
    run_stage,
)


class ActionModule(ActionBase):
    """On the controller, no module process: the check reads a few files there (a module
    process would cost a Python start and the module's imports on every deploy)."""

    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("devices", "configs_root", "network", "lab_configs"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        for name in ("devices", "configs_root", "network"):
            if name not in args:
                return dict(result, failed=True, msg=f"missing required arguments: {name}")
        if args.get("lab_configs") not in (None, "full", "day0"):
            return dict(result, failed=True, msg=f"lab_configs: {args['lab_configs']!r} is not one of full, day0")
        root = Path(args["configs_root"])
        dirs = {str(d): Path(folder) if folder else root / str(d) for d, folder in args["devices"].items()}
        # build/<network>/configs or build/<network>/lab/configs: the build root is above <network>
        build_root = next((a.parent for a in root.parents if a.name == args["network"]), root.parent)
        try:
            checks = run_stage(OnController(), "boothnet.deploy.preflight:preflight", dirs, args["network"],
                               args.get("lab_configs"), lock=(args["network"], build_root, False))
        except StageFailed as failed:
            return dict(result, failed=True, **failed.result)
        return dict(result, changed=False, intent={str(c.configs): c.intent.digest for c in checks if c.intent})
