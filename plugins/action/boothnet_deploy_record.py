"""Action plugin: start or summarize a deploy run's records, on the controller."""

from __future__ import annotations

import shutil
from pathlib import Path

from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_action import StageAction


class ActionModule(StageAction):
    """No module process: reading and writing a few JSON files on the controller does not need
    one (each costs a Python start and the module's imports)."""

    ARGS = {"deploy_dir": {"type": "path", "required": True}, "reset": {"type": "bool", "default": False}}

    def stage(self, args):
        try:
            from boothnet.deploy import results
        except ImportError:
            return {"failed": True, "msg": "boothnet is not importable by the controller's Python"}
        folder = Path(args["deploy_dir"])
        if args["reset"]:
            shutil.rmtree(folder / "results", ignore_errors=True)
            folder.mkdir(parents=True, exist_ok=True)
            results.write_summary(folder)
        records = results.load_results(folder)
        return {"changed": False, "summary": results.summarize(records), "table": results.summary_table(records)}
