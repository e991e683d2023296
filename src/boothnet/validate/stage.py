"""The validate stage: plan the tests from the intent, run them in the lab, judge them; the
results go to the report stage.

Each live check is one module of ``validate/checks/`` (the catalog); a run executes the catalog's
checks in their order, as its profile says: the measuring checks in one measurement turn of this
machine, or, when the profile does not measure, one SKIPPED stage naming them.
"""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime

from boothnet.locks import measurement_turn
from boothnet.progress import Observer, Progress, observed
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.access import Access, lab_access
from boothnet.validate.checks import Context, LiveCheck, catalog
from boothnet.validate.plan import isolation_plan
from boothnet.validate.profile import FULL, Profile
from boothnet.validate.results import Stage, ValidationResults
from boothnet.validate.vpn import lab_vpn, network_vpn

SEED_ENV = "BOOTHNET_ISOLATION_SEED"


def random_seed() -> int:
    """The isolation sample's seed: BOOTHNET_ISOLATION_SEED, else a new one each run (printed), so
    that run after run other ports get their chance."""
    value = os.environ.get(SEED_ENV, "").strip()
    return int(value) if value.isdigit() else random.SystemRandom().randrange(1_000_000)


def start(run: Run, profile: Profile, access: Access | None, progress: Observer) -> Context:
    """A run's context: how it reaches the network, the VPN, and the isolation sample."""
    net = run.net
    load_before = os.getloadavg()
    access = access or lab_access(net, run.layout.lab.resolve())
    floor = access.devices
    vpn = network_vpn(run, floor.stand_in_vlan_mode) if floor else lab_vpn(run, run.layout.lab.resolve())
    seed = profile.isolation_seed if profile.isolation_seed is not None else random_seed()
    plan = isolation_plan(net, seed)
    flows, coverage = plan.flows, plan.describe()
    if profile.share is not None:
        flows = [f for f in flows if profile.share(f"{f.src.name}>{f.dst.name}")]
        coverage = f"{len({(f.src.name, f.dst.name) for f in flows})} of {coverage}"
    progress(f"isolation: {coverage}; {SEED_ENV}={seed} repeats this sample")
    results = ValidationResults(network=net.name, zones=[v.name for v in net.vlans if not v.routers])
    return Context(run, access, profile, progress, results, load_before, flows, coverage, vpn)


def run_validate(run: Run, profile: Profile = FULL, access: Access | None = None,
                 progress: Progress = lambda _: None, extra_stages: list[Stage] | None = None) -> ValidationResults:
    """Every check of the catalog that ``profile`` runs, against the running lab, or against the
    network ``access`` reaches (a floor); ``extra_stages`` (a demo's) come first in the results."""
    ctx = start(run, profile, access, observed(progress))
    ctx.stages.extend(extra_stages or [])
    checks = catalog()

    def execute(check: LiveCheck) -> None:
        before = len(ctx.stages)
        check.execute(ctx)
        for stage in ctx.stages[before:]:
            ctx.progress.stage(stage.name, stage.status, stage.duration_s, stage.reason)

    measuring = [check for check in checks if check.measures and check.applies(ctx)]
    if measuring and not profile.throughput:
        ctx.stages.append(Stage(name="measurements", status=Status.SKIPPED,
                                reason=f"not requested ({profile.name}): {', '.join(c.name for c in measuring)}"))
    for check in checks:
        if check not in measuring or not profile.throughput:
            execute(check)
        elif check is measuring[0]:  # the measuring checks together, in one turn of this machine
            with measurement_turn(ctx.progress):
                for each in measuring:
                    execute(each)
    ctx.results.generated = datetime.now(UTC).isoformat(timespec="seconds")
    return ctx.results
