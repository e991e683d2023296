"""A boothnet stage as an action plugin: it runs on the controller, in the worker Ansible already
has, instead of a module process (a Python start, the module's packaging and its imports).

The stage's module file (plugins/modules) keeps its documentation and nothing else.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import (
    OnController,
    StageFailed,
    run_stage,
)


class StageAction(ActionBase):
    """`ARGS` is the argument spec; `stage(args)` returns the task's result (a failed one with
    failed=True). boothnet's errors fail the task with the messages the CLI prints."""

    TRANSFERS_FILES = False
    ARGS: dict = {}

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(self.ARGS)
        try:
            return {**result, **self.stage(args)}
        except StageFailed as failed:
            return {**result, "failed": True, **failed.result}

    def stage(self, args: dict) -> dict:
        raise NotImplementedError

    @staticmethod
    def call(target, *args, **kwargs):
        """run_stage's call on the controller (raises StageFailed)."""
        return run_stage(OnController(), target, *args, **kwargs)
