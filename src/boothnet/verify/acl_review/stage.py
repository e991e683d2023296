"""Run the ACL review: base intent (a git ref) vs head (the working tree or a ref).

With a Batfish service: its differential questions on the Batfish view of both intents.
Without: boothnet's offline evaluator over both derived models, with Batfish reported SKIPPED.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from boothnet.derive import derive_network
from boothnet.errors import IntentInvalid
from boothnet.intent import Network, load_network
from boothnet.layout import Layout
from boothnet.progress import Progress
from boothnet.render.build import build
from boothnet.verify.acl_review.base import inventory_at
from boothnet.verify.acl_review.model import AclFinding, ReviewError, ZoneMap
from boothnet.verify.acl_review.offline import diff_models
from boothnet.verify.acl_review.report import (
    BATFISH,
    OFFLINE,
    AclReview,
    AddressRule,
    apply_gate,
    from_batfish,
    reconcile,
    write_review,
)
from boothnet.verify.batfish.blind import leave_out_blind
from boothnet.verify.batfish.from_intent import batfish_context, verify_intent_from_model
from boothnet.verify.batfish.report import Status
from boothnet.verify.batfish.review import review_change
from boothnet.verify.batfish.service import find_host, service_status
from boothnet.verify.policy import PolicyPaths

WORKING_TREE = "working tree"


def _load(inventory: Path, label: str) -> Network:
    try:
        return load_network(inventory)
    except IntentInvalid as exc:
        if label == WORKING_TREE:
            raise
        # The paths in the messages point into the scratch copy: say which commit they mean.
        raise ReviewError(f"the intent at {label!r} is invalid, so there is nothing to compare against:\n"
                          f"{exc.summary()}") from exc


def review_intents(
    base_inventory: Path,
    head_inventory: Path,
    build_root: Path,
    base_label: str,
    head_label: str = WORKING_TREE,
    host: str | None = None,
    require: bool = False,
    progress: Progress = lambda _: None,
) -> AclReview:
    """Compare two inventories' ACLs; write build/<net>/review/acl_review.{json,md}."""
    base_net, head_net = _load(base_inventory, base_label), _load(head_inventory, head_label)
    out_dir = Layout(build_root, head_net.name).review
    progress(f"render base ({base_label}) and head ({head_label})")
    configs = {
        side: str(build(inv, build_root, subdir=f"review/{side}/configs", run_tools=False).out_dir)
        for side, inv in (("base", base_inventory), ("head", head_inventory))
    }
    review = AclReview(head_net.name, base_label, head_label, OFFLINE, "", configs=configs,
                       address_rules=AddressRule.of(head_net))
    base_models, head_models = derive_network(base_net), derive_network(head_net)
    review.against_intent = {side: [m.describe() for family in (4, 6)
                                    for m in PolicyPaths(net, models, family=family).mismatches()]
                             for side, net, models in (("base", base_net, base_models),
                                                       ("head", head_net, head_models))}
    zones = ZoneMap.from_networks(head_net, base_net)
    status = service_status(find_host(host, Layout(build_root, head_net.name).batfish_service), require)
    if status.reachable:
        progress(f"Batfish at {status.host}: differential review")
        views = {
            side: build(inv, build_root, ctx=batfish_context(net), subdir=f"review/{side}/batfish", run_tools=False)
            for side, inv, net in (("base", base_inventory, base_net), ("head", head_inventory, head_net))
        }
        for side, models in (("base", base_models), ("head", head_models)):  # the view verify loads
            leave_out_blind(views[side].out_dir, {name: m.platform for name, m in models.items()})
        intent = verify_intent_from_model(head_net)
        result = review_change(views["base"].out_dir, views["head"].out_dir, intent, out_dir / "batfish",
                               host=status.host, require=require, layer1_edges=list(intent.links),
                               network=f"{head_net.name}-review")
        if result.status != Status.SKIPPED:
            review.method, review.batfish = BATFISH, f"ran at {status.host}"
            offline = diff_models(base_net, base_models, head_net, head_models)
            # IPv6: Batfish 0.36 has no IPv6 ACL model, so the offline evaluator's changes stand alone
            ipv4: list[AclFinding] = []
            ipv6: list[AclFinding] = []
            for finding in offline.findings:
                (ipv6 if ":" in (finding.src_ip or "") else ipv4).append(finding)
            review.findings, review.disagreements = reconcile(from_batfish(result.changes, zones),
                                                              apply_gate(ipv4))
            review.findings += apply_gate(ipv6)
            write_review(review, out_dir)
            return review
        status_reason = result.reason or "Batfish did not answer"
    else:
        status_reason = status.skip_reason
    progress("offline evaluation (Batfish SKIPPED)")
    review.batfish = f"SKIPPED: {status_reason}"
    diff = diff_models(base_net, base_models, head_net, head_models)
    review.findings = apply_gate(diff.findings)
    review.stats = {"flows": diff.flows, "acls": diff.acls, "decisions": diff.decisions}
    write_review(review, out_dir)
    return review


def run_acl_review(
    inventory: Path,
    build_root: Path = Path("build"),
    base: str = "HEAD",
    head: str | None = None,
    host: str | None = None,
    require: bool = False,
    progress: Progress = lambda _: None,
) -> AclReview:
    """The intent at `base` vs the working tree (or the intent at `head`)."""
    build_root.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        progress(f"intent at {base}")
        base_inv = stack.enter_context(inventory_at(inventory, base, build_root))
        head_inv = stack.enter_context(inventory_at(inventory, head, build_root)) if head else inventory
        return review_intents(base_inv, head_inv, build_root, base, head or WORKING_TREE, host, require, progress)
