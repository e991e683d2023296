"""The lab's stand-in for an IOS or EOS device runs what that device's config reads as.

The lab derives every device as frr_linux from the intent; for a vendor device this module then
makes the stand-in's model what the reader (boothnet.readback) takes from the device's config:
IPv4 routing on or off, each interface's MTU, shutdown, VLANs, address, ACL bindings and entries,
OSPF coverage and timers, static routes, the OSPF process. A template's omission therefore runs in
the lab as the switch would run it. The configs are the rendered ones, or a folder a booth team
edited by hand (`boothnet lab-up --configs DIR`); a line the reader cannot map stops the lab.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from boothnet.derive import DeviceModel
from boothnet.derive.model import Acl, AclEntry, Interface, OspfInterface, PortBinding, Route
from boothnet.family import Family
from boothnet.platforms import platforms
from boothnet.readback import READ_PLATFORMS, ConfigFacts, expected_facts, read_config
from boothnet.readback.facts import AclRule, InterfaceFacts
from boothnet.readback.reader import platform_defaults
from boothnet.render.build import render_all, single_file_configs
from boothnet.run import Run


class StandInRefused(Exception):
    """A vendor config the lab cannot run as read: every line that stops it."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class VendorReading:
    hardware: DeviceModel  # the device's model as the intent derives it
    facts: ConfigFacts  # its config as the device reads it
    source: str  # where the config came from, for messages


def vendor_readings(run: Run, configs_dir: Path | None = None) -> dict[str, VendorReading]:
    """Every IOS/EOS device's config read back: from `configs_dir/<device>.cfg` where that file
    exists, else as rendered from the intent. Raises StandInRefused naming every unreadable line."""
    if not any(d.platform in READ_PLATFORMS for d in run.net.devices.values()):
        return {}  # an all-frr_linux network: nothing to read, no hardware derivation
    hardware = run.models("hardware")
    vendor = {name: m for name, m in hardware.items() if m.platform in READ_PLATFORMS}
    rendered = single_file_configs(render_all(vendor, run.net.name))
    readings: dict[str, VendorReading] = {}
    problems: list[str] = []
    for name, model in sorted(vendor.items()):
        edited = configs_dir / f"{name}.cfg" if configs_dir else None
        text, source = ((edited.read_text(), str(edited)) if edited and edited.is_file()
                        else (rendered[name], f"{name}.cfg as rendered"))
        facts = read_config(text, model.platform, name)
        if facts.unreadable:
            problems.append(f"{source}: {facts.unreadable}")
        problems += [f"{source}: line {line}: {line_text!r}: {why}; the lab runs only what it reads"
                     for line, line_text, why in facts.unknown]
        readings[name] = VendorReading(model, facts, source)
    if problems:
        raise StandInRefused(problems)
    return readings


# each ACL an interface binds: (family, direction)
BINDINGS: tuple[tuple[Family, Literal["in", "out"]], ...] = (
    (Family.V4, "in"), (Family.V4, "out"), (Family.V6, "in"), (Family.V6, "out"))


def _entries(rules: list[AclRule]) -> list[AclEntry]:
    # `established` lines are return traffic; the stand-in of a stateless device keeps them (as TCP
    # flag matches), a stateful one would track connections instead
    return [AclEntry(r.action, r.proto, r.src, r.dst, "as read", (r.dst_port,) if r.dst_port is not None else (),
                     r.src_port, r.established, return_traffic=r.established and r.action == "permit",
                     icmp_type=r.icmp_type, log=r.log, seq=seq)
            for seq, r in enumerate(rules, start=1)]


class StandIn:
    """Applies one reading to the lab model of its device (DeriveContext.adjust)."""

    def __init__(self, readings: dict[str, VendorReading]):
        self.readings = readings

    def __call__(self, lab: DeviceModel) -> None:
        reading = self.readings.get(lab.name)
        if reading is None:
            return
        facts, hardware = reading.facts, reading.hardware
        lab.ip_routing, lab.ipv6_routing = facts.routing, facts.ipv6_routing
        # as strict as the switch: IOS and EOS ACLs are stateless (no conntrack accept ahead of them)
        lab.stateful_acls = platforms()[hardware.platform].stateful_acls
        vlan_ids = {v.id for v in lab.vlans}
        cabled = [i for i in hardware.interfaces if i.kind != "unused"]  # the lab wires only cabled ports
        pairs = list(zip(cabled, lab.interfaces, strict=True))
        for hw_iface, lab_iface in pairs:
            self._interface(lab, lab_iface, facts.interfaces.get(hw_iface.name), vlan_ids, reading)
        self._acls(lab, facts, hardware)
        self._routing(lab, facts)

    @staticmethod
    def _interface(lab: DeviceModel, iface: Interface, read: InterfaceFacts | None, vlan_ids: set[int],
                   reading: VendorReading) -> None:
        if read is None:  # the config leaves the port out: it stays in VLAN 1, which the lab has not
            iface.shutdown = True
            return
        if read.mode != iface.kind:
            raise StandInRefused([f"{reading.source}: interface {read.name}: {read.mode}, the intent wires it "
                                  f"{iface.kind}: the lab cannot rewire a port"])
        iface.mtu, iface.shutdown = read.mtu, read.shutdown
        if iface.kind == "access" and read.access_vlan != iface.vlan:
            iface.shutdown = True  # a VLAN the intent does not wire here: cut off, as on the switch
        if iface.kind == "trunk":
            iface.allowed_vlans = [v for v in read.trunk_vlans if v in vlan_ids]
        if iface.kind in ("routed", "svi"):
            iface.address, iface.address6, iface.ra = read.address, read.address6, read.ra
        if iface.kind == "svi":
            for vlan in lab.vlans:
                if vlan.id == iface.vlan:
                    vlan.mtu = read.mtu
        iface.acl_in, iface.acl_out = read.acl_in, read.acl_out
        iface.acl6_in, iface.acl6_out = read.acl6_in, read.acl6_out
        iface.mss_clamp = read.mss
        if iface.kind == "access":  # what port security, IP source guard and the IPv6 port ACL admit, as read
            iface.acl6_in = None  # the port's filter, below: a bridge port, where no routed ACL sees it
            iface.binding = StandIn._binding(iface, read, reading)
        iface.ospf, iface.ospf6 = (OspfInterface(iface.name, on.passive, on.hello, on.dead) if on else None
                                   for on in (read.ospf, read.ospf6))

    @staticmethod
    def _binding(iface: Interface, read: InterfaceFacts, reading: VendorReading) -> PortBinding | None:
        """What a host port admits as read: its MACs, IPv4 sources and IPv6 port ACL, every line
        of which runs at the port; the SVI's ACL composed with it as the profile says."""
        # a port ACL bound but not defined permits all, as a routed port's
        port_acl = reading.facts.acls.get(read.acl6_in) if read.acl6_in else None
        if (read.allowed_macs, read.allowed_sources, port_acl) == (None, None, None):
            return None
        switch = reading.hardware.switch
        both = switch is not None and switch.port_acl_over_svi == "both"
        return PortBinding(iface.vlan or 0, read.allowed_macs, read.allowed_sources, read.allowed_sources6,
                           read.acl6_in, tuple(_entries(port_acl or [])), runs_acl6=port_acl is not None,
                           replaces_svi_acl=port_acl is not None and not both, violation=read.violation or "restrict")

    @staticmethod
    def _acls(lab: DeviceModel, facts: ConfigFacts, hardware: DeviceModel) -> None:
        """Each ACL where the config binds it, with its entries as read where they differ."""
        by_name = {acl.name: acl for acl in lab.acls}
        expected = expected_facts(hardware).acls
        bound: list[Acl] = []
        for iface in lab.interfaces:
            for family, direction in BINDINGS:
                name = iface.acl(family, direction)
                if name is None:
                    continue
                rules = facts.acls.get(name, [])  # an ACL bound but not defined permits all (IOS, EOS)
                acl = by_name.get(name) or Acl(name, direction, iface.name, [], family=family)
                acl.interface, acl.direction = iface.name, direction
                if rules != expected.get(name):
                    acl.entries = _entries(rules) if rules else [AclEntry("permit", "ip", None, None, "as read")]
                bound.append(acl)
        lab.acls = bound

    @staticmethod
    def _routing(lab: DeviceModel, facts: ConfigFacts) -> None:
        default_distance = int(platform_defaults(facts.platform)["route_distance"])
        lab.routes = [Route(r.prefix, r.next_hop, "as read", None if r.distance == default_distance else r.distance)
                      for r in facts.routes]
        # with routing off the device runs no routing protocol either (the reader: no OSPFv3 then)
        covered = [i.ospf for i in lab.interfaces if i.ospf is not None] if facts.routing else []
        covered6 = [i.ospf6 for i in lab.interfaces if i.ospf6 is not None]
        if lab.ospf is None or not (covered or covered6):
            lab.ospf = None
            for iface in lab.interfaces:
                iface.ospf = iface.ospf6 = None
            return
        order = {o.name: i for i, o in enumerate(lab.ospf.interfaces)}  # the intent's order, as the hardware's
        lab.ospf.interfaces = sorted(covered, key=lambda o: order.get(o.name, len(order)))
        lab.ospf.interfaces6 = sorted(covered6, key=lambda o: order.get(o.name, len(order)))
        lab.ospf.router_id = facts.ospf_router_id or facts.ospf6_router_id or lab.ospf.router_id
        lab.ospf.default_originate = facts.default_originate
        lab.ospf.default_originate6 = facts.default_originate6
        lab.ospf.redistribute = list(facts.redistribute)
