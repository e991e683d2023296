"""IPv6: each VLAN's prefix and gateway, routed links' addresses, hosts' addresses, the uplink's
IPv6 next hop. A network without IPv6 has nothing checked here."""

from __future__ import annotations

from collections.abc import Iterator
from ipaddress import IPv4Address, IPv6Address, IPv6Network

from boothnet.errors import IntentError
from boothnet.family import Family
from boothnet.intent.checks.base import MIN_MTU, MIN_MTU6, CheckBase, not_global, overlaps, own_next_hop

IPV6_NOT_YET = ("IPv6 is rendered (addresses, router advertisements, ACLs, OSPFv3, the uplink's filter) and "
                "validated in both families (isolation, endpoints, MTU, OSPFv3 adjacencies, throughput, WAN paths), "
                "with IPv6 flows decided by the offline evaluator where Batfish 0.36 traces none; a SLAAC host "
                "without a mac in the intent is probed in IPv4 only")
# what a bound port admits in a SLAAC VLAN, said where the intent asks for it
SLAAC_PREFIX_LEN = 64  # RFC 4862: a 64-bit interface identifier
P2P_PREFIX_LENS = (64, 126, 127)  # RFC 6164 allows /127 on a point-to-point link


class Ipv6Checks(CheckBase):
    """What the IPv6 part of an intent must hold; each error names its file and field."""

    def ipv6(self) -> None:
        self._vlan_prefixes()
        self._link_addresses6()
        self._mtus6()
        self._endpoint_addresses6()
        self._overlaps6()
        self._unique_addresses6()
        self._uplink6()
        self._named_hosts6()
        first = next(self._ipv6_keys(), None)
        if first is not None:
            # rendered and validated, but not yet measured everywhere: say so
            self.warnings.append(IntentError(*first, IPV6_NOT_YET))

    def _ipv6_keys(self) -> Iterator[tuple[str, str, str]]:
        """(file, field path, value) of each IPv6 key the intent gives, VLANs first."""
        for index, vlan in enumerate(self.net.vlans):
            if vlan.ipv6 is not None:
                yield self.src["vlans"], f"vlans[{index}].ipv6", str(vlan.ipv6.prefix)
        for index, link in enumerate(self.net.links):
            if link.addresses6 is not None:
                yield self.src["links"], f"links[{index}].addresses6", str(link.addresses6.a)
        if self.net.uplink is not None and self.net.uplink.next_hop6 is not None:
            yield self.src["uplink"], "uplink.next_hop6", str(self.net.uplink.next_hop6)

    def _vlan_prefixes(self) -> None:
        file = self.src["vlans"]
        for index, vlan in enumerate(self.net.vlans):
            if vlan.ipv6 is None:
                continue
            path, prefix = f"vlans[{index}].ipv6", vlan.ipv6.prefix
            problem = not_global(prefix)
            if problem:
                self.add(file, f"{path}.prefix", str(prefix), problem.replace("address", "prefix"))
            elif vlan.ipv6.hosts == "slaac" and prefix.prefixlen != SLAAC_PREFIX_LEN:
                self.add(file, f"{path}.prefix", str(prefix),
                         "a /64: hosts take SLAAC here (hosts: slaac), which forms a 64-bit interface id")
            elif not SLAAC_PREFIX_LEN <= prefix.prefixlen <= 126:
                self.add(file, f"{path}.prefix", str(prefix), "a VLAN prefix of /64 to /126 (a gateway and hosts)")
            self._in_prefix(self.net.gateway_address(vlan, Family.V6), prefix, file, f"{path}.gateway_address")
            self._vlan_routers(vlan, file, path, Family.V6)

    def _mtus6(self) -> None:
        """Every VLAN and link that carries IPv6 at 1280 or more (below 576 is reported already)."""
        why = f"IPv6 needs an MTU of {MIN_MTU6} or more on every link (RFC 8200, section 5)"
        for index, vlan in enumerate(self.net.vlans):
            mtu = self.net.vlan_mtu(vlan)
            if vlan.ipv6 is not None and MIN_MTU <= mtu < MIN_MTU6:
                self.add(self.src["vlans"], f"vlans[{index}].mtu", mtu,
                         f"at least {MIN_MTU6} on a dual-stack VLAN: {why}")
        ports = self.net.port_index
        for index, link in enumerate(self.net.links):
            if link.addresses6 is None or link.a not in ports or link.b not in ports:
                continue  # unknown ports are reported by links()
            mtu = self.net.link_mtu(link)
            if MIN_MTU <= mtu < MIN_MTU6:
                self.add(self.src["links"], f"links[{index}].mtu", mtu,
                         f"at least {MIN_MTU6} on a link with IPv6 addresses: {why}")

    def _link_addresses6(self) -> None:
        file = self.src["links"]
        for index, link in enumerate(self.net.links):
            if link.addresses6 is None:
                continue
            path = f"links[{index}].addresses6"
            a, b = link.addresses6.a, link.addresses6.b
            if link.mode != "routed":
                self.add(file, path, f"{a} / {b}", f"IPv6 addresses on a routed link only (this one is {link.mode})")
                continue
            if a.network != b.network or a.ip == b.ip:
                self.add(file, path, f"{a} / {b}", "two different addresses in one prefix")
                continue
            if a.network.prefixlen not in P2P_PREFIX_LENS:
                self.add(file, path, f"{a} / {b}", "a /64, /126 or /127 between two routers (RFC 6164)")
            for side, iface in (("a", a), ("b", b)):
                problem = not_global(iface.ip)
                if problem:
                    self.add(file, f"{path}.{side}", str(iface), problem)
                elif iface.network.prefixlen != 127 and iface.ip == iface.network.network_address:
                    self.add(file, f"{path}.{side}", str(iface),
                             f"a host address in {iface.network}, not its subnet-router anycast address")

    def _endpoint_addresses6(self) -> None:
        for name, endpoint in sorted(self.net.endpoints.items()):
            file, prefix = self.host_place(name)
            path = f"{prefix}address6"
            vlan = self.net.vlan_name_index.get(endpoint.vlan)
            if vlan is None:
                continue  # an unknown VLAN is reported by endpoints()
            if vlan.ipv6 is None:
                if endpoint.address6 is not None:
                    self.add(file, path, str(endpoint.address6),
                             f"none: VLAN {vlan.name} has no IPv6 prefix (give it `ipv6: {{prefix: ...}}`)")
            elif vlan.ipv6.hosts == "slaac":
                if endpoint.address6 is not None:
                    self.add(file, path, str(endpoint.address6),
                             f"none: VLAN {vlan.name}'s hosts take SLAAC (hosts: slaac) and form their address "
                             f"from their MAC; write hosts: static on the VLAN to give addresses")
            elif endpoint.address6 is None:
                self.add(file, path, "missing",
                         f"the host's IPv6 address in {vlan.ipv6.prefix}: VLAN {vlan.name}'s hosts are static")
            elif endpoint.address6 == self.net.gateway_address(vlan, Family.V6):
                self.add(file, path, str(endpoint.address6),
                         f"a host address in {vlan.ipv6.prefix} other than the gateway {endpoint.address6}")
            else:
                self._in_prefix(endpoint.address6, vlan.ipv6.prefix, file, path)

    def _overlaps6(self) -> None:
        spans: list[tuple[IPv6Network, str, str]] = [
            (v.ipv6.prefix, self.src["vlans"], f"vlans[{i}].ipv6.prefix")
            for i, v in enumerate(self.net.vlans) if v.ipv6 is not None]
        spans += [(lk.addresses6.a.network, self.src["links"], f"links[{i}].addresses6")
                  for i, lk in enumerate(self.net.links) if lk.addresses6 is not None]
        for span, widest in overlaps(spans):
            self.add(span[1], span[2], str(span[0]),
                     f"a prefix that overlaps no other (overlaps {widest[2]} {widest[0]})")

    def _unique_addresses6(self) -> None:
        owners: dict[IPv4Address | IPv6Address, str] = {}
        for address, _prefix, _device, where, who in self._claims(Family.V6):
            if address in owners:
                self.add(*where, str(address), f"a unique IPv6 address (also {owners[address]})")
            else:
                owners[address] = who

    def _uplink6(self) -> None:
        uplink = self.net.uplink
        if uplink is None or uplink.device not in self.net.devices:
            return
        if uplink.next_hop6 is None:
            self._uplink6_missing()
            return
        prefixes = [getattr(lk.addresses6, side).network for lk in self.net.links if lk.addresses6 is not None
                    for side in ("a", "b") if getattr(lk, side).partition(":")[0] == uplink.device]
        prefixes += [v.ipv6.prefix for v in self.net.vlans
                     if v.ipv6 is not None and (v.gateway == uplink.device or uplink.device in v.ipv6.routers)]
        problem = not_global(uplink.next_hop6)
        own = self._own_addresses(uplink.device, Family.V6).get(uplink.next_hop6)
        if problem:
            self.add(self.src["uplink"], "uplink.next_hop6", str(uplink.next_hop6),
                     f"{problem}: the routers' configs name the next hop without an interface")
        elif not any(uplink.next_hop6 in p for p in prefixes):
            shown = ", ".join(str(p) for p in prefixes) or "none"
            self.add(self.src["uplink"], "uplink.next_hop6", str(uplink.next_hop6),
                     f"an address in one of {uplink.device}'s IPv6 prefixes ({shown}): the default route "
                     f"needs the interface it leaves by")
        elif own is not None:
            self.add(self.src["uplink"], "uplink.next_hop6", str(uplink.next_hop6), own_next_hop(uplink.device, own))

    def _uplink6_missing(self) -> None:
        """No `next_hop6` on a dual-stack uplink: the booth has no IPv6 route out, so a declared
        path that runs in IPv6 across the show network (both hosts with a known IPv6 address, no
        end in the secured network, whose tunnel carries IPv4 only) has none either."""
        uplink = self.net.uplink
        assert uplink is not None
        outside = self._uplink_interface6(uplink.device, uplink.next_hop)
        if outside is None:
            return  # an IPv4-only uplink: no IPv6 leaves the booth, by design
        for index, path in enumerate(self.net.throughput.paths):
            if self._across_show_network6(path.source, path.destination, uplink.device):
                self.add(self.src["uplink"], "uplink.next_hop6", "missing",
                         f"the show network's IPv6 router on {uplink.device}'s dual-stack uplink ({outside}): "
                         f"throughput.paths[{index}] {path.name} runs in IPv6 from {path.source} to "
                         f"{path.destination} across the show network, and without next_hop6 {uplink.device} has "
                         f"no IPv6 route out, so the path has none")
                return  # one path says it

    def _across_show_network6(self, source: str, destination: str, uplink_device: str) -> bool:
        """Whether a path between two hosts runs in IPv6 (each has a known IPv6 address, neither is
        in the secured network, every routed link on its way has IPv6) through the uplink device
        and a show_network device."""
        src, dst = self.net.endpoints.get(source), self.net.endpoints.get(destination)
        if src is None or dst is None or src.vlan == dst.vlan:
            return False
        vlans = [self.net.vlan_name_index.get(e.vlan) for e in (src, dst)]
        if any(v is None or v.zone == "secure" for v in vlans) or \
                any(self.net.endpoint_address(e, Family.V6) is None for e in (src, dst)):
            return False
        links = self.net.route(src, dst)
        ends = {end.partition(":")[0] for lk in links for end in (lk.a, lk.b)}
        return (uplink_device in ends
                and any(self.net.devices[d].role == "show_network" for d in ends if d in self.net.devices)
                and all(lk.mode != "routed" or lk.addresses6 is not None for lk in links))

    def _uplink_interface6(self, device: str, next_hop: IPv4Address) -> IPv6Network | None:
        """The IPv6 prefix of the device's interface toward its IPv4 next hop; None where that
        interface has no IPv6."""
        for link in self.net.links:
            for side in ("a", "b") if link.mode == "routed" and link.addresses is not None else ():
                mine = getattr(link, side).partition(":")[0] == device
                if mine and next_hop in getattr(link.addresses, side).network:
                    return getattr(link.addresses6, side).network if link.addresses6 is not None else None
        for vlan in self.net.vlans:
            if (vlan.gateway == device or device in vlan.routers) and next_hop in vlan.subnet:
                return vlan.ipv6.prefix if vlan.ipv6 is not None else None
        return None

    def _named_hosts6(self) -> None:
        """A host a rule names by group decides IPv6 by its address too: in a SLAAC VLAN that
        address comes from its MAC, so the MAC must be given."""
        named: dict[str, str] = {}  # host -> the first rule or the VPN naming it
        for rule in self.net.policy.rules:
            for selector in (rule.source, rule.destination):
                if selector.startswith("group:"):
                    for member in self.net.host_groups.get(selector.partition(":")[2], []):
                        named.setdefault(member, f"rule {rule.name} ({selector})")
        if self.net.vpn is not None:
            for member in self.net.host_groups.get(self.net.vpn.clients.partition(":")[2], []):
                named.setdefault(member, f"the VPN's clients ({self.net.vpn.clients})")
        for name, why in sorted(named.items()):
            endpoint = self.net.endpoints.get(name)
            vlan = self.net.vlan_name_index.get(endpoint.vlan) if endpoint else None
            if endpoint is None or vlan is None or vlan.ipv6 is None or vlan.ipv6.hosts != "slaac":
                continue
            if endpoint.mac is None:
                file, prefix = self.host_place(name)
                self.add(file, f"{prefix}mac", "missing",
                         f"the host's MAC: {why} names it, and in VLAN {vlan.name} (hosts: slaac) its IPv6 "
                         "address is formed from the MAC")

