"""Reach (a floor only): every host and device asked once over its own connection, and which of
the tools it has; what did not answer is kept on the Access, so later checks say ERROR for it."""

from __future__ import annotations

from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.floor.reach import reach_stage
from boothnet.validate.verdicts import guarded


class Reach(LiveCheck):
    name = "reach"
    order = 10

    def applies(self, ctx: Context) -> bool:
        return ctx.access.devices is not None

    def execute(self, ctx: Context) -> None:
        if self.applies(ctx):
            shells = sorted(ctx.net.endpoints) + sorted(d for d in ctx.net.devices if ctx.access.has_shell(d))
            guarded(ctx.stages, self.name, lambda: ctx.stages.append(reach_stage(shells, ctx.access, ctx.progress)),
                    None)


CHECK = Reach()
