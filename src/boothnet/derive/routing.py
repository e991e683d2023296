"""A device's SVIs, static routes and OSPF."""

from __future__ import annotations

from ipaddress import IPv4Interface, IPv4Network, IPv6Interface, IPv6Network, collapse_addresses
from types import ModuleType

from boothnet.derive.base import DeriverState, _split
from boothnet.derive.model import Acl, Interface, Ospf, OspfInterface, Route, VpnPeer
from boothnet.derive.policy import acl_name, compiler_of
from boothnet.family import FAMILIES, Family
from boothnet.intent.model import Device, Vlan


class Routing(DeriverState):
    """A device's SVIs, static routes and OSPF."""

    def _svis(self, device: Device, q: ModuleType, l2_vlans: dict[int, Vlan], acls: list[Acl]) -> list[Interface]:
        svis = []
        for vlan in self.routed_vlans.get(device.name, []):
            if vlan.gateway == device.name:
                address = self.net.gateway_address(vlan)
            elif device.name in vlan.routers:
                address = vlan.routers[device.name]
            else:
                continue
            l2_vlans[vlan.id] = vlan
            name = q.svi_name(vlan.id)
            svi = Interface(
                name,
                "svi",
                vlan.name,
                self.net.vlan_mtu(vlan),
                vlan=vlan.id,
                address=IPv4Interface(f"{address}/{vlan.subnet.prefixlen}"),
            )
            if vlan.ipv6 is not None:
                gateway = vlan.gateway == device.name
                own6 = self.net.gateway_address(vlan, Family.V6) if gateway else vlan.ipv6.routers.get(device.name)
                svi.address6 = IPv6Interface(f"{own6}/{vlan.ipv6.prefix.prefixlen}") if own6 else None
                svi.ra = vlan.ipv6.hosts if gateway else None
            # Transit VLANs (other routers on them) are not filtered: policy applies at the edge.
            if vlan.gateway == device.name and not vlan.routers:
                acls += self._svi_acls(svi, vlan)
            svis.append(svi)
        return svis

    def _svi_acls(self, svi: Interface, vlan: Vlan) -> list[Acl]:
        """The policy's ACLs on a VLAN's gateway, in each family the VLAN has: inbound, and
        into the secured network outbound too."""
        acls = []
        for family in FAMILIES:
            if vlan.prefix(family) is None:
                continue
            policy = compiler_of(self.net, family)
            for direction in ("in", "out") if vlan.zone == "secure" else ("in",):
                svi.bind_acl(family, direction, acl_name(vlan, direction, family))
                entries = policy.inbound(vlan) if direction == "in" else policy.outbound_secure(vlan)
                acls.append(Acl(acl_name(vlan, direction, family), direction, svi.name, entries, family=family))
        return acls


    def _routes(self, device: Device) -> list[Route]:
        routes: list[Route] = []
        uplink = self.net.uplink
        if uplink and uplink.device == device.name:
            routes.append(Route(IPv4Network("0.0.0.0/0"), uplink.next_hop, "show network uplink"))
            routes += [Route(IPv6Network("::/0"), hop, "show network uplink") for hop in [uplink.next_hop6] if hop]
        vpn = self.net.vpn
        if vpn and device.name in (vpn.booth_gateway, vpn.home_gateway):
            outside = self._peer_address(device.name, {"show_network"})
            if outside:
                _, _, next_hop = outside[0]
                peer_name = vpn.home_gateway if device.name == vpn.booth_gateway else vpn.booth_gateway
                peer_outside = self._peer_address(peer_name, {"show_network"})
                if device.name == vpn.home_gateway:
                    routes.append(Route(IPv4Network("0.0.0.0/0"), next_hop, "internet via the show network"))
                elif peer_outside:
                    routes.append(Route(IPv4Network(f"{peer_outside[0][1]}/32"), next_hop, "home gateway (IKE/ESP)"))
                    for prefix in self._vpn_subnets(vpn.home_subnets):
                        routes.append(Route(prefix, next_hop, f"secured network via {vpn.name}"))
        for default in (IPv4Network("0.0.0.0/0"), IPv6Network("::/0")):
            show_network = self._peer_address(device.name, {"show_network"}, Family(default.version))
            if (show_network and device.role != "show_network" and not self._in_ospf(device.name)
                    and not any(r.prefix == default for r in routes)):
                # a router behind the show network alone (a home's): everything else is through it
                routes.append(Route(default, show_network[0][2], "internet via the show network"))
        if device.role == "show_network" and uplink:
            routes += [r for family in FAMILIES for r in self._show_network_routes(device, uplink.device, family)]
        return routes


    def _show_network_routes(self, device: Device, uplink_device: str, family: Family) -> list[Route]:
        """The show network's routes back, in ``family``: a VLAN routed by a neighbour (home's open
        network on the home gateway) through it; the secured one only through the VPN; every
        other through the booth. A neighbour without an address of ``family`` is no next hop."""
        neighbours = {_split(link.b if _split(link.a)[0] == device.name else link.a)[0]
                      for link, _mine, _peer in self._peer_address(device.name)}
        hops = {_split(link.b if _split(link.a)[0] == device.name else link.a)[0]: peer
                for link, _mine, peer in self._peer_address(device.name, None, family)}

        home = [v for v in self.net.vlans if v.zone != "secure" and v.gateway in neighbours]
        booth = [p for v in self.net.vlans if v.zone != "secure" and v not in home and (p := v.prefix(family))]
        routes = [Route(p, hops[uplink_device], "booth networks")
                  for p in collapse_addresses(booth)] if uplink_device in hops else []  # type: ignore[type-var]  # one family
        return routes + [Route(p, hops[v.gateway], f"{v.name} via {v.gateway}")
                         for v in home if v.gateway in hops and (p := v.prefix(family))]

    def _in_ospf(self, device: str) -> bool:
        """Whether the device runs OSPF: on a link that does, or on a VLAN other routers share."""
        on_link = any(use.link is not None and id(use.link) in self.ospf_links for use in self.uses.get(device, []))
        return on_link or any(vlan.routers for vlan in self.routed_vlans.get(device, []))

    def _ospf(
        self,
        device: Device,
        interfaces: list[Interface],
        svis: list[Interface],
        routes: list[Route],
        vpn: VpnPeer | None,
    ) -> Ospf | None:
        active: list[str] = []
        neighbors: list[tuple[str, str, str]] = []
        for use in self.uses.get(device.name, []):
            if use.link is not None and id(use.link) in self.ospf_links:
                name = self.ctx.port(device.name, use.port)
                active.append(name)
                peer = use.link.addresses and (use.link.addresses.b if use.peer == _split(use.link.b)[0]
                                               else use.link.addresses.a)
                neighbors.append((name, use.peer, str(peer.ip) if peer else "?"))
        transit = [s for s in svis if self.net.vlan_id_index[s.vlan].routers]  # type: ignore[index]  # an SVI has a VLAN id
        active += [s.name for s in transit]
        for svi in transit:
            vlan = self.net.vlan_id_index[svi.vlan]  # type: ignore[index]  # an SVI has a VLAN id
            routers = {vlan.gateway: self.net.gateway_address(vlan), **vlan.routers}
            neighbors += [(svi.name, other, str(address)) for other, address in sorted(routers.items())
                          if other != device.name]
        if not active:
            return None
        settings, uplink = self.net.settings.ospf, self.net.uplink
        passive = [s.name for s in svis if s not in transit]
        covered = {o.name: o for o in (OspfInterface(n, n in passive, settings.hello, settings.dead)
                                       for n in active + passive)}
        for iface in interfaces + svis:
            iface.ospf = covered.get(iface.name)
            # OSPFv3 where OSPFv2 runs and the interface has IPv6: the same area, timers, passiveness
            iface.ospf6 = iface.ospf if iface.address6 is not None else None
        v3_names = {i.name for i in interfaces + svis if i.ospf6}
        networks = [s.address.network for s in svis if s.address] + [
            i.address.network for i in interfaces if i.kind == "routed" and i.address and i.name in active
        ]
        return Ospf(
            router_id=device.router_id or device.mgmt_address,
            area=settings.area,
            hello=settings.hello,
            dead=settings.dead,
            interfaces=list(covered.values()),
            networks=sorted(set(networks), key=lambda n: (int(n.network_address), n.prefixlen)),
            default_originate=bool(uplink and uplink.device == device.name),
            default_originate6=bool(uplink and uplink.device == device.name and uplink.next_hop6),
            redistribute=[r.prefix for r in routes if vpn and isinstance(r.prefix, IPv4Network)
                          and r.description.startswith("secured network")],
            neighbors=neighbors,
            interfaces6=[o for o in covered.values() if o.name in v3_names],
        )
