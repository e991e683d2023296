"""VLANs: ids, names, MTUs, where each is carried, subnets and every address in them."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

from boothnet.family import Family
from boothnet.intent.checks.base import MAX_MTU, MIN_MTU, CheckBase, overlaps
from boothnet.intent.model import Vlan
from boothnet.platforms import platforms


def _host_address_problem(address: IPv4Address | IPv6Address, subnet: IPv4Network | IPv6Network,
                          slash31: bool) -> str | None:
    if subnet.prefixlen == 32:
        return None
    if subnet.prefixlen == 31:
        return None if slash31 else f"not in a /31 on this platform (no RFC 3021): a /30 or larger than {subnet}"
    if address == subnet.network_address:
        return f"a host address in {subnet}, not its network address"
    if address == subnet.broadcast_address:
        return f"a host address in {subnet}, not its broadcast address"
    return None


class VlanChecks(CheckBase):
    """Each VLAN, where it is carried, its subnet and every address claimed in it."""

    # vlans -------------------------------------------------------------------------------------
    def vlans(self) -> None:
        file = self.src["vlans"]
        for index, vlan in enumerate(self.net.vlans):
            path = f"vlans[{index}]"
            if not 1 <= vlan.id <= 4094:
                self.add(file, f"{path}.id", vlan.id, "a VLAN ID in 1-4094")
            if vlan.id in self.vlans_by_id:
                self.add(file, f"{path}.id", vlan.id, f"unique VLAN IDs (also vlans[{self.vlans_by_id[vlan.id][0]}])")
            else:
                self.vlans_by_id[vlan.id] = (index, vlan)
            if vlan.name in self.vlans_by_name:
                self.add(
                    file,
                    f"{path}.name",
                    vlan.name,
                    f"unique VLAN names (also vlans[{self.vlans_by_name[vlan.name][0]}])",
                )
            else:
                self.vlans_by_name[vlan.name] = (index, vlan)
            mtu = self.net.vlan_mtu(vlan)
            if not MIN_MTU <= mtu <= MAX_MTU:
                self.add(file, f"{path}.mtu", mtu, f"{MIN_MTU}-{MAX_MTU}")
            gateway = self.net.devices.get(vlan.gateway)
            if gateway is None:
                self.add(
                    file, f"{path}.gateway", vlan.gateway, "a known device: " + ", ".join(sorted(self.net.devices))
                )
            else:
                self.vlan_presence[vlan.id].append(vlan.gateway)
            if vlan.subnet.prefixlen > 30:
                self.add(file, f"{path}.subnet", str(vlan.subnet),
                         "a VLAN subnet of /30 or larger (a gateway and hosts)")
                continue
            self._vlan_gateway(vlan, file, path)
            self._vlan_routers(vlan, file, path, Family.V4)

    def _vlan_gateway(self, vlan: Vlan, file: str, path: str) -> None:
        """The VLAN's gateway address, a host address in its subnet."""
        address = self.net.gateway_address(vlan)
        if address not in vlan.subnet or address in (vlan.subnet.network_address, vlan.subnet.broadcast_address):
            self.add(file, f"{path}.gateway_address", str(address), f"a host address in {vlan.subnet}")

    def vlan_carriage(self) -> None:
        file = self.src["vlans"]
        known = platforms()
        for index, vlan in enumerate(self.net.vlans):
            present = self.vlan_presence.get(vlan.id, [])
            if vlan.id not in self.vlan_on_ports:
                self.add(
                    file,
                    f"vlans[{index}]",
                    vlan.name,
                    "a VLAN carried on at least one port (access, trunk or endpoint)",
                )
            for device_name in sorted(set(present)):
                device = self.net.devices.get(device_name)
                platform = known.get(device.platform) if device else None
                if platform and vlan.id in platform.reserved_vlans:
                    self.add(
                        file,
                        f"vlans[{index}].id",
                        vlan.id,
                        f"not reserved on {platform.name} ({device_name}): reserved {platform.reserved_text()}",
                    )

    # addressing ----------------------------------------------------------------------------------------
    def subnets(self) -> None:
        spans: list[tuple[IPv4Network, str, str]] = [
            (vlan.subnet, self.src["vlans"], f"vlans[{i}].subnet") for i, vlan in enumerate(self.net.vlans)
        ]
        for i, link in enumerate(self.net.links):
            if link.addresses is not None:
                spans.append((link.addresses.a.network, self.src["links"], f"links[{i}].addresses"))
        spans.append((self.net.settings.mgmt_subnet, self.src["network"], "network.mgmt_subnet"))
        for span, widest in overlaps(spans):
            self.add(span[1], span[2], str(span[0]),
                     f"a subnet that overlaps no other (overlaps {widest[2]} {widest[0]})")

    def addresses(self) -> None:
        """Every address on a device, gateway, router interface, link or host: a host address of
        its subnet (a /31 holds two per RFC 3021 where the platform allows it) and used once."""
        known = platforms()
        owners: dict[IPv4Address | IPv6Address, str] = {}
        for address, subnet, device, where, who in self._claims(Family.V4):
            platform = known.get(self.net.devices[device].platform) if device in self.net.devices else None
            if subnet is not None and address in subnet:
                problem = _host_address_problem(address, subnet, platform.slash31 if platform else True)
                if problem:
                    self.add(*where, str(address), problem)
            if address in owners:
                self.add(*where, str(address), f"a unique address (also {owners[address]})")
            else:
                owners[address] = who
