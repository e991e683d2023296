"""The routers a check reaches as deploy does (``DriftTarget``): the lab's, from its generated
inventory; a floor's come from its devices. The drift check (``checks/drift.py``) and the OSPF
check read them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from boothnet.deploy.steps import Secrets, Target

# the lab inventory's host vars the deploy role hands the frr_linux driver (roles/deploy/tasks)
_OPTIONAL = {"pathspace": "boothnet_frr_pathspace", "netns": "boothnet_netns",
             "state_dir": "boothnet_deploy_state_dir", "strongswan_conf": "boothnet_strongswan_conf",
             "swanctl_conf": "boothnet_swanctl_conf", "swanctl_uri": "boothnet_swanctl_uri",
             "key_file": "ansible_ssh_private_key_file", "lldp_socket": "boothnet_lldp_socket"}


@dataclass(frozen=True)
class DriftTarget:
    device: str
    target: Target
    config_dir: Path
    secrets: Secrets


def lab_targets(lab_dir: Path) -> list[DriftTarget]:
    """The lab's routers as the deploy role reaches them, from the lab's generated inventory."""
    data: dict[str, Any] = yaml.safe_load((lab_dir / "inventory.yml").read_text(encoding="utf-8"))
    shared = data["all"].get("vars") or {}
    routers = (data["all"]["children"].get("routers") or {}).get("hosts") or {}
    out = []
    for device, host_vars in sorted(routers.items()):
        found = {**shared, **(host_vars or {})}
        optional = {arg: found[var] for arg, var in _OPTIONAL.items() if var in found}
        optional["known_hosts"] = str(lab_dir / "known_hosts")
        psk = found.get("boothnet_vpn_psk_file")
        target = Target(hostname=found["ansible_host"], username=found.get("ansible_user", "root"),
                        optional_args=optional)
        out.append(DriftTarget(device, target, Path(found["boothnet_config_dir"]),
                               Secrets(files={"BOOTHNET_VPN_PSK": psk} if psk else {})))
    return out
