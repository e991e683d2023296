"""Links (access, trunk, routed) between the devices' ports, and the endpoints on them."""

from __future__ import annotations

from typing import Any

from boothnet.intent.checks.base import MAX_MTU, MIN_MTU, CheckBase
from boothnet.intent.model import (
    Device,
    Endpoint,
    Link,
    Vlan,
)
from boothnet.platforms import parse_vlan_ranges, platforms


class LinkChecks(CheckBase):
    """Each link between two ports (what it carries, its MTU) and each endpoint's port."""

    # links ---------------------------------------------------------------------------------------
    def links(self) -> dict[str, str]:
        """Every link: its ends (each port used once), its kind of link, both ends alike, what it
        carries. Returns the ports used, by reference, for the endpoints' check."""
        file = self.src["links"]
        used: dict[str, str] = {}
        for index, link in enumerate(self.net.links):
            path = f"links[{index}]"
            ends = {}
            for side in ("a", "b"):
                ref = getattr(link, side)
                found = self._port(ref, file, f"{path}.{side}")
                if found is None:
                    continue
                if ref in used:
                    self.add(file, f"{path}.{side}", ref, f"a port used once (already used by {used[ref]})")
                used[ref] = f"{path}.{side}"
                ends[side] = found
            self._link_kind(link, ends, file, path)
            if len(ends) < 2:
                continue
            link_mtu = self._link_ends(link, ends["a"][1], ends["b"][1], file, path)
            self._link_carries(link, (ends["a"][0].name, ends["b"][0].name), link_mtu, file, path)
        return used

    def _link_kind(self, link: Link, ends: dict[str, tuple[Device, Any]], file: str, path: str) -> None:
        """What a WAN hop may be, and an MTU the ports' platforms take."""
        if link.wan and link.mode != "routed":
            self.add(file, f"{path}.mode", link.mode,
                     "routed: delay_ms, jitter_ms and loss_pct describe a WAN hop between routers")
        if link.jitter_ms > link.delay_ms:
            self.add(file, f"{path}.jitter_ms", link.jitter_ms,
                     f"at most delay_ms ({link.delay_ms}): a frame cannot leave before it arrived")
        if link.mtu is not None:
            known = platforms()
            limits = [known[d.platform].max_mtu for d, _ in ends.values() if d.platform in known]
            limit = min(limits, default=MAX_MTU)
            if not MIN_MTU <= link.mtu <= limit:
                self.add(file, f"{path}.mtu", link.mtu, f"{MIN_MTU}-{limit} (the ports' platforms)")

    def _link_ends(self, link: Link, port_a: Any, port_b: Any, file: str, path: str) -> int:
        """Both ends at one speed and one MTU; returns the link's MTU."""
        if port_a.speed != port_b.speed:
            self.add(file, f"{path}.speed", f"{link.a} speed {port_a.speed} vs {link.b} speed {port_b.speed}",
                     "the same speed (Mb/s) on both ends of a link")
        elif link.speed and link.speed > port_a.speed:
            self.add(file, f"{path}.speed", link.speed, f"at most the speed of the ports it joins ({port_a.speed})")
        mtu_a, mtu_b = port_a.mtu or link.mtu, port_b.mtu or link.mtu
        if mtu_a and mtu_b and mtu_a != mtu_b:
            self.add(file, f"{path}.mtu", f"{link.a} mtu {mtu_a} vs {link.b} mtu {mtu_b}",
                     "the same MTU on both ends of a link")
        elif link.mtu and (mtu_a or mtu_b) and link.mtu != (mtu_a or mtu_b):
            self.add(file, f"{path}.mtu", link.mtu,
                     f"the MTU of the ports it joins ({mtu_a or mtu_b} on {link.a if mtu_a else link.b})")
        return int(link.mtu or mtu_a or mtu_b or self.net.mtu_policy.default)

    def _link_carries(self, link: Link, devices: tuple[str, str], link_mtu: int, file: str, path: str) -> None:
        """A trunk's VLANs, an access link's VLAN, a routed link's two addresses in one subnet."""
        if link.mode == "trunk":
            carried = self._trunk_vlans(link, file, path)
            for vlan in carried:
                self._carry(vlan, devices, link_mtu, file, f"{path}.vlans",
                            f"VLANs with an MTU of at most the trunk MTU {link_mtu}")
            if not carried:
                self.add(file, f"{path}.vlans", link.vlans, "at least one known VLAN on a trunk")
        elif link.mode == "access":
            access = self._resolve_vlan(link.vlan) if link.vlan is not None else None
            if access is None:
                self.add(file, f"{path}.vlan", link.vlan, "a known VLAN id or name")
            else:
                self._carry(access, devices, link_mtu, file, f"{path}.vlan",
                            f"a VLAN with an MTU of at most the link MTU {link_mtu}")
        elif link.addresses is None:
            self.add(file, f"{path}.addresses", "missing", "addresses {a: A/len, b: B/len} on a routed link")
        elif link.addresses.a.network != link.addresses.b.network or link.addresses.a.ip == link.addresses.b.ip:
            self.add(file, f"{path}.addresses", f"{link.addresses.a} / {link.addresses.b}",
                     "two different addresses in one subnet")

    def _carry(self, vlan: Vlan, devices: tuple[str, str], link_mtu: int, file: str, path: str, allowed: str) -> None:
        """A link carries this VLAN: record where, and check it fits the link's MTU."""
        self.vlan_presence[vlan.id] += list(devices)
        self.vlan_on_ports.add(vlan.id)
        if self.net.vlan_mtu(vlan) > link_mtu:
            self.add(file, path, f"{vlan.name} (mtu {self.net.vlan_mtu(vlan)})", allowed)

    def _trunk_vlans(self, link: Link, file: str, path: str) -> list[Vlan]:
        carried: list[Vlan] = []
        for item in link.vlans:
            ids = parse_vlan_ranges([item])
            refs: list[int | str] = list(ids) if ids else [item]
            for ref in refs:
                vlan = self._resolve_vlan(ref)
                if vlan is None:
                    self.add(file, f"{path}.vlans", ref, "known VLAN ids, names or ranges like 110-125")
                else:
                    carried.append(vlan)
        return carried

    # endpoints -------------------------------------------------------------------------------------
    def endpoints(self, used: dict[str, str]) -> None:
        macs: dict[str, str] = {}  # MAC -> the endpoint that has it
        for name, endpoint in sorted(self.net.endpoints.items()):
            file, prefix = self.host_place(name)
            vlan = self._resolve_vlan(endpoint.vlan)
            self._endpoint_mac(name, endpoint, vlan, macs, file, prefix)
            if vlan is not None and vlan.bind_hosts and endpoint.attach in used:
                mode = next((link.mode for link in self.net.links if endpoint.attach in (link.a, link.b)), "host")
                self.add(file, f"{prefix}attach", endpoint.attach,
                         f"an access port of its own: VLAN {vlan.name} binds its hosts' ports to their MACs "
                         f"(bind_hosts), and {endpoint.attach} is a {mode} port ({used[endpoint.attach]})")
                continue
            if vlan is None:
                self.add(file, f"{prefix}vlan", endpoint.vlan, "a known VLAN name")
            elif endpoint.address not in vlan.subnet or endpoint.address == self.net.gateway_address(vlan):
                self.add(
                    file,
                    f"{prefix}address",
                    str(endpoint.address),
                    f"a host address in {vlan.subnet} other than the gateway {self.net.gateway_address(vlan)}",
                )
            found = self._port(endpoint.attach, file, f"{prefix}attach")
            if found is None:
                continue
            if endpoint.attach in used:
                self.add(
                    file,
                    f"{prefix}attach",
                    endpoint.attach,
                    f"a port used once (already used by {used[endpoint.attach]})",
                )
            used[endpoint.attach] = f"endpoint {name}"
            device, port = found
            if vlan is not None:
                self.vlan_presence[vlan.id].append(device.name)
                self.vlan_on_ports.add(vlan.id)
                if port.mtu and port.mtu < self.net.vlan_mtu(vlan):
                    self.add(
                        file,
                        f"{prefix}attach",
                        f"{endpoint.attach} (mtu {port.mtu})",
                        f"a port with an MTU of at least the VLAN MTU {self.net.vlan_mtu(vlan)}",
                    )


    def _endpoint_mac(self, name: str, endpoint: Endpoint, vlan: Vlan | None, macs: dict[str, str], file: str,
                      prefix: str) -> None:
        """A MAC in a usual form, unicast, one host's only; given wherever the VLAN binds ports."""
        if endpoint.mac is None:
            if vlan is not None and vlan.bind_hosts:
                self.add(file, f"{prefix}mac", "missing",
                         f"the host's MAC (such as 02:00:5e:10:30:12): VLAN {vlan.name} binds its hosts' ports "
                         "to their MACs (bind_hosts)")
            return
        mac = endpoint.mac_address
        if mac is None:
            self.add(file, f"{prefix}mac", endpoint.mac,
                     "a unicast MAC as 02:00:5e:10:30:12, 02-00-5e-10-30-12 or 0200.5e10.3012")
        elif mac in macs:
            self.add(file, f"{prefix}mac", endpoint.mac, f"a MAC of one host only (also {macs[mac]}'s)")
        else:
            macs[mac] = name

    def stranded_hosts(self) -> None:
        """Every host reaches its VLAN's gateway over links that carry the VLAN (a trunk whose
        list leaves the VLAN out strands the hosts behind it)."""
        for name, endpoint in sorted(self.net.endpoints.items()):
            vlan = self._resolve_vlan(endpoint.vlan)
            device = endpoint.attach.partition(":")[0]
            if vlan is None or device not in self.net.devices:
                continue
            routers = {vlan.gateway, *vlan.routers}
            reached, frontier = {device}, [device]
            while frontier:
                here = frontier.pop()
                for link in self.net.links:
                    ends = [link.a.partition(":")[0], link.b.partition(":")[0]]
                    if here in ends and self._carries(link, vlan):
                        for other in ends:
                            if other not in reached:
                                reached.add(other)
                                frontier.append(other)
            if not reached & routers:
                file, prefix = self.host_place(name)
                self.add(file, f"{prefix}vlan", vlan.name,
                         f"a VLAN carried from {device} to its gateway {vlan.gateway}: no chain of trunks or "
                         f"access links carrying {vlan.name} (VLAN {vlan.id}) joins them (a trunk's vlans list "
                         f"leaving it out?)")

    def _carries(self, link: Link, vlan: Vlan) -> bool:
        if link.mode == "trunk":  # run on an intent without errors: every VLAN it names is known
            return vlan in self.net.trunk_vlans(link)
        return link.mode == "access" and link.vlan is not None and self._resolve_vlan(link.vlan) == vlan
