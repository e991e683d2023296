"""Convergence: routing converges before anything is probed. Every permitted ping of the
isolation sample, and every booth VLAN's ping to the show network's next hop, passes once."""

from __future__ import annotations

import json
import time
from pathlib import Path

from boothnet.intent import Network
from boothnet.layout import model_of
from boothnet.poll import poll
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.paths import north_south
from boothnet.validate.perf.probes import ping
from boothnet.validate.plan import Flow
from boothnet.validate.results import Stage
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


def routing_off(lab_dir: Path | None) -> list[str]:
    """The lab's stand-ins that hold gateway addresses but route no IPv4, because the vendor config
    they run as read leaves routing off (EOS and Catalyst IOS default to off without `ip routing`)."""
    path = model_of(lab_dir / "configs") if lab_dir else None
    if path is None or not path.is_file():
        return []
    models = json.loads(path.read_text())
    return [f"{name} routes no IPv4 although it is the gateway of {', '.join(addresses)}: its config has "
            f"IPv4 routing off (no `ip routing`)"
            for name, model in sorted(models.items()) if not model.get("ip_routing", True)
            and (addresses := [i["address"] for i in model["interfaces"] if i.get("address")])]


def wait_converged(net: Network, access: Access, flows: list[Flow], timeout_s: float = 60) -> Stage:
    """Routing converges before probing: every permitted ping of the matrix must pass once, and
    so must every booth VLAN's ping to the show network's next hop (north-south)."""
    targets = {(f.src.name, f.dst_address): f"{f.src.name} -> {f.dst.name}{' (IPv6)' if f.family == 6 else ''}"
               for f in flows
               if f.proto == "icmp" and f.expected == "permit" and not access.why_not(f.src.name, "ping")}
    outside = [ns for ns in north_south(net) if not access.why_not(ns.src.name, "ping")]
    targets.update({(ns.src.name, str(ns.address)): f"north-south {ns.label}" for ns in outside})
    if not targets:  # a watch round's share may hold no permitted ping: routing unchecked is no PASS
        return Stage(name="convergence", status=Status.NOT_RUN,
                     reason="no permitted ping between VLANs, and none north-south, in this sample")
    pending = list(targets)
    started = time.monotonic()

    def still_pending() -> list[tuple[str, str]]:
        pending[:] = [(src, dst) for src, dst in pending
                      if not ping(access.runner, access.node(src), dst, count=1, wait_s=1).ok]
        return pending

    poll(still_pending, lambda left: not left, timeout_s)
    waited = round(time.monotonic() - started, 1)
    if pending:
        # how many still fail tells one dead adjacency (a few) from routing down (nearly all)
        names = f"{len(pending)} of {len(targets)} pings still fail: " + ", ".join(targets[key] for key in pending)
        causes = access.devices.ospf_down() if access.devices else routing_off(access.lab_dir)
        return Stage(
            name="convergence", status=Status.FAIL, duration_s=waited,
            reason=f"not converged after {timeout_s:g} s: {names}" + (f"; {'; '.join(causes)}" if causes else ""),
        )
    return Stage(name="convergence", status=Status.PASS, duration_s=waited,
                 note=f"{len(targets)} pings, {len(outside)} of them north-south")
