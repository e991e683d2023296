"""Derive every device's model: ports, trunks, SVIs, ACLs, routes, OSPF, VPN.

Platform naming (SVI names, trunk members, ACL syntax) comes from the platform's quirks
module, so the same derivation serves hardware configs, the all-Linux lab and the
Batfish view.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv4Network, collapse_addresses
from types import ModuleType

from boothnet.derive.model import Acl, AclEntry, DeviceModel, Interface, Ospf, Route, VlanL2, VpnPeer
from boothnet.derive.policy import acl_name, compiler_of, number
from boothnet.intent.model import Device, Link, Network, Vlan
from boothnet.platforms import platforms

STATEFUL_PLATFORMS = {"frr_linux"}


@dataclass
class DeriveContext:
    """How to derive: for hardware (defaults), for the lab, or for the Batfish view."""

    platform_override: str | None = None  # lab: every device "frr_linux"
    substitute: dict[str, str] = field(default_factory=dict)  # Batfish view: {"frr_linux": "cisco_ios"}
    port_map: dict[str, dict[str, str]] = field(default_factory=dict)  # device -> port -> name
    vlan_mode: str = "dot1q"
    tunnel_backend: str = "xfrm"  # "libipsec" where the kernel has no ESP (the lab)
    # Batfish 0.36 parses only md5/sha/sha2-256-128 after `hash` in an IKEv1 policy: `hash sha256`
    # derails its parser (it drops the next line, `authentication pre-share`). Its view renders
    # `hash sha` on both peers, which it matches alike; real IOS and strongSwan keep SHA-256.
    batfish_view: bool = False

    def platform(self, device: Device) -> str:
        return self.platform_override or self.substitute.get(device.platform, device.platform)

    def port(self, device: str, port: str) -> str:
        return self.port_map.get(device, {}).get(port, port)


def quirks(platform: str) -> ModuleType:
    return importlib.import_module(f"boothnet.platforms.{platform}")


def _split(ref: str) -> tuple[str, str]:
    device, _, port = ref.partition(":")
    return device, port


@dataclass
class _PortUse:
    port: str
    kind: str
    mtu: int
    speed: int
    description: str
    vlan: Vlan | None = None
    vlans: list[Vlan] = field(default_factory=list)
    address: IPv4Interface | None = None
    peer: str = ""
    link: Link | None = None


class _Deriver:
    def __init__(self, net: Network, ctx: DeriveContext):
        self.net = net
        self.ctx = ctx
        self.vlans_by_name = net.vlan_by_name()
        self.policy = compiler_of(net)
        self.uses: dict[str, list[_PortUse]] = defaultdict(list)
        # device -> VLANs it routes (gateway or transit router), in intent order: one pass,
        # not every VLAN for every device
        self.routed_vlans: dict[str, list[Vlan]] = defaultdict(list)
        for vlan in net.vlans:
            for name in dict.fromkeys([vlan.gateway, *vlan.routers]):
                self.routed_vlans[name].append(vlan)
        self._collect_port_uses()
        self.ospf_links = self._ospf_links()

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
                    use.vlan = self.net.vlan(link.vlan)  # type: ignore[arg-type]
                else:
                    use.address = getattr(link.addresses, side)
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

    def _ospf_links(self) -> set[int]:
        """Routed links inside the booth run OSPF; links to the show network do not."""
        outside = {n for n, d in self.net.devices.items() if d.role == "show_network"}
        return {
            id(lk) for lk in self.net.links if lk.mode == "routed" and not {_split(lk.a)[0], _split(lk.b)[0]} & outside
        }

    # per device ----------------------------------------------------------------------------------
    def device(self, device: Device) -> DeviceModel:
        platform = self.ctx.platform(device)
        q = quirks(platform)
        uses = self.uses.get(device.name, [])
        l2_vlans: dict[int, Vlan] = {}
        interfaces: list[Interface] = []
        for use in uses:
            name = self.ctx.port(device.name, use.port)
            if use.kind == "access":
                l2_vlans[use.vlan.id] = use.vlan  # type: ignore[union-attr]
                interfaces.append(Interface(name, "access", use.description, use.mtu, use.speed, vlan=use.vlan.id))  # type: ignore[union-attr]
            elif use.kind == "trunk":
                for vlan in use.vlans:
                    l2_vlans[vlan.id] = vlan
                interfaces.append(
                    Interface(
                        name, "trunk", use.description, use.mtu, use.speed, allowed_vlans=[v.id for v in use.vlans]
                    )
                )
            else:
                interfaces.append(Interface(name, "routed", use.description, use.mtu, use.speed, address=use.address))
        acls: list[Acl] = []
        svis = self._svis(device, q, l2_vlans, acls)
        routes = self._routes(device)
        vpn = self._vpn(device, interfaces)
        ospf = self._ospf(device, interfaces, svis, routes, vpn)
        model = DeviceModel(
            name=device.name,
            platform=platform,
            role=device.role,
            managed=device.managed,
            mgmt_interface=self.ctx.port(device.name, q.mgmt_interface()),
            mgmt_address=IPv4Interface(f"{device.mgmt_address}/{self.net.settings.mgmt_subnet.prefixlen}"),
            vlans=[VlanL2(v.id, v.name, self.net.vlan_mtu(v)) for v in sorted(l2_vlans.values(), key=lambda v: v.id)],
            interfaces=interfaces + svis,
            acls=acls,
            routes=routes,
            ospf=ospf,
            vpn=vpn,
        )
        if self.net.uplink and self.net.uplink.device == device.name:
            self._uplink_firewall(model)
        if vpn is not None:
            self._vpn_firewall(model)
        if platform in STATEFUL_PLATFORMS:
            for acl in model.acls:
                acl.entries = [e for e in acl.entries if not e.return_traffic]
        syntax_args: tuple[str, ...] = ()
        if platform == "frr_linux":
            model.tunnel_match = q.tunnel_match(self.ctx.tunnel_backend)
            if vpn is not None:
                self._linux_tunnel(model, q)
            model.linux_statements = self._linux_statements(model, q)
            syntax_args = (model.tunnel_match,)
        for acl in model.acls:
            acl.lines = [line for entry in acl.entries for line in q.acl_lines(entry, *syntax_args)]
        return model

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
            # Transit VLANs (other routers on them) are not filtered: policy applies at the edge.
            if vlan.gateway == device.name and not vlan.routers:
                svi.acl_in = acl_name(vlan, "in")
                acls.append(Acl(svi.acl_in, "in", name, self.policy.inbound(vlan)))
                if vlan.zone == "secure":
                    svi.acl_out = acl_name(vlan, "out")
                    acls.append(Acl(svi.acl_out, "out", name, self.policy.outbound_secure(vlan)))
            svis.append(svi)
        return svis

    def _peer_address(
        self, device: str, role_filter: set[str] | None = None
    ) -> list[tuple[Link, IPv4Address, IPv4Address]]:
        """(link, my address, peer address) for the device's routed links."""
        found = []
        for link in self.net.links:
            if link.mode != "routed" or link.addresses is None:
                continue
            for side, other in (("a", "b"), ("b", "a")):
                if _split(getattr(link, side))[0] == device:
                    peer = _split(getattr(link, other))[0]
                    if role_filter is None or self.net.devices[peer].role in role_filter:
                        found.append((link, getattr(link.addresses, side).ip, getattr(link.addresses, other).ip))
        return found

    def _routes(self, device: Device) -> list[Route]:
        routes: list[Route] = []
        uplink = self.net.uplink
        if uplink and uplink.device == device.name:
            routes.append(Route(IPv4Network("0.0.0.0/0"), uplink.next_hop, "show network uplink"))
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
        if device.role == "show_network" and uplink:
            for link, _mine, peer in self._peer_address(device.name):
                if uplink.device in (_split(link.a)[0], _split(link.b)[0]):
                    booth = [v.subnet for v in self.net.vlans if v.zone != "secure"]
                    routes += [Route(p, peer, "booth networks") for p in collapse_addresses(booth)]
        return routes

    def _vpn_subnets(self, refs: list[str]) -> list[IPv4Network]:
        return [vlan.subnet for vlan in self.net.selected_vlans(refs)]

    def _ospf(
        self,
        device: Device,
        interfaces: list[Interface],
        svis: list[Interface],
        routes: list[Route],
        vpn: VpnPeer | None,
    ) -> Ospf | None:
        active: list[str] = []
        for use in self.uses.get(device.name, []):
            if use.link is not None and id(use.link) in self.ospf_links:
                active.append(self.ctx.port(device.name, use.port))
        transit = [s for s in svis if self.net.vlan_id_index[s.vlan].routers]  # type: ignore[index]
        active += [s.name for s in transit]
        if not active:
            return None
        settings = self.net.settings.ospf
        passive = [s.name for s in svis if s not in transit]
        networks = [s.address.network for s in svis if s.address] + [
            i.address.network for i in interfaces if i.kind == "routed" and i.address and i.name in active
        ]
        return Ospf(
            router_id=device.router_id or device.mgmt_address,
            area=settings.area,
            hello=settings.hello,
            dead=settings.dead,
            interfaces=[(n, False) for n in active] + [(n, True) for n in passive],
            networks=sorted(set(networks), key=lambda n: (int(n.network_address), n.prefixlen)),
            default_originate=bool(self.net.uplink and self.net.uplink.device == device.name),
            redistribute=[r.prefix for r in routes if vpn and r.description.startswith("secured network")],
        )

    def _vpn(self, device: Device, interfaces: list[Interface]) -> VpnPeer | None:
        vpn = self.net.vpn
        if vpn is None or device.name not in (vpn.booth_gateway, vpn.home_gateway):
            return None
        is_booth = device.name == vpn.booth_gateway
        peer = vpn.home_gateway if is_booth else vpn.booth_gateway
        mine, theirs = self._peer_address(device.name, {"show_network"}), self._peer_address(peer, {"show_network"})
        if not mine or not theirs:
            return None
        link, local, _ = mine[0]
        port = _split(link.a)[1] if _split(link.a)[0] == device.name else _split(link.b)[1]
        local_subnets = self._vpn_subnets(vpn.booth_subnets if is_booth else vpn.home_subnets)
        remote_subnets = self._vpn_subnets(vpn.home_subnets if is_booth else vpn.booth_subnets)
        intent_inner = self.net.mtu_policy.crypto_inner
        limit = platforms()[self.ctx.platform(device)].tunnel_inner_mtu.get(self.ctx.tunnel_backend)
        inner = min(intent_inner, limit) if limit else intent_inner
        outside_name = self.ctx.port(device.name, port)
        for iface in interfaces:
            if iface.name == outside_name:
                iface.mss_clamp = inner - 40
        return VpnPeer(
            name=vpn.name,
            local_address=local,
            remote_address=theirs[0][1],
            local_subnets=local_subnets,
            remote_subnets=remote_subnets,
            ike_proposals=vpn.ike_proposals,
            esp_proposals=vpn.esp_proposals,
            dpd_delay_s=vpn.dpd_delay_s,
            rekey_time_s=vpn.rekey_time_s,
            psk_env=vpn.psk_env,
            inner_mtu=inner,
            intent_inner_mtu=intent_inner,
            mss=inner - 40,
            outside_interface=outside_name,
            initiator=is_booth,
            udp_encapsulation=vpn.udp_encapsulation,
            ike_hash="sha" if self.ctx.batfish_view else "sha256",
            # the device gets a ${NAME} placeholder the deploy fills; Batfish parses no `${`, and
            # only compares the two peers' keys, so its view carries the variable's name
            ike_key=vpn.psk_env if self.ctx.batfish_view else f"${{{vpn.psk_env}}}",
        )

    def _uplink_firewall(self, model: DeviceModel) -> None:
        """The booth router admits nothing new from the show network."""
        assert self.net.uplink is not None
        for iface in model.interfaces:
            if iface.kind == "routed" and iface.address and self.net.uplink.next_hop in iface.address.network:
                iface.acl_in = "OUTSIDE_IN"
                model.uplink_interface = iface.name
                model.acls.append(
                    Acl(
                        "OUTSIDE_IN",
                        "in",
                        iface.name,
                        [
                            AclEntry(
                                "permit",
                                "tcp",
                                None,
                                None,
                                "return traffic",
                                established=True,
                                return_traffic=True,
                                seq=10,
                            ),
                            AclEntry(
                                "permit",
                                "icmp",
                                None,
                                None,
                                "return traffic",
                                icmp_type="echo-reply",
                                return_traffic=True,
                                seq=20,
                            ),
                            AclEntry("deny", "ip", None, None, "default", log=True, seq=30),
                        ],
                    )
                )

    def _vpn_firewall(self, model: DeviceModel) -> None:
        """Protected traffic leaves only through the tunnel and only from listed clients."""
        vpn = model.vpn
        assert vpn is not None and self.net.vpn is not None
        if not vpn.initiator:
            return
        clients = self.policy.prefixes(self.net.vpn.clients)
        entries = []
        for rule in self.net.policy.rules:
            if rule.source != self.net.vpn.clients:
                continue
            for src in clients:
                entries += [
                    AclEntry(rule.action, rule.proto, src, dst, rule.name, dst_ports=tuple(rule.ports))
                    for dst in vpn.remote_subnets
                ]
        entries += [AclEntry("deny", "ip", None, dst, "default", log=True) for dst in vpn.remote_subnets]
        model.acls.append(Acl("TO_HOME", "out", vpn.outside_interface, number(entries)))

    def _linux_tunnel(self, model: DeviceModel, q: ModuleType) -> None:
        """Linux gateway: protected prefixes never leave in clear; with kernel-libipsec they
        are routed into its TUN device (charon has no source address in the booth subnet
        to install routes of its own) and the firewall sits on that device."""
        vpn = model.vpn
        assert vpn is not None
        backend = self.ctx.tunnel_backend
        model.leak_guard = [q.cleartext_leak_guard(p, backend) for p in vpn.remote_subnets]
        if backend != "libipsec":
            return
        remote = set(vpn.remote_subnets)
        model.routes = [r for r in model.routes if r.prefix not in remote]
        for prefix in vpn.remote_subnets:
            model.routes.append(Route(prefix, q.LIBIPSEC_DEVICE, f"{vpn.name} through the kernel-libipsec tunnel"))
            # while charon (and with it ipsec0) is gone the prefix stays here, dropped,
            # instead of following a default route out to the show network in clear
            model.routes.append(Route(prefix, "blackhole", f"{vpn.name} down: drop", distance=250))
        for acl in model.acls:
            if acl.interface == vpn.outside_interface:
                acl.interface = q.LIBIPSEC_DEVICE

    def _linux_statements(self, model: DeviceModel, q: ModuleType) -> list[str]:
        bridges: list[str] = []
        members: list[str] = []
        addresses: list[str] = []
        ups: list[str] = []
        for vlan in model.vlans:
            bridges.append(f"link add {q.svi_name(vlan.id)} type bridge")
        for iface in model.interfaces:
            if iface.kind == "access":
                members += [
                    f"link set {iface.name} mtu {iface.mtu}",
                    f"link set {iface.name} master {q.svi_name(iface.vlan)}",
                ]
                ups.append(iface.name)
            elif iface.kind == "trunk":
                if self.ctx.vlan_mode == "dot1q":
                    members.append(f"link set {iface.name} mtu {iface.mtu}")
                    ups.append(iface.name)
                for vid in iface.allowed_vlans:
                    member = q.trunk_member(iface.name, vid, self.ctx.vlan_mode)
                    if self.ctx.vlan_mode == "dot1q":
                        members.append(f"link add link {iface.name} name {member} type vlan id {vid}")
                    members += [f"link set {member} mtu {iface.mtu}", f"link set {member} master {q.svi_name(vid)}"]
                    ups.append(member)
            elif iface.kind == "routed":
                members.append(f"link set {iface.name} mtu {iface.mtu}")
                if iface.address:
                    addresses.append(f"addr add {iface.address} dev {iface.name}")
                ups.append(iface.name)
        for vlan in model.vlans:
            members.append(f"link set {q.svi_name(vlan.id)} mtu {vlan.mtu}")
            ups.append(q.svi_name(vlan.id))
        for iface in model.interfaces:
            if iface.kind == "svi" and iface.address:
                addresses.append(f"addr add {iface.address} dev {iface.name}")
        if model.vpn is not None and self.ctx.tunnel_backend == "libipsec":
            # the TUN device comes with charon at 1400; the intent's inner MTU holds inside
            members.append(f"link set {q.LIBIPSEC_DEVICE} mtu {model.vpn.inner_mtu}")
            # kernel-libipsec refuses a CHILD_SA unless the gateway owns an address inside
            # each local subnet; the subnet's network address is one no host can hold
            own = [i.address.network for i in model.interfaces if i.address is not None]
            for subnet in model.vpn.local_subnets:
                if not any(subnet.subnet_of(n) for n in own):
                    addresses.append(f"addr add {subnet.network_address}/32 dev {q.LIBIPSEC_DEVICE}")
        return bridges + members + addresses + [f"link set {name} up" for name in ups]


def derive_network(net: Network, ctx: DeriveContext | None = None) -> dict[str, DeviceModel]:
    deriver = _Deriver(net, ctx or DeriveContext())
    return {name: deriver.device(device) for name, device in sorted(net.devices.items())}
