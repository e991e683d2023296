"""Action plugin: refuse a deploy of configs that were not built from the current intent."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_action import StageAction


class ActionModule(StageAction):
    """On the controller, no module process: the check reads a few files there (a module
    process would cost a Python start and the module's imports on every deploy)."""

    ARGS = {
        "devices": {"type": "dict", "required": True},
        "configs_root": {"type": "path", "required": True},
        "network": {"type": "str", "required": True},
        "lab_configs": {"type": "str", "choices": ["full", "day0"]},
    }

    def stage(self, args):
        root = Path(args["configs_root"])
        dirs = {str(d): Path(folder) if folder else root / str(d) for d, folder in args["devices"].items()}
        # build/<network>/configs or build/<network>/lab/configs: the build root is above <network>
        build_root = next((a.parent for a in root.parents if a.name == args["network"]), root.parent)
        checks = self.call("boothnet.deploy.preflight:preflight", dirs, args["network"], args["lab_configs"],
                           lock=(args["network"], build_root, False))
        return {"changed": False, "intent": {str(c.configs): c.intent.digest for c in checks if c.intent}}
