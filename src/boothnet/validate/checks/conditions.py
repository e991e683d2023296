"""Conditions: what the measurements ran on (load before and after, kernel, cores, the tools'
versions). In the lab a 1-minute load above the cores makes the run busy: every namespace shares
this machine's CPUs, so a slow figure may be the machine's; the report says so beside the figures."""

from __future__ import annotations

import os
import platform

from boothnet.intent.model import Network
from boothnet.validate.access import Access
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.results import Conditions, ValidationResults
from boothnet.validate.verdicts import guarded


def _tool_versions(access: Access, host: str) -> dict[str, str]:
    """iperf3's and nuttcp's version lines on ``host`` (a measured host)."""
    versions = {}
    for tool, flag in (("iperf3", "--version"), ("nuttcp", "-V")):
        answer = access.runner(access.node(host), [tool, flag], 10)
        versions[tool] = (answer.output.strip().splitlines() or ["not found"])[0]
    return versions


def measured_conditions(access: Access, net: Network, load_before: tuple[float, ...]) -> Conditions:
    """The run's conditions. A floor's hosts carry their own load: only the lab can be busy."""
    load_after = os.getloadavg()
    cpus = os.cpu_count() or 1
    host = next((e.name for e in sorted(net.endpoints.values(), key=lambda e: e.name)
                 if not access.why_not(e.name, "iperf3", "nuttcp")), None)
    return Conditions(reached=access.kind, kernel=platform.release(), cpus=cpus,
                      load_before=[round(x, 2) for x in load_before], load_after=[round(x, 2) for x in load_after],
                      tools=_tool_versions(access, host) if host else {},
                      busy=access.forwards_here and max(load_before[0], load_after[0]) > cpus)


class MeasuredOn(LiveCheck):
    name = "conditions"
    order = 200

    def execute(self, ctx: Context) -> None:
        ctx.results.conditions = guarded(ctx.stages, self.name,
                                         lambda: measured_conditions(ctx.access, ctx.net, ctx.load_before), None)

    def first_screen(self, results: ValidationResults) -> str | None:
        c = results.conditions
        if c is None:
            return None
        tools = "; ".join(f"{version}" for version in c.tools.values())
        busy = (" BUSY: the machine was loaded beyond its cores while measuring: a slow throughput, WAN or sweep "
                "figure may be the machine's, not the network's." if c.busy else "")
        return (f"Measured on the {c.reached}: Linux {c.kernel}, {c.cpus} cores, load {c.load_before[0]:g} -> "
                f"{c.load_after[0]:g}; {tools}.{busy}")


CHECK = MeasuredOn()
