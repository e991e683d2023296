"""The show network's uplink and the paths over it."""

from __future__ import annotations

from ipaddress import IPv4Network, ip_address

from boothnet.family import Family
from boothnet.intent.checks.base import CheckBase, own_next_hop


class PathChecks(CheckBase):
    """The uplink and the intent's paths over it."""

    def uplink_and_paths(self) -> None:
        uplink = self.net.uplink
        if uplink and uplink.device not in self.net.devices:
            self.add(self.src["uplink"], "uplink.device", uplink.device, "a known device")
        elif uplink:
            subnets = self._subnets_of(uplink.device)
            own = self._own_addresses(uplink.device, Family.V4).get(uplink.next_hop)
            if not any(ip_address(uplink.next_hop) in s for s in subnets):
                shown = ", ".join(str(s) for s in subnets) or "none"
                self.add(self.src["uplink"], "uplink.next_hop", str(uplink.next_hop),
                         f"an address on one of {uplink.device}'s links or VLANs ({shown}): the default route "
                         f"and the uplink firewall need the interface it leaves by")
            elif own is not None:
                self.add(self.src["uplink"], "uplink.next_hop", str(uplink.next_hop),
                         own_next_hop(uplink.device, own))
        seen: dict[str, int] = {}
        for index, path in enumerate(self.net.throughput.paths):
            for field, value in (("from", path.source), ("to", path.destination)):
                if value not in self.net.endpoints:
                    self.add(self.src["throughput"], f"throughput.paths[{index}].{field}", value, "a known endpoint")
            if path.name in seen:
                self.add(self.src["throughput"], f"throughput.paths[{index}].name", path.name,
                         f"a name no other path has (paths[{seen[path.name]}] has it): results are kept by name")
            seen.setdefault(path.name, index)
            if path.source == path.destination:
                self.add(self.src["throughput"], f"throughput.paths[{index}].to", path.destination,
                         f"another endpoint than the path's source {path.source} (a host to itself crosses no network)")


    def _subnets_of(self, device: str) -> list[IPv4Network]:
        """The subnets a device has an address in: its routed links, the VLANs it routes."""
        found = []
        for link in self.net.links:
            if link.mode == "routed" and link.addresses is not None:
                for side in ("a", "b"):
                    if getattr(link, side).partition(":")[0] == device:
                        found.append(getattr(link.addresses, side).network)
        found += [v.subnet for v in self.net.vlans if v.gateway == device or device in v.routers]
        return found
