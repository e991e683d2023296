"""A day-0 lab shapes each wire before any deploy sets MTUs: the bucket must still fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from boothnet.deploy import ifstate
from boothnet.lab.plan import plan_lab
from boothnet.lab.shaping import htb_params
from tests.helpers import ROOT


@pytest.mark.parametrize("inventory", ["lab-mini", "sc-booth"])
@pytest.mark.parametrize("vlan_mode", ["segment", "dot1q"])
def test_deployed_mtus_never_exceed_the_mtu_day0_shaped_at(inventory: str, vlan_mode: str, tmp_path: Path) -> None:
    """Day 0 shapes at the wire's spec MTU (interfaces.ip is not applied); a deploy later
    sets each router port (and its VLAN sub-interfaces) from interfaces.ip, an EOS stand-in's
    switchports at the 9214-byte frames an EOS switchport carries whatever its layer-3 `mtu`
    (issue 66 item 9), above the wire's. The htb class must fit every MTU the deploy sets."""
    spec, result = plan_lab(ROOT / "inventories" / inventory, vlan_mode, tmp_path)  # type: ignore[arg-type]
    assert result.ok, result.findings
    routers = {n.name: ifstate.parse_batch((Path(n.config_dir or "") / "interfaces.ip").read_text())
               for n in spec.nodes if n.kind == "router"}
    checked = 0
    for link in spec.links:
        shaped = htb_params(link.speed_mbps, link.mtu)
        for end in (link.a, link.b):
            if end.node not in routers:
                continue
            state = routers[end.node]
            mtus = [i.mtu for i in state.values() if i.mtu and (i.name == end.ifname or i.parent == end.ifname)]
            for mtu in mtus:
                assert shaped["burst"] >= htb_params(link.speed_mbps, mtu)["burst"], \
                    f"{link.label}: {end.node}:{end.ifname} deployed at {mtu}: no room in a bucket shaped at {link.mtu}"
                checked += 1
    assert checked
