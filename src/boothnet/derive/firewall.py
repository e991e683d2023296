"""The uplink's firewall and the Linux statements (sysctl, nftables extras)."""

from __future__ import annotations

from types import ModuleType

from boothnet.derive.base import DeriverState
from boothnet.derive.model import Acl, AclEntry, DeviceModel, Interface
from boothnet.derive.policy import compiler_of, number
from boothnet.family import Family


class Firewalls(DeriverState):
    """The uplink's firewall and the Linux statements (sysctl, nftables extras)."""

    def _uplink_firewall(self, model: DeviceModel) -> None:
        """The booth router admits nothing new from the show network, in either family: a router
        that forwards IPv6 forwards what the show network sends it in IPv6 (to its link-local
        address, with or without an IPv6 route out) unless its uplink filters that too."""
        assert self.net.uplink is not None
        for iface in model.interfaces:
            if iface.kind == "routed" and iface.address and self.net.uplink.next_hop in iface.address.network:
                iface.acl_in = "OUTSIDE_IN"
                model.uplink_interface = iface.name
                model.acls.append(Acl("OUTSIDE_IN", "in", iface.name, number(_return_traffic_only())))
                if model.ipv6_routing:
                    iface.acl6_in = "OUTSIDE_IN_V6"
                    essential = compiler_of(self.net, Family.V6).essential()
                    model.acls.append(Acl("OUTSIDE_IN_V6", "in", iface.name, number(essential + _return_traffic_only()),
                                          family=Family.V6))

    def _linux_statements(self, model: DeviceModel, q: ModuleType) -> list[str]:
        bridges = [f"link add {q.svi_name(vlan.id)} type bridge" for vlan in model.vlans]
        members: list[str] = []
        addresses: list[str] = []
        ups: list[str] = []
        for iface in model.interfaces:
            port_members, port_addresses, port_ups = self._port_statements(iface, q)
            members, addresses, ups = members + port_members, addresses + port_addresses, ups + port_ups
        for vlan in model.vlans:
            members.append(f"link set {q.svi_name(vlan.id)} mtu {vlan.mtu}")
            ups.append(q.svi_name(vlan.id))
        addresses += [f"addr add {i.address} dev {i.name}" for i in model.interfaces if i.kind == "svi" and i.address]
        addresses += [f"addr add {i.address6} dev {i.name}" for i in model.interfaces
                      if i.kind in ("svi", "routed") and i.address6]
        if model.vpn is not None and self.ctx.tunnel_backend == "libipsec":
            # the TUN device comes with charon at 1400; the intent's inner MTU holds inside
            members.append(f"link set {q.LIBIPSEC_DEVICE} mtu {model.vpn.inner_mtu}")
            # kernel-libipsec refuses a CHILD_SA unless the gateway owns an address inside
            # each local subnet; the subnet's network address is one no host can hold
            own = [i.address.network for i in model.interfaces if i.address is not None]
            addresses += [f"addr add {subnet.network_address}/32 dev {q.LIBIPSEC_DEVICE}"
                          for subnet in model.vpn.local_subnets if not any(subnet.subnet_of(n) for n in own)]
        down = {i.name for i in model.interfaces if i.shutdown}
        down |= {q.trunk_member(i.name, vid, self.ctx.vlan_mode) for i in model.interfaces if i.shutdown
                 for vid in i.allowed_vlans}
        return bridges + members + addresses + [f"link set {name} up" for name in ups if name not in down]

    def _port_statements(self, iface: Interface, q: ModuleType) -> tuple[list[str], list[str], list[str]]:
        """One port's (MTU and bridge membership, addresses, interfaces to bring up)."""
        if iface.kind == "access":
            return ([f"link set {iface.name} mtu {iface.mtu}",
                     f"link set {iface.name} master {q.svi_name(iface.vlan)}"], [], [iface.name])
        if iface.kind == "routed":
            return ([f"link set {iface.name} mtu {iface.mtu}"],
                    [f"addr add {iface.address} dev {iface.name}"] if iface.address else [], [iface.name])
        if iface.kind != "trunk":
            return [], [], []
        dot1q = self.ctx.vlan_mode == "dot1q"
        members, ups = ([f"link set {iface.name} mtu {iface.mtu}"], [iface.name]) if dot1q else ([], [])
        for vid in iface.allowed_vlans:
            member = q.trunk_member(iface.name, vid, self.ctx.vlan_mode)
            if dot1q:
                members.append(f"link add link {iface.name} name {member} type vlan id {vid}")
            members += [f"link set {member} mtu {iface.mtu}", f"link set {member} master {q.svi_name(vid)}"]
            ups.append(member)
        return members, [], ups


def _return_traffic_only() -> list[AclEntry]:
    return [AclEntry("permit", "tcp", None, None, "return traffic", established=True, return_traffic=True),
            AclEntry("permit", "icmp", None, None, "return traffic", icmp_type="echo-reply", return_traffic=True),
            AclEntry("deny", "ip", None, None, "default", log=True)]
