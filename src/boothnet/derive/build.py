"""Derive every device's model: ports, trunks, SVIs, ACLs, routes, OSPF, VPN.

Platform naming (SVI names, trunk members, ACL syntax) comes from the platform's quirks
module, so the same derivation serves hardware configs, the all-Linux lab and the
Batfish view.
"""

from __future__ import annotations

from collections import defaultdict
from ipaddress import IPv4Interface
from types import ModuleType

from boothnet.derive.base import DeriveContext, _PortUse, quirks
from boothnet.derive.firewall import Firewalls
from boothnet.derive.model import Acl, DeviceModel, VlanL2
from boothnet.derive.policy import compiler_of
from boothnet.derive.ports import PortUses
from boothnet.derive.routing import Routing
from boothnet.derive.switch import SwitchDerive
from boothnet.derive.vpn import VpnDerive
from boothnet.family import Family
from boothnet.intent.model import Device, Network, Vlan
from boothnet.platforms import platforms


class _Deriver(PortUses, Routing, VpnDerive, Firewalls, SwitchDerive):
    """One network's derivation: the state found once, then each device's model."""

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

    # per device ----------------------------------------------------------------------------------
    def device(self, device: Device) -> DeviceModel:
        platform = self.ctx.platform(device)
        q = quirks(platform)
        interfaces, l2_vlans = self._port_interfaces(device)
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
            ip_routing=bool(routes or ospf or any(i.address for i in interfaces + svis)),
            ipv6_routing=any(i.address6 for i in interfaces + svis),
            stateful_acls=platforms()[platform].stateful_acls,
        )
        if self.net.uplink and self.net.uplink.device == device.name:
            self._uplink_firewall(model)
        if vpn is not None:
            self._vpn_firewall(model)
        if self.ctx.adjust is not None:
            self.ctx.adjust(model)
        self._switch(model, device, self._profile(device, platform))
        if self.ctx.batfish_view and not platforms()[platform].batfish_port_security:
            for iface in model.interfaces:
                iface.binding = None
        self._platform_lines(model, q)
        return model

    def _platform_lines(self, model: DeviceModel, q: ModuleType) -> None:
        """What the platform prints from the model: ACL lines in its syntax; frr_linux's tunnel
        match and iproute2 statements. Stateful ACLs need no return-traffic lines (a lab stand-in
        for an IOS or EOS device is stateless as that device is: boothnet.lab.standin)."""
        syntax_args: tuple[str, ...] = ()
        if model.stateful_acls:
            for acl in model.acls:
                acl.entries = [e for e in acl.entries if not e.return_traffic]
        if model.platform == "frr_linux":
            model.tunnel_match = q.tunnel_match(self.ctx.tunnel_backend)
            if model.vpn is not None:
                self._linux_tunnel(model, q)
            model.linux_statements = self._linux_statements(model, q)
            model.port_filter = [line for i in model.bound_ports if i.binding
                                 for line in q.port_binding_lines(i.name, i.binding)]
            model.port_errdisable = any(i.binding.violation == "shutdown" for i in model.bound_ports if i.binding)
            if model.ipv6_routing:
                for acl in model.acls:
                    acl.family_match = f"meta nfproto ipv{acl.family} "
            # a stand-in whose switch's port ACL replaces the SVI's: what a port ACL admitted skips it
            replaced = {i.binding.vlan for i in model.bound_ports if i.binding and i.binding.replaces_svi_acl}
            svis = {i.name for i in model.interfaces if i.kind == "svi" and i.vlan in replaced}
            for acl in model.acls:
                if acl.family == Family.V6 and acl.direction == "in" and acl.interface in svis:
                    acl.family_match += f"meta mark != {q.PORT_ACL_MARK} "
            syntax_args = (model.tunnel_match,)
        else:
            model.port_acls6 = [Acl(i.binding.acl6, "in", i.name, list(i.binding.acl6_entries), family=Family.V6)
                                for i in model.bound_ports if i.binding and i.binding.acl6]
        # nftables: an inbound ACL's permit must not end the hook before the outbound ACL is met
        outbound = model.platform == "frr_linux" and any(a.direction == "out" for a in model.acls)
        for acl in model.acls + model.port_acls6:
            extra = ("return",) if outbound and acl.direction == "in" else ()
            acl.lines = [line for entry in acl.entries for line in q.acl_lines(entry, acl.family, *syntax_args, *extra)]


def derive_network(net: Network, ctx: DeriveContext | None = None) -> dict[str, DeviceModel]:
    deriver = _Deriver(net, ctx or DeriveContext())
    return {name: deriver.device(device) for name, device in sorted(net.devices.items())}
