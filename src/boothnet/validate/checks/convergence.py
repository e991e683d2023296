"""Convergence: routing converges before anything is probed. Every permitted ping of the
isolation sample, and every booth VLAN's ping to the show network's next hop, passes once."""

from __future__ import annotations

import time

from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.run import wait_converged
from boothnet.validate.verdicts import guarded


class Convergence(LiveCheck):
    name = "convergence"
    order = 20
    stage_action = "routing did not converge: check OSPF on the routers (vtysh: show ip ospf neighbor)"

    def execute(self, ctx: Context) -> None:
        ctx.progress("waiting for routing to converge")
        ctx.settle_by = time.monotonic() + ctx.profile.convergence_timeout_s
        guarded(ctx.stages, self.name, lambda: ctx.stages.append(
            wait_converged(ctx.net, ctx.access, ctx.flows, ctx.profile.convergence_timeout_s)), None)
        ctx.progress(f"convergence: {ctx.stages[-1].status} in {ctx.stages[-1].duration_s} s")


CHECK = Convergence()
