"""Run one boothnet stage from an Ansible module, with the command line's error messages.

Every boothnet_* stage module is its DOCUMENTATION, its argument spec and one `run_stage` call:
boothnet's own errors become `fail_json` with the message `boothnet` prints for them, anything
else is reported as a bug in one line (the traceback only in the result's `exception`).
"""

from __future__ import annotations

import functools
import importlib
import sys
import traceback

# the argument specs of the doc fragment boothnet_stage (DOCUMENTATION and BATFISH)
STAGE_ARGS = {"inventory": {"type": "path", "required": True}, "build_dir": {"type": "path", "default": "build"}}
BATFISH_ARGS = {"batfish_host": {"type": "str", "default": ""}, "require_batfish": {"type": "bool", "default": False}}


class StageFailed(Exception):
    """`fail_json` of an action plugin's stage: the failed result, raised to the action."""

    def __init__(self, result: dict) -> None:
        super().__init__(result.get("msg", ""))
        self.result = result


class OnController:
    """What run_stage asks of a module, for a stage run by an action plugin on the controller
    (no module process: a Python start and the module's imports saved)."""

    def fail_json(self, **result):
        raise StageFailed(result)


def run_stage(module, target, *args, lock=None, takes_run=False, failed_with=None, unexpected=None, **kwargs):
    """`target` ("boothnet.<module>:<function>") called with the arguments, or the task failed
    the way the CLI fails the command. ``lock``: (inventory folder or network name, build_dir, lab)
    to hold the network's build lock (and its lab lock) meanwhile, as the `boothnet` command does.
    ``takes_run``: the first argument, the inventory folder, becomes a `boothnet.run.Run` of it,
    so that the lock and the stage read the intent once. ``failed_with``: facts a failed task
    returns too (a progress log); ``unexpected``: what an error boothnet did not foresee is
    reported as ("lab up failed"; default: a bug in boothnet)."""
    fail = functools.partial(module.fail_json, **(failed_with or {}))
    module_name, _, function = target.partition(":")
    try:
        from boothnet.errors import IntentInvalid, Refusal, RenderError
        from boothnet.locks import Busy, run_locks

        call = getattr(importlib.import_module(module_name), function)
    except ImportError as exc:
        fail(msg=f"boothnet is not importable by {sys.executable}: {exc}; "
                 "run with ansible_python_interpreter set to the .venv python")
    try:
        if lock is None:
            return call(*args, **kwargs)
        from boothnet.run import Run

        inventory, build_dir, lab = lock
        run = Run(inventory, build_dir) if not isinstance(inventory, str) else None
        if takes_run:
            args = (run, *args[1:])
        network = inventory if run is None else run.net.name
        with run_locks(build_dir, network, lab, command=f"ansible module {target}"):
            return call(*args, **kwargs)
    except Busy as exc:
        fail(msg=str(exc))
    except IntentInvalid as exc:
        fail(msg=exc.summary() + "\nnothing was written", errors=[str(e) for e in exc.errors])
    except RenderError as exc:
        fail(msg=f"render error: {exc}\nnothing was written")
    except Refusal as exc:
        fail(msg=str(exc), **{k: v for k, v in vars(exc).items() if k in ("problems",)})
    except Exception as exc:  # one line for the user, the traceback in `exception`
        bug = f"internal error: {type(exc).__name__}: {exc}; this is a bug in boothnet"
        fail(msg=f"{unexpected}: {exc}" if unexpected else bug, exception=traceback.format_exc())
