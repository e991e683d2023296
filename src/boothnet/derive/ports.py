"""Each port's use on each device: the links and endpoints on it, in the device's port order."""

from __future__ import annotations

import re

from boothnet.derive.base import DeriverState, _PortUse, _split
from boothnet.derive.model import Interface, PortBinding
from boothnet.derive.policy import PortPolicy6
from boothnet.family import Family
from boothnet.intent.model import Device, Vlan


def bound_acl6_name(port: str) -> str:
    """A bound port's IPv6 port ACL: BOUND6_GIGABITETHERNET1_0_41."""
    return "BOUND6_" + re.sub(r"[^A-Za-z0-9]", "_", port).upper()


class PortUses(DeriverState):
    """Each port's use on each device: the links and endpoints on it, in the device's port order."""

    # ports -------------------------------------------------------------------------------------
    def _collect_port_uses(self) -> None:
        for link in self.net.links:
            mtu, speed = self.net.link_mtu(link), self.net.link_speed(link)
            for side, other in (("a", "b"), ("b", "a")):
                device, port = _split(getattr(link, side))
                peer_device, peer_port = _split(getattr(link, other))
                use = _PortUse(
                    port, link.mode, mtu, speed, f"to {peer_device} {peer_port}", peer=peer_device, link=link
                )
                if link.mode == "trunk":
                    use.vlans = self.net.trunk_vlans(link)
                elif link.mode == "access":
                    use.vlan = self.net.vlan(link.vlan)  # type: ignore[arg-type]  # checked: an access link has a VLAN
                else:
                    use.address = getattr(link.addresses, side)
                    use.address6 = getattr(link.addresses6, side) if link.addresses6 else None
                self.uses[device].append(use)
        for name, endpoint in sorted(self.net.endpoints.items()):
            device, port = _split(endpoint.attach)
            vlan = self.vlans_by_name[endpoint.vlan]
            speed = self.net.port_index[endpoint.attach].speed
            self.uses[device].append(
                _PortUse(
                    port,
                    "access",
                    self.net.endpoint_mtu(endpoint),
                    speed,
                    f"{name} ({endpoint.role})",
                    vlan=vlan,
                    peer=name,
                )
            )
        order = {d: {p.name: i for i, p in enumerate(dev.ports)} for d, dev in self.net.devices.items()}
        for device, uses in self.uses.items():
            uses.sort(key=lambda u: order[device][u.port])


    def _port_interfaces(self, device: Device) -> tuple[list[Interface], dict[int, Vlan]]:
        """The device's ports as interfaces (access, trunk or routed), and the VLANs they carry."""
        l2_vlans: dict[int, Vlan] = {}
        interfaces: list[Interface] = []
        for use in self.uses.get(device.name, []):
            name = self.ctx.port(device.name, use.port)
            if use.kind == "access":
                assert use.vlan is not None  # an access use is made with its VLAN
                l2_vlans[use.vlan.id] = use.vlan
                interfaces.append(Interface(name, "access", use.description, use.mtu, use.speed, vlan=use.vlan.id,
                                            binding=self._binding(name, use), edge=use.peer in self.net.endpoints))
            elif use.kind == "trunk":
                l2_vlans.update({vlan.id: vlan for vlan in use.vlans})
                interfaces.append(Interface(name, "trunk", use.description, use.mtu, use.speed,
                                            allowed_vlans=[v.id for v in use.vlans]))
            else:
                interfaces.append(Interface(name, "routed", use.description, use.mtu, use.speed, address=use.address,
                                            address6=use.address6))
        return interfaces, l2_vlans

    def _binding(self, port: str, use: _PortUse) -> PortBinding | None:
        """A host's port in a VLAN that binds its hosts: bound to the host's MAC and address, and
        in a dual-stack VLAN to its IPv6 address (an IPv4-only VLAN's ports filter no IPv6)."""
        endpoint = self.net.endpoints.get(use.peer or "")
        if use.vlan is None or endpoint is None or not self.net.port_bound(endpoint) or endpoint.mac_address is None:
            return None
        sources6 = self.net.bound_sources(endpoint, Family.V6)
        if sources6 is None:
            return PortBinding(use.vlan.id, (endpoint.mac_address,), (endpoint.address,))
        return PortBinding(use.vlan.id, (endpoint.mac_address,), (endpoint.address,), sources6,
                           bound_acl6_name(port),
                           tuple(PortPolicy6(self.net, endpoint, sources6).entries()))

    def _ospf_links(self) -> set[int]:
        """Routed links inside the booth run OSPF; links to the show network do not."""
        outside = {n for n, d in self.net.devices.items() if d.role == "show_network"}
        return {
            id(lk) for lk in self.net.links if lk.mode == "routed" and not {_split(lk.a)[0], _split(lk.b)[0]} & outside
        }
