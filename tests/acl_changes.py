"""The intent changes the end-to-end gate is tried on, shared by the offline tests and the live
Batfish ones: each edits a copy of a reference inventory's policy (or head's derived models,
for a change the intent cannot state: an ACL taken off a device)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from ipaddress import ip_address, ip_network
from pathlib import Path
from typing import Any

import yaml

from boothnet.derive import DeviceModel
from boothnet.derive.model import Route
from boothnet.verify.acl_review.report import AclReview
from boothnet.verify.acl_review.stage import review_intents
from boothnet.verify.batfish.service import BatfishAsk
from tests.helpers import ROOT

PolicyEdit = Callable[[dict[str, Any]], None]


def drop_acl(device: str, acl: str) -> Callable[[dict[str, DeviceModel]], None]:
    """Head's `device` without `acl` (and its binding): a layer removed."""

    def edit(models: dict[str, DeviceModel]) -> None:
        model = models[device]
        assert any(a.name == acl for a in model.acls), f"{device} has no ACL {acl}"
        model.acls = [a for a in model.acls if a.name != acl]
        for iface in model.interfaces:
            for attr in ("acl_in", "acl_out", "acl6_in", "acl6_out"):
                if getattr(iface, attr) == acl:
                    setattr(iface, attr, None)

    return edit


def rule(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in data["policy"]["rules"] if r["name"] == name)


def widen_source(name: str, to: str) -> PolicyEdit:
    def edit(data: dict[str, Any]) -> None:
        rule(data, name)["from"] = to

    return edit


def remove_rule(name: str) -> PolicyEdit:
    def edit(data: dict[str, Any]) -> None:
        data["policy"]["rules"].remove(rule(data, name))

    return edit


def insert_rule(**fields: Any) -> PolicyEdit:
    """A rule put first (on base: what head then removes)."""

    def edit(data: dict[str, Any]) -> None:
        data["policy"]["rules"].insert(0, {key.rstrip("_"): value for key, value in fields.items()})

    return edit


# sc-booth's research may not reach the theater's web (base), then may (head: the rule removed)
NO_RESEARCH_TO_THEATER_WEB = insert_rule(name="research-not-theater-web", from_="zone:research", to="vlan:theater",
                                         proto="tcp", ports=[80], action="deny")


def _edit_policy(inventory: Path, edit: PolicyEdit) -> None:
    policy = inventory / "group_vars" / "all" / "policy.yml"
    data = yaml.safe_load(policy.read_text())
    edit(data)
    policy.write_text(yaml.safe_dump(data, sort_keys=False))


def review_change(tmp_path: Path, network: str, head: PolicyEdit | None = None, base: PolicyEdit | None = None,
                  models: Callable[[dict[str, DeviceModel]], None] | None = None, host: str | None = None,
                  build: str = "build") -> AclReview:
    """Copies of inventories/<network> as base and head, edited, reviewed."""
    for side, edit in (("base", base), ("head", head)):
        if not (tmp_path / side).exists():
            shutil.copytree(ROOT / "inventories" / network, tmp_path / side)
            if edit is not None:
                _edit_policy(tmp_path / side, edit)
    return review_intents(tmp_path / "base", tmp_path / "head", tmp_path / build, "HEAD", ask=BatfishAsk(host),
                          edit_head=models)


def add_static(device: str, prefix: str, next_hop: str) -> Callable[[dict[str, DeviceModel]], None]:
    """Head's `device` with a static route of its own: a routing change."""

    def edit(models: dict[str, DeviceModel]) -> None:
        models[device].routes.append(Route(ip_network(prefix), ip_address(next_hop), "planted by the review's test"))

    return edit


def drop_return_lines(device: str, acl: str) -> Callable[[dict[str, DeviceModel]], None]:
    """Head's `acl` on `device` without its return lines: on a stateless device, the replies of
    what the other side opens have nothing left to pass them."""

    def edit(models: dict[str, DeviceModel]) -> None:
        target = next(a for a in models[device].acls if a.name == acl)
        kept = [e for e in target.entries if not e.return_traffic]
        assert len(kept) < len(target.entries), f"{device} {acl} has no return lines"
        target.entries[:] = kept

    return edit
