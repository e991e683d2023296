"""The recorded Batfish answers beside the repo (../shared/batfish) and the hand-built intent
of their snapshot (core1/rsw1/bgw/hgw/isp)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from pybatfish.datamodel.answer import TableAnswer

from boothnet.verify.batfish.intent import (
    AclBinding,
    IfaceRef,
    L1Link,
    PathFlow,
    SecureNetwork,
    SwitchVlans,
    VerifyIntent,
    Zone,
)


def shared_batfish() -> Path:
    """`shared/batfish` beside the repo (or $BOOTHNET_SHARED/batfish); skip loudly if absent."""
    env = os.environ.get("BOOTHNET_SHARED")
    candidates = [Path(env)] if env else []
    here = Path(__file__).resolve()
    candidates += [p / ".." / "shared" for p in here.parents] + [p / "shared" for p in here.parents]
    for c in candidates:
        if (c / "batfish" / "answers" / "index.json").is_file():
            return (c / "batfish").resolve()
    pytest.skip("RECORDED BATFISH ANSWERS NOT FOUND: expected ../shared/batfish beside the repo "
                "(or set BOOTHNET_SHARED)")


def answer(name: str) -> pd.DataFrame:
    """A recorded answer as the same DataFrame a live `.answer().frame()` returns."""
    with open(shared_batfish() / "answers" / f"{name}.json") as fh:
        return TableAnswer(json.load(fh)).frame()


def configs_dir(snapshot: str = "base") -> Path:
    return shared_batfish() / snapshot / "configs"


def _link(a: str, ai: str, b: str, bi: str, mtu: int | None = None) -> L1Link:
    return L1Link(IfaceRef(a, ai), IfaceRef(b, bi), mtu)


def booth_intent() -> VerifyIntent:
    """What the intent says about the recorded mini booth."""
    return VerifyIntent(
        nodes=("core1", "rsw1", "bgw", "hgw", "isp"),
        switches=(SwitchVlans("core1", (10, 20, 110, 111)),
                  SwitchVlans("rsw1", (10, 20, 110, 111))),
        links=(_link("core1", "GigabitEthernet0/1", "rsw1", "Ethernet1", 9000),
               _link("core1", "GigabitEthernet0/24", "isp", "GigabitEthernet0/2"),
               _link("bgw", "GigabitEthernet0/0", "isp", "GigabitEthernet0/0"),
               _link("hgw", "GigabitEthernet0/0", "isp", "GigabitEthernet0/1")),
        zones=(Zone("production", ("10.10.0.0/16",),
                    (IfaceRef("core1", "Vlan10"), IfaceRef("core1", "Vlan20"))),
               Zone("research", ("10.110.0.0/16",),
                    (IfaceRef("core1", "Vlan110"), IfaceRef("core1", "Vlan111")))),
        allowed_services=(),
        secure=SecureNetwork(("10.200.1.0/24",), ("10.10.30.11", "10.10.30.12", "10.10.30.13"),
                             guard_node="hgw", guard_filter="SECURE_IN"),
        vpn_gateways=(("bgw", "hgw"),),
        flows=(PathFlow("client-to-secure", "bgw", "10.10.30.11", "10.200.1.10", 1400,
                        src_interface="GigabitEthernet0/1", proto="udp",
                        mss_clamp_at=(IfaceRef("bgw", "GigabitEthernet0/1"),)),),
        acl_interfaces=(AclBinding(IfaceRef("core1", "Vlan10"), "PROD_IN"),
                        AclBinding(IfaceRef("core1", "Vlan20"), "PROD_IN"),
                        AclBinding(IfaceRef("core1", "Vlan110"), "RESEARCH_IN"),
                        AclBinding(IfaceRef("core1", "Vlan111"), "RESEARCH_IN"),
                        AclBinding(IfaceRef("hgw", "GigabitEthernet0/1"), "SECURE_IN", "out")),
    )


def read_configs(snapshot: str = "base") -> dict[str, str]:
    return {f.stem: f.read_text() for f in sorted(configs_dir(snapshot).glob("*.cfg"))}


__all__ = ["answer", "booth_intent", "configs_dir", "read_configs", "shared_batfish"]
