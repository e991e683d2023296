"""What the derived model says a device must read as, and where a reading differs from it."""

from __future__ import annotations

from dataclasses import dataclass, fields

from boothnet.derive.model import AclEntry, DeviceModel, OspfInterface
from boothnet.readback.facts import (
    AclRule,
    ConfigFacts,
    InterfaceFacts,
    ManagementAccess,
    OspfOn,
    StaticRoute,
    port_sources6,
)
from boothnet.readback.reader import platform_defaults

CRYPTO_MATCH_ACL = "BOOTHNET_VPN_TRAFFIC"


def _rules(entry: AclEntry) -> list[AclRule]:
    """The entry as the device matches it: one rule per destination port."""
    return [AclRule(entry.action, entry.proto, entry.src, entry.src_port, entry.dst, port, entry.icmp_type,
                    entry.established, entry.log) for port in entry.dst_ports or (None,)]


def _ospf_on(area: int, on: OspfInterface, defaults: dict[str, object]) -> OspfOn:
    return OspfOn(area, on.passive, on.hello, on.dead, str(defaults["ospf_network_type"]))


def _access(model: DeviceModel) -> ManagementAccess:
    """The way in the model's management plane gives (none: the platform's defaults)."""
    eos = model.platform == "arista_eos"
    plane = model.management
    if plane is None:
        return ManagementAccess(ssh=eos)
    return ManagementAccess((plane.user,), ssh=True, scp=not eos, eapi=eos, vrf=plane.vrf, gateway=plane.gateway)


def expected_facts(model: DeviceModel) -> ConfigFacts:
    """The model's facts in the reader's shape (the platform's default where the model has none)."""
    defaults = platform_defaults(model.platform)
    facts = ConfigFacts(model.name, model.platform, routing=model.ip_routing, ipv6_routing=model.ipv6_routing,
                        vlans={v.id: v.name for v in model.vlans})
    # management on a VLAN interface (containerlab's IOL bootstrap: Vlan999) is an SVI to the device
    mgmt_mode = "svi" if model.mgmt_interface.startswith("Vlan") else "mgmt"
    facts.interfaces[model.mgmt_interface] = InterfaceFacts(
        model.mgmt_interface, mgmt_mode, address=model.mgmt_address, mtu=int(defaults["mtu"]))
    ospf = model.ospf
    # EOS switches frames up to the port's maximum whatever the intent's MTU (defaults.yml)
    frames = defaults.get("switchport_frames")
    for iface in model.interfaces:
        l2_mtu = int(frames) if frames and iface.kind in ("access", "trunk", "unused") else iface.mtu
        if iface.kind == "unused":  # an access port in the default VLAN, shut
            facts.interfaces[iface.name] = InterfaceFacts(
                iface.name, "access", access_vlan=int(defaults["access_vlan"]), mtu=l2_mtu, shutdown=True)
            continue
        facts.interfaces[iface.name] = InterfaceFacts(
            iface.name, iface.kind,
            access_vlan=iface.vlan if iface.kind == "access" else None,
            trunk_vlans=tuple(iface.allowed_vlans) if iface.kind == "trunk" else (),
            address=iface.address, mtu=l2_mtu, acl_in=iface.acl_in, acl_out=iface.acl_out,
            address6=iface.address6, ra=iface.ra, acl6_out=iface.acl6_out,
            acl6_in=iface.binding.acl6 if iface.binding and iface.binding.acl6 else iface.acl6_in,
            mss=iface.mss_clamp,
            crypto_map=bool(model.vpn and iface.name == model.vpn.outside_interface),
            ospf=_ospf_on(ospf.area, iface.ospf, defaults) if ospf and iface.ospf else None,
            ospf6=_ospf_on(ospf.area, iface.ospf6, defaults) if ospf and iface.ospf6 else None,
            allowed_macs=iface.binding.macs if iface.binding else None,
            violation=(model.switch.port_security_violation if model.switch else "restrict") if iface.binding else None,
            allowed_sources=iface.binding.addresses if iface.binding else None,
            allowed_sources6=port_sources6([r for e in iface.binding.acl6_entries for r in _rules(e)])
            if iface.binding and iface.binding.acl6 else None,
        )
    facts.access = _access(model)
    facts.vtp_mode = model.switch.vtp if model.switch and model.switch.vtp else defaults["vtp_mode"]
    facts.system_mtu = model.switch.system_mtu if model.switch else None
    facts.routes = [StaticRoute(r.prefix, r.next_hop, r.distance or int(defaults["route_distance"]))
                    for r in model.routes]
    if ospf:
        facts.ospf_router_id = ospf.router_id
        facts.default_originate = ospf.default_originate
        facts.redistribute = tuple(sorted(ospf.redistribute))
        if ospf.interfaces6:
            facts.ospf6_router_id = ospf.router_id
            facts.default_originate6 = ospf.default_originate6
    facts.acls = {acl.name: [rule for entry in acl.entries for rule in _rules(entry)]
                  for acl in model.acls + model.port_acls6}
    if model.vpn is not None and model.platform == "cisco_ios":
        facts.crypto_peers = (model.vpn.remote_address,)
        # the crypto map's `match address`: what goes into the tunnel
        facts.acls[CRYPTO_MATCH_ACL] = [AclRule("permit", "ip", local, None, remote, None)
                                        for local in model.vpn.local_subnets for remote in model.vpn.remote_subnets]
    return facts


@dataclass(frozen=True)
class Mismatch:
    """One fact the config gives otherwise than the model."""

    device: str
    field: str  # e.g. "routing", "interface Vlan60 ospf.hello", "acl THEATER_IN line 3"
    model: object
    config: object

    def __str__(self) -> str:
        return f"{self.device}: {self.field}: the model says {self.model}, the config reads {self.config}"


def _interface_mismatches(device: str, want: InterfaceFacts, got: InterfaceFacts | None) -> list[Mismatch]:
    if got is None:
        return [Mismatch(device, f"interface {want.name}", "present", "absent")]
    found = []
    for f in fields(InterfaceFacts):
        if f.name in ("name", "ospf", "ospf6"):
            continue
        model_value, config_value = getattr(want, f.name), getattr(got, f.name)
        if model_value != config_value:
            found.append(Mismatch(device, f"interface {want.name} {f.name}", model_value, config_value))
    for key in ("ospf", "ospf6"):
        want_on, got_on = getattr(want, key), getattr(got, key)
        if (want_on is None) != (got_on is None):
            found.append(Mismatch(device, f"interface {want.name} {key}", want_on and "on", got_on and "on"))
        elif want_on and got_on:
            found += [Mismatch(device, f"interface {want.name} {key}.{f.name}", getattr(want_on, f.name),
                               getattr(got_on, f.name))
                      for f in fields(OspfOn) if getattr(want_on, f.name) != getattr(got_on, f.name)]
    return found


def _acl_mismatches(device: str, name: str, want: list[AclRule], got: list[AclRule] | None) -> list[Mismatch]:
    if got is None:
        return [Mismatch(device, f"acl {name}", f"{len(want)} lines", "absent")]
    found = [Mismatch(device, f"acl {name} line {i}", str(w), str(g))
             for i, (w, g) in enumerate(zip(want, got, strict=False), start=1) if w != g]
    if len(want) != len(got):
        found.append(Mismatch(device, f"acl {name} length", len(want), len(got)))
    return found


def mismatches(want: ConfigFacts, got: ConfigFacts) -> list[Mismatch]:
    """Every fact the reading gives otherwise than the model, then every line it could not read."""
    device = want.device
    if got.unreadable:
        return [Mismatch(device, "config", "readable", got.unreadable)]
    found: list[Mismatch] = []
    for name in ("routing", "ipv6_routing", "vlans", "ospf_router_id", "default_originate", "redistribute",
                 "ospf6_router_id", "default_originate6", "crypto_peers", "access", "vtp_mode", "system_mtu"):
        if getattr(want, name) != getattr(got, name):
            found.append(Mismatch(device, name, getattr(want, name), getattr(got, name)))
    if sorted(map(str, want.routes)) != sorted(map(str, got.routes)):
        found.append(Mismatch(device, "routes", sorted(map(str, want.routes)), sorted(map(str, got.routes))))
    for name, iface in want.interfaces.items():
        found += _interface_mismatches(device, iface, got.interfaces.get(name))
    found += [Mismatch(device, f"interface {name}", "absent", "present")
              for name in got.interfaces.keys() - want.interfaces.keys()]
    for name, rules in want.acls.items():
        found += _acl_mismatches(device, name, rules, got.acls.get(name))
    found += [Mismatch(device, f"acl {name}", "absent", "present") for name in got.acls.keys() - want.acls.keys()]
    found += [Mismatch(device, f"line {line}", "a line the reader knows", f"{text!r}: {why}")
              for line, text, why in got.unknown]
    return found
