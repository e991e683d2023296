"""What the switch a booth rents adds to its model: its profile's forms (MTU, trunk, source
guard, VTP, spanning tree) and the management plane every IOS/EOS config carries."""

from __future__ import annotations

from boothnet.derive.base import DeriverState
from boothnet.derive.model import DeviceModel, Interface, ManagementPlane, SwitchForms
from boothnet.intent.model import Device
from boothnet.platforms.profiles import Profile, profile

_SECRET_ENV = {"cisco_ios": "ios_secret_env", "arista_eos": "eos_secret_env"}
# Batfish parses no `${`, and its EOS grammar takes a sha512 secret only in crypt form: the view
# gets the variable's name on IOS and this hash (`openssl passwd -6 -salt batfishview batfish-view`)
# on EOS; verify says so. It opens nothing: the view is never deployed.
_VIEW_SECRET = {"arista_eos": "$6$batfishview$LUpKqiBK8S.mOIVpZeVk/tkUvsehhi3tmuz0055HUrdbeZp3m4tws16My"
                              "oOy26kTZ74XdOceyiZnaOKCsT8aa0"}
_L2 = ("access", "trunk", "unused")
DEFAULT_MTU = 1500


class SwitchDerive(DeriverState):
    def _profile(self, device: Device, platform: str) -> Profile | None:
        """The model's profile, for a switch rendered as itself (a Batfish or lab stand-in is not)."""
        if platform != device.platform:
            return None
        return profile(platform, device.model, device.release)

    def _switch(self, model: DeviceModel, device: Device, switch: Profile | None) -> None:
        """The profile's forms, the management plane, and each interface's `mtu` line."""
        system_mtu = None
        if switch is not None:
            if switch.mtu == "system":
                system_mtu = max((i.mtu for i in model.interfaces), default=DEFAULT_MTU)
                system_mtu = None if system_mtu == DEFAULT_MTU else system_mtu
            model.switch = SwitchForms(switch.model, switch.release, system_mtu, switch.trunk_encapsulation,
                                       switch.source_guard, switch.vtp, switch.stp_mode, switch.edge_command,
                                       switch.port_acl_over_svi, switch.port_security_violation)
            # a containerlab kind renames the management interface and the ports: its bootstrap keeps
            # its own way in (VRF, SSH, user), and its port list is its own
            if model.mgmt_interface == switch.mgmt_interface:
                model.management = self._management(model, switch)
                if device.model is not None:  # a switch that names no model: its ports are not known
                    model.interfaces = self._with_unused_ports(model, switch)
        for iface in model.interfaces:
            if system_mtu is not None and iface.kind in _L2:
                iface.mtu = system_mtu  # the switch carries its system MTU on every switchport
            if switch is not None and switch.mtu == "layer3":
                # EOS: `mtu` is the routed MTU; a switchport switches frames up to its maximum anyway.
                # Batfish 0.36 takes a switchport's `mtu` (default 1500) as its frame limit: its view
                # gets the link's (view_differences says so; the read-back decides the real one)
                iface.mtu_command = None if iface.kind in _L2 and not self.ctx.batfish_view else iface.mtu
                continue
            default = system_mtu or DEFAULT_MTU
            iface.mtu_command = iface.mtu if iface.mtu != default and not (system_mtu and iface.kind in _L2) else None

    def _management(self, model: DeviceModel, switch: Profile) -> ManagementPlane:
        """The way in the config keeps through a full replace."""
        settings = self.net.settings.management
        env = getattr(settings, _SECRET_ENV[model.platform])
        secret = _VIEW_SECRET.get(model.platform, env) if self.ctx.batfish_view else f"${{{env}}}"
        return ManagementPlane(settings.user, secret, settings.domain, switch.mgmt_vrf, settings.gateway)

    def _with_unused_ports(self, model: DeviceModel, switch: Profile) -> list[Interface]:
        """Its interfaces with every other port of the model after the cabled ones, each an access
        port, shut: a full replace would otherwise leave them up in VLAN 1 and negotiating a trunk
        (`dynamic auto`)."""
        used = {i.name for i in model.interfaces}
        unused = [Interface(name, "unused", "unused", DEFAULT_MTU, shutdown=True)
                  for name in switch.ports if name not in used]
        ports = [i for i in model.interfaces if i.kind != "svi"]
        return ports + unused + [i for i in model.interfaces if i.kind == "svi"]
