"""Validate a booth's own network (its floor): hosts over Ansible's connections, switches and
routers over NAPALM, as deploy-hw reaches them; never a network namespace."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from boothnet.deploy.batch import sessions
from boothnet.deploy.lldp import intent_ports
from boothnet.intent.model import Network
from boothnet.lab import lab_ifnames, port_map
from boothnet.validate.access import Access, FloorDevices, floor_access
from boothnet.validate.drift import DriftTarget
from boothnet.validate.floor.ansible_runner import AnsibleRunner


@contextmanager
def reach_floor(net: Network, devices: list[DriftTarget], hosts: Mapping[str, Mapping[str, Any]],
                stand_in_vlan_mode: str | None = None) -> Iterator[Access]:
    """The floor as validate reaches it, for the block: a NAPALM session per device (opened in
    parallel, closed on the way out), the hosts (endpoints, and routers with a shell) through
    Ansible's connection plugins. ``stand_in_vlan_mode``: the floor is the lab's stand-ins, reached
    over its management network (their eth<N> port names)."""
    with sessions({d.device: d.target for d in devices}) as opened:
        floor = FloorDevices(
            sessions=opened, drift=devices,
            port_names=lab_ifnames(net, stand_in_vlan_mode) if stand_in_vlan_mode else intent_ports,
            stand_in_ports=port_map(net) if stand_in_vlan_mode else {},
            stand_in_vlan_mode=stand_in_vlan_mode or None)
        yield floor_access(AnsibleRunner(hosts, net.name), floor)
