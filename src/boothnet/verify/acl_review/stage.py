"""Run the ACL review: base intent (a git ref) vs head (the working tree or a ref).

With a Batfish service: its differential questions on the Batfish view of both intents.
Without: boothnet's offline evaluator over both derived models, with Batfish reported SKIPPED.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from boothnet.derive import DeviceModel, derive_network
from boothnet.errors import IntentInvalid
from boothnet.family import FAMILIES
from boothnet.intent import Network, load_network
from boothnet.layout import Layout
from boothnet.progress import Progress
from boothnet.render.build import build_intent
from boothnet.verify.acl_review.base import inventory_at
from boothnet.verify.acl_review.batfish_flows import Entries, apply_answers, batfish_only, queries_for
from boothnet.verify.acl_review.endtoend import diff_end_to_end, icmpv6_kept
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
from boothnet.verify.batfish.service import ANY_SERVICE, BatfishAsk, find_host, service_status
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
    ask: BatfishAsk = ANY_SERVICE,
    progress: Progress = lambda _: None,
    edit_head: Callable[[dict[str, DeviceModel]], None] | None = None,
) -> AclReview:
    """Compare two inventories end to end and ACL by ACL; write build/<net>/review/acl_review.{json,md}.
    `edit_head` changes head's derived models (both the devices' and the Batfish view's) before
    anything is compared: a change the intent cannot state (an ACL taken off a device by hand)."""
    base_net, head_net = _load(base_inventory, base_label), _load(head_inventory, head_label)
    edit = edit_head or (lambda _models: None)
    out_dir = Layout(build_root, head_net.name).review
    progress(f"derive and render base ({base_label}) and head ({head_label})")
    base_models, head_models = derive_network(base_net), derive_network(head_net)
    edit(head_models)
    configs = {side: str(build_intent(net, build_root, subdir=f"review/{side}/configs", run_tools=False,
                                      models=models)[0].out_dir)
               for side, net, models in (("base", base_net, base_models), ("head", head_net, head_models))}
    review = AclReview(head_net.name, base_label, head_label, OFFLINE, "", configs=configs,
                       address_rules=AddressRule.of(head_net))
    review.against_intent = {side: [m.describe() for family in FAMILIES
                                    for m in PolicyPaths(net, models, family=family).mismatches()]
                             for side, net, models in (("base", base_net, base_models),
                                                       ("head", head_net, head_models))}
    progress("end to end: every representative flow walked hop by hop, base and head")
    e2e = diff_end_to_end(base_net, base_models, head_net, head_models)
    review.flow_changes, review.depth, review.states = e2e.changes, e2e.depth, e2e.states
    review.icmpv6 = icmpv6_kept(head_models)
    progress("ACL by ACL")
    diff = diff_models(base_net, base_models, head_net, head_models)
    review.stats = {"e2e_flows": e2e.flows, "flows": diff.flows, "acls": diff.acls, "decisions": diff.decisions}
    zones = ZoneMap.from_networks(head_net, base_net)
    status = service_status(find_host(ask.host, Layout(build_root, head_net.name).batfish_service), ask.require)
    if status.reachable:
        progress(f"Batfish at {status.host}: differential review")
        views: dict[str, Path] = {}
        entries: dict[str, Entries] = {}
        for side, net in (("base", base_net), ("head", head_net)):
            view_models = derive_network(net, batfish_context(net))
            if side == "head":
                edit(view_models)
            built, _ = build_intent(net, build_root, ctx=batfish_context(net), subdir=f"review/{side}/batfish",
                                    run_tools=False, models=view_models)
            leave_out_blind(built.out_dir, {name: m.platform for name, m in view_models.items()})  # verify's view
            views[side], entries[side] = built.out_dir, Entries(net, view_models)
        asked = queries_for(review.flow_changes, review.depth, entries["head"])
        intent = verify_intent_from_model(head_net)
        result = review_change(views["base"], views["head"], intent, out_dir / "batfish",
                               BatfishAsk(status.host, ask.require, f"{head_net.name}-review"),
                               layer1_edges=list(intent.links), flows=asked.queries, progress=progress)
        if result.status != Status.SKIPPED:
            review.method, review.batfish = BATFISH, f"ran at {status.host}"
            apply_answers(asked, result.flow_answers.get("base", []), result.flow_answers.get("change", []))
            # IPv6: Batfish 0.36 has no IPv6 ACL model, so the offline evaluator's changes stand alone
            ipv4: list[AclFinding] = []
            ipv6: list[AclFinding] = []
            for finding in diff.findings:
                (ipv6 if ":" in (finding.src_ip or "") else ipv4).append(finding)
            review.findings, review.disagreements = reconcile(from_batfish(result.changes, zones),
                                                              apply_gate(ipv4))
            review.findings += apply_gate(ipv6)
            if e2e.sides is not None:
                only, review.view_notes = batfish_only(result.reach, *e2e.sides)
                review.disagreements = only + review.disagreements
            write_review(review, out_dir)
            return review
        status_reason = result.reason or "Batfish did not answer"
    else:
        status_reason = status.skip_reason
    progress("Batfish SKIPPED: the offline evaluation stands alone")
    review.batfish = f"SKIPPED: {status_reason}"
    for change in review.flow_changes:
        change.batfish = "SKIPPED"
    review.findings = apply_gate(diff.findings)
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
        return review_intents(base_inv, head_inv, build_root, base, head or WORKING_TREE, BatfishAsk(host, require),
                              progress)
