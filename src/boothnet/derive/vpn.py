"""A VPN gateway's peer, the subnets it carries, its firewall and (Linux) its tunnel."""

from __future__ import annotations

from types import ModuleType

from boothnet.derive.base import DeriverState, _split
from boothnet.derive.model import Acl, AclEntry, DeviceModel, Interface, Route, VpnPeer
from boothnet.derive.policy import number
from boothnet.family import Family
from boothnet.intent.model import Device
from boothnet.platforms import platforms


class VpnDerive(DeriverState):
    """A VPN gateway's peer, the subnets it carries, its firewall and (Linux) its tunnel."""

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
                    AclEntry(rule.action, rule.proto, src, dst, rule.name, dst_ports=tuple(rule.ports), icmp_type=kind)
                    for dst in vpn.remote_subnets
                    for kind in rule.icmp_types_in(Family.V4)  # the tunnel carries IPv4
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
