"""The VPN a run checks: the tunnel's ends, client, secured host and inner MTU, from the intent
and the lab's derived model (``LabVpn``; None where the network has no VPN). The checks of it are
the VPN check's (``checks/vpn.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

from boothnet.derive.policy import compiler_of
from boothnet.intent.model import Endpoint
from boothnet.lab import (
    lab_models,
    read_state,
)
from boothnet.run import Run


@dataclass(frozen=True)
class LabVpn:
    name: str
    booth_gw: str
    home_gw: str
    booth_outside: IPv4Address
    home_outside: IPv4Address
    booth_outside_if: str
    home_outside_if: str
    inner_mtu: int  # what the lab's tunnel carries
    intent_inner_mtu: int
    client: Endpoint  # a listed client
    secured: Endpoint  # a host in the secured network
    service_port: int  # a TCP port the policy opens from the clients to the secured network
    protected: list[IPv4Network]  # both sides' protected subnets
    dpd_delay_s: int


def lab_vpn(run: Run, lab_dir: Path) -> LabVpn | None:
    """The tunnel as the running lab has it (lab port names, backend-capped MTU)."""
    state = read_state(lab_dir)
    return None if state is None else network_vpn(run, state.vlan_mode)


def network_vpn(run: Run, stand_in_vlan_mode: str | None) -> LabVpn | None:
    """The tunnel as the network runs it: the lab's stand-ins (``stand_in_vlan_mode``: their
    port names, the backend-capped MTU) or the booth's own gateways (the intent's)."""
    net = run.net
    if net.vpn is None:
        return None
    models = lab_models(run, stand_in_vlan_mode) if stand_in_vlan_mode else run.models("hardware")  # type: ignore[arg-type]  # a VLAN mode
    booth, home = models[net.vpn.booth_gateway].vpn, models[net.vpn.home_gateway].vpn
    if booth is None or home is None:
        return None
    clients = compiler_of(net).prefixes(net.vpn.clients)
    listed = sorted((e for e in net.endpoints.values() if any(p is not None and e.address in p for p in clients)),
                    key=lambda e: e.name)
    secured = sorted(
        (e for e in net.endpoints.values() if any(e.address in p for p in booth.remote_subnets)), key=lambda e: e.name
    )
    # sshd holds 22 on every node: a port of the policy's own for the transfer
    rules = [r for r in net.policy.rules if r.source == net.vpn.clients and r.proto == "tcp"]
    ports = [p for r in rules for p in r.ports if p != 22]
    if not listed or not secured or not ports:
        return None
    return LabVpn(
        name=net.vpn.name,
        booth_gw=net.vpn.booth_gateway,
        home_gw=net.vpn.home_gateway,
        booth_outside=booth.local_address,
        home_outside=home.local_address,
        booth_outside_if=booth.outside_interface,
        home_outside_if=home.outside_interface,
        inner_mtu=booth.inner_mtu,
        intent_inner_mtu=booth.intent_inner_mtu,
        client=listed[0],
        secured=secured[0],
        service_port=ports[0],
        protected=booth.local_subnets + booth.remote_subnets,
        dpd_delay_s=booth.dpd_delay_s,
    )

