"""Plan the netns lab for an intent: substitute every device with frr_linux (an IOS or EOS
device's stand-in runs what its config reads as: boothnet.lab.standin), map port names to kernel
names, flatten trunks where the kernel has no 802.1Q, and render the lab configs.
"""

from __future__ import annotations

import json
from ipaddress import IPv4Address
from pathlib import Path

from boothnet.derive import DeriveContext, DeviceModel
from boothnet.intent import Network
from boothnet.lab.spec import HostAddress, LabEnd, LabLink, LabNode, LabSpec, VlanMode
from boothnet.lab.standin import StandIn, vendor_readings
from boothnet.layout import Layout
from boothnet.platforms import frr_linux
from boothnet.render.build import BuildResult, build
from boothnet.run import Run

LAB_PLATFORM = "frr_linux"
HOST_IFNAME = "eth0"


def port_map(net: Network) -> dict[str, dict[str, str]]:
    """Hardware port names become eth1..ethN in declaration order; Linux names stay."""
    mapping: dict[str, dict[str, str]] = {}
    for name, device in sorted(net.devices.items()):
        if device.platform == LAB_PLATFORM:
            mapping[name] = {p.name: p.name for p in device.ports}
        else:
            mapping[name] = {p.name: f"eth{i}" for i, p in enumerate(device.ports, start=1)}
    return mapping


def lab_context(net: Network, vlan_mode: VlanMode, stand_in: StandIn | None = None) -> DeriveContext:
    """Every device as frr_linux; with `stand_in`, each IOS/EOS device as its config reads."""
    # The lab kernel has no ESP: strongSwan's kernel-libipsec tunnels over a TUN device.
    return DeriveContext(
        platform_override=LAB_PLATFORM, port_map=port_map(net), vlan_mode=vlan_mode, tunnel_backend="libipsec",
        adjust=stand_in,
    )


def run_lab_context(run: Run, vlan_mode: VlanMode) -> DeriveContext:
    """The lab's context for a run: its vendor stand-ins built from the configs as read."""
    readings = run.once("vendor readings", lambda: vendor_readings(run, run.vendor_configs))
    return lab_context(run.net, vlan_mode, StandIn(readings))


def _endpoint_mgmt(net: Network) -> dict[str, IPv4Address]:
    used = {d.mgmt_address for d in net.devices.values()}
    hosts = net.settings.mgmt_subnet.hosts()
    next(hosts)  # the first address belongs to the management bridge
    free = (a for a in hosts if a not in used)
    return {name: next(free) for name in sorted(net.endpoints)}


def lab_models(run: Run, vlan_mode: VlanMode) -> dict[str, DeviceModel]:
    """The devices as the lab runs them, derived once per run and VLAN mode."""
    return run.models(f"lab {vlan_mode}", lambda _net: run_lab_context(run, vlan_mode))


def _lab_nodes(net: Network, config_root: Path) -> list[LabNode]:
    """A router node per device (its lab configs in ``config_root``), a host node per endpoint
    (its address, MTU and gateway in its VLAN)."""
    prefix = net.settings.mgmt_subnet.prefixlen
    nodes = [
        LabNode(name=name, kind="router", mgmt_address=f"{device.mgmt_address}/{prefix}",
                config_dir=str((config_root / name).resolve()))
        for name, device in sorted(net.devices.items())
    ]
    vlans = net.vlan_by_name()
    for name, mgmt in _endpoint_mgmt(net).items():
        endpoint = net.endpoints[name]
        vlan = vlans[endpoint.vlan]
        static6 = endpoint.address6 if vlan.ipv6 and vlan.ipv6.hosts == "static" else None
        address = HostAddress(HOST_IFNAME, f"{endpoint.address}/{vlan.subnet.prefixlen}", net.vlan_mtu(vlan),
                              str(net.gateway_address(vlan)), endpoint.mac_address,
                              f"{static6}/{vlan.ipv6.prefix.prefixlen}" if static6 and vlan.ipv6 else None)
        nodes.append(LabNode(name=name, kind="host", mgmt_address=f"{mgmt}/{prefix}", addresses=[address]))
    return nodes


def _lab_links(net: Network, ports: dict[str, dict[str, str]], vlan_mode: VlanMode) -> list[LabLink]:
    """A wire per link (per VLAN of a trunk in segment mode), and one per endpoint."""
    links: list[LabLink] = []
    for link in net.links:
        (dev_a, port_a), (dev_b, port_b) = link.a.split(":", 1), link.b.split(":", 1)
        speed, mtu = net.link_speed(link), net.link_mtu(link)
        name_a, name_b = ports[dev_a][port_a], ports[dev_b][port_b]
        label = link.key
        if link.mode == "trunk" and vlan_mode == "segment":
            links += [LabLink(LabEnd(dev_a, frr_linux.trunk_member(name_a, vlan.id, vlan_mode)),
                              LabEnd(dev_b, frr_linux.trunk_member(name_b, vlan.id, vlan_mode)),
                              speed, mtu, f"{label} vlan {vlan.id}")
                      for vlan in net.trunk_vlans(link)]
        else:
            links.append(LabLink(LabEnd(dev_a, name_a), LabEnd(dev_b, name_b), speed, mtu, label,
                                 link.delay_ms, link.jitter_ms, link.loss_pct))
    for name, endpoint in sorted(net.endpoints.items()):
        device, port = endpoint.attach.split(":", 1)
        links.append(LabLink(LabEnd(name, HOST_IFNAME), LabEnd(device, ports[device][port]),
                             net.port_index[endpoint.attach].speed, net.endpoint_mtu(endpoint),
                             f"{name} -- {endpoint.attach}"))
    return links


def plan_lab(
    intent: Run | Path, vlan_mode: VlanMode, build_root: Path = Path("build"), progress=lambda _: None
) -> tuple[LabSpec, BuildResult]:
    run = Run.of(intent, build_root)
    net = run.net
    ports = port_map(net)
    result = build(run, build_root, ctx=run_lab_context(run, vlan_mode), subdir="lab/configs", progress=progress,
                   context=f"lab {vlan_mode}")
    readings = run.once("vendor readings", lambda: vendor_readings(run, run.vendor_configs))
    if readings:
        progress("stand-ins run their configs as read: " + ", ".join(
            f"{name} ({r.hardware.platform}, {r.source})" for name, r in sorted(readings.items())))
    nodes = _lab_nodes(net, result.out_dir)
    links = _lab_links(net, ports, vlan_mode)
    spec = LabSpec(
        network=net.name,
        vlan_mode=vlan_mode,
        mgmt_subnet=str(net.settings.mgmt_subnet),
        nodes=nodes,
        links=links,
        port_map={d: m for d, m in ports.items() if net.devices[d].platform != LAB_PLATFORM},
        intent=str(run.inventory.resolve()),
    )
    port_map_file = Layout(build_root, net.name).lab / "port_map.json"
    port_map_file.write_text(json.dumps(spec.port_map, indent=1, sort_keys=True) + "\n")
    return spec, result
