"""Stage 6, lab: the intent in, the network running in Linux network namespaces out (or a
containerlab topology); `doctor` checks what the lab needs. See labs/README.md. Next: deploy
into it, then validate.

What other stages may use of the lab is named here (import-linter holds validate, watch and
report to it). The names load on first use: a delay line or a charon started as
``python -m boothnet.lab...`` must not import the whole lab first."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boothnet.lab.kernel import detect_vlan_mode
    from boothnet.lab.lldp import lab_ifnames, neighbours
    from boothnet.lab.names import ns_name
    from boothnet.lab.net import add_delay_link, add_link, create_namespace, remove_namespace
    from boothnet.lab.plan import HOST_IFNAME, lab_models, port_map
    from boothnet.lab.services import delay_lines_behind
    from boothnet.lab.shaping import shape
    from boothnet.lab.spec import LabEnd, LabLink, VlanMode
    from boothnet.lab.state import LabState, read_state
    from boothnet.lab.strongswan import (
        RETRANSMIT_GIVE_UP_S,
        CharonPaths,
        charon_env,
        child_installed,
        child_sa_installed,
        ike_sa_ids,
        restart_charon,
        run_charon,
    )

_WHERE = {
    "boothnet.lab.kernel": ["detect_vlan_mode"],
    "boothnet.lab.lldp": ["lab_ifnames", "neighbours"],
    "boothnet.lab.names": ["ns_name"],
    # scratch topologies (calibrations) built from the lab's own parts
    "boothnet.lab.net": ["add_delay_link", "add_link", "create_namespace", "remove_namespace"],
    "boothnet.lab.plan": ["HOST_IFNAME", "lab_models", "port_map"],
    "boothnet.lab.services": ["delay_lines_behind"],
    "boothnet.lab.shaping": ["shape"],
    "boothnet.lab.spec": ["LabEnd", "LabLink", "VlanMode"],
    "boothnet.lab.state": ["LabState", "read_state"],
    "boothnet.lab.strongswan": ["RETRANSMIT_GIVE_UP_S", "CharonPaths", "charon_env", "child_installed",
                                "child_sa_installed", "ike_sa_ids", "restart_charon", "run_charon"],
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}
__all__ = [
    "CharonPaths",
    "HOST_IFNAME",
    "LabEnd",
    "LabLink",
    "LabState",
    "RETRANSMIT_GIVE_UP_S",
    "VlanMode",
    "add_delay_link",
    "add_link",
    "charon_env",
    "child_installed",
    "child_sa_installed",
    "create_namespace",
    "delay_lines_behind",
    "detect_vlan_mode",
    "ike_sa_ids",
    "lab_ifnames",
    "lab_models",
    "neighbours",
    "ns_name",
    "port_map",
    "read_state",
    "remove_namespace",
    "restart_charon",
    "run_charon",
    "shape",
]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_MODULE_OF[name]), name)
