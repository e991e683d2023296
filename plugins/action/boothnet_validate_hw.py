"""Action plugin: boothnet's validate stage on the booth's own network, on the controller (where
Ansible's connection plugins reach the endpoints)."""

from __future__ import annotations

from pathlib import Path

from ansible.utils.display import Display
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_napalm import (
    SECRETS_SPEC,
    devices_spec,
    secrets,
    target,
)
from ansible_collections.boothnet.boothnet.plugins.module_utils.boothnet_stage import STAGE_ARGS, OnController
from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_action import StageAction


class ActionModule(StageAction):
    ARGS = {**STAGE_ARGS,
            "devices": devices_spec(**SECRETS_SPEC, config_dir={"type": "path", "required": True}),
            "hosts": {"type": "dict", "required": True, "no_log": True},
            "lab_vlan_mode": {"type": "str", "default": ""},
            "throughput": {"type": "bool", "default": True},
            "wan_sweep": {"type": "bool", "default": True},
            "watch": {"type": "dict", "required": False}}

    def stage(self, args):
        from boothnet.validate.drift import DriftTarget

        controller = OnController()
        devices = [DriftTarget(d["device"], target(controller, d), Path(d["config_dir"]), secrets(controller, d))
                   for d in args["devices"]]
        inventory, build_dir, log = Path(args["inventory"]), Path(args["build_dir"]), []

        def progress(line: str) -> None:  # shown as it happens: a floor validation takes minutes
            log.append(line)
            Display().display(f"  .. {line}")
        if args["watch"]:  # boothnet watch: rounds until stopped, each line shown as it comes
            status, page = self.call("boothnet.watch.loop:watch_floor", inventory, build_dir, devices,
                                     args["hosts"], args["lab_vlan_mode"] or None, args["watch"], progress)
            verdict = "PASS" if status == 0 else "FAIL: alarms open"
            return {"changed": False, "log": log, "headline": f"watch stopped; last round {verdict}", "failures": [],
                    "report": str(page), **({"failed": True, "msg": verdict} if status else {})}
        published = self.call("boothnet.report.publish:validate_floor_and_report", inventory, devices,
                              args["hosts"], args["lab_vlan_mode"] or None, lock=(inventory, build_dir, False),
                              takes_run=True, failed_with={"log": log}, progress=progress,
                              throughput=args["throughput"], wan_sweep=args["wan_sweep"])
        facts = {"changed": False, "log": log, **published.facts()}
        if published.summary.overall == "FAIL":
            return {**facts, "failed": True, "msg": published.summary.headline}
        return facts
