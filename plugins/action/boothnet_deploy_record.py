"""Action plugin: start or summarize a deploy run's records, on the controller."""

from __future__ import annotations

import shutil
from pathlib import Path

from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    """No module process: reading and writing a few JSON files on the controller does not need
    one (each costs a Python start and the module's imports)."""

    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("deploy_dir", "reset"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        try:
            from boothnet.deploy import results
        except ImportError:
            return dict(result, failed=True, msg="boothnet is not importable by the controller's Python")
        folder = Path(self._task.args["deploy_dir"])
        if self._task.args.get("reset", False):
            shutil.rmtree(folder / "results", ignore_errors=True)
            folder.mkdir(parents=True, exist_ok=True)
            results.write_summary(folder)
        records = results.load_results(folder)
        return dict(result, changed=False, summary=results.summarize(records), table=results.summary_table(records))
