"""Action plugin: one device's part of a deploy run, reported as that host's own result."""

from __future__ import annotations

from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    """Runs on the controller, no module process: the deploy itself ran in one task for every
    device (boothnet_napalm_deploy); here each host gets changed, its diff and failed from it."""

    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("device", "run"))

    def run(self, tmp=None, task_vars=None):
        from boothnet.deploy.results import DeviceResult

        result = super().run(tmp, task_vars)
        device = self._task.args.get("device") or task_vars.get("inventory_hostname")
        done = (self._task.args.get("run") or {}).get(device)
        if done is None:
            return dict(result, failed=True, msg=f"{device}: not in the deploy run's results")
        record, commit = done["result"], done.get("commit")
        check = self._task.check_mode
        result.update(done)
        # a session the new policy denies, cut, is a change on the device too
        ended = (record.get("sessions") or {}).get("ended") and not check
        result["changed"] = bool(commit and (commit["committed"] or (check and commit["changed"]))) or bool(ended)
        if commit is not None:
            result["diff"] = {"before_header": f"{device} running", "after_header": f"{device} candidate",
                              "prepared": commit["diff"]}
        if not DeviceResult.from_dict(record).ok:
            result.update(failed=True, msg=f"{device}: {record['outcome']}: {record['reason']} "
                                           f"(config in force: {record['in_force']})")
        return result
