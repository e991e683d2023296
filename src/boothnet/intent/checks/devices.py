"""Network-wide settings, devices and their ports, names the platforms accept."""

from __future__ import annotations

import re

from boothnet.intent.checks.base import MAX_MTU, MIN_MTU, CheckBase
from boothnet.intent.model import (
    Device,
    acl_name,
)
from boothnet.platforms import platforms, supported
from boothnet.platforms.profiles import DEFAULT_MODEL, models, profile

# printed into configs (a header comment, an interface description) and, for the network's name, into
# namespace and folder names: a line break or another control character would end or corrupt the line
ONE_LINE = "non-empty text on one line, without control characters (line breaks, tabs)"


def _one_line(text: str) -> bool:
    return bool(text.strip()) and text.isprintable()


class DeviceChecks(CheckBase):
    """Network-wide settings, each device and port, and the names its platform accepts."""

    # network-wide settings ---------------------------------------------------------------------
    def settings(self) -> None:
        """The twins of the per-object ranges: an MTU is 576-9216 wherever it is written, and
        OSPF's dead interval outlasts several hellos."""
        file = self.src["mtu_policy"]
        for field, mtu in self.net.mtu_policy.model_dump().items():
            if not MIN_MTU <= mtu <= MAX_MTU:
                self.add(file, f"mtu_policy.{field}", mtu, f"{MIN_MTU}-{MAX_MTU}")
        file, ospf = self.src["network"], self.net.settings.ospf
        for field in ("hello", "dead"):
            if not 1 <= getattr(ospf, field) <= 65535:
                self.add(file, f"network.ospf.{field}", getattr(ospf, field), "1-65535 seconds")
        if not _one_line(self.net.settings.name):
            self.add(file, "network.name", self.net.settings.name, ONE_LINE)
        self._management(file)
        if ospf.hello >= 1 and ospf.dead <= ospf.hello:
            self.add(file, "network.ospf.dead", ospf.dead,
                     f"more than hello ({ospf.hello} s), usually 4 x hello: neighbours would time out "
                     "between hellos")

    def _management(self, file: str) -> None:
        """The management gateway: in the management subnet, and only where every switch keeps its
        management port in a VRF of its own (a default route beside the data plane's would carry
        booth traffic)."""
        settings = self.net.settings
        gateway = settings.management.gateway
        if gateway is None:
            return
        if gateway not in settings.mgmt_subnet:
            self.add(file, "network.management.gateway", str(gateway),
                     f"an address in the management subnet {settings.mgmt_subnet}")
        shared = sorted(name for name, device in self.net.devices.items() if device.platform in DEFAULT_MODEL
                        and (switch := profile(device.platform, device.model, device.release)) is not None
                        and switch.mgmt_vrf is None)
        if shared:
            self.add(file, "network.management.gateway", str(gateway),
                     f"none while {', '.join(shared)} keep(s) the management port in the default VRF (EOS "
                     "Management1): a default route there would route booth traffic too; put the controller on the "
                     "management subnet")

    # devices ---------------------------------------------------------------------------------
    def devices(self) -> None:
        known = platforms()
        for name, device in sorted(self.net.devices.items()):
            file = self.src[f"host:{name}"]
            if device.platform not in known:
                self.add(file, "platform", device.platform, "supported platforms: " + ", ".join(supported()))
                continue
            self._model(name, device, file)
            entries = self.net.port_entries.get(name) or list(range(len(device.ports)))
            seen: dict[str, int] = {}
            for index, port in enumerate(device.ports):
                entry = entries[index]  # the file's entry: a range entry gives many ports
                if port.name in seen:
                    self.add(
                        file,
                        f"ports[{entry}].name",
                        port.name,
                        f"each port declared once (also ports[{seen[port.name]}])",
                    )
                seen[port.name] = entry
                if port.description is not None and not _one_line(port.description):
                    self.add(file, f"ports[{entry}].description", port.description, ONE_LINE)
                limit = known[device.platform].max_mtu
                if port.mtu is not None and not MIN_MTU <= port.mtu <= limit:
                    self.add(file, f"ports[{entry}].mtu", port.mtu, f"{MIN_MTU}-{limit} on {device.platform}")
            self._model_ports(name, device, file)
            if device.mgmt_address not in self.net.settings.mgmt_subnet:
                self.add(
                    file,
                    "mgmt_address",
                    str(device.mgmt_address),
                    f"an address in the management subnet {self.net.settings.mgmt_subnet}",
                )
        self._router_ids()

    def _model(self, name: str, device: Device, file: str) -> None:
        """A switch names a model its platform has a profile for; a Linux box has no model."""
        known = models(device.platform)
        if device.platform not in DEFAULT_MODEL:
            for field in ("model", "release"):
                if getattr(device, field) is not None:
                    self.add(file, field, getattr(device, field),
                             f"no {field} on {device.platform} (models are for cisco_ios and arista_eos switches)")
        elif device.model is not None and device.model not in known:
            self.add(file, "model", device.model,
                     f"a {device.platform} model with a profile in platforms/profiles/: {', '.join(sorted(known))}")
        elif device.release is not None and not re.match(r"^\d+\.\d+(\.\d+)?", device.release):
            self.add(file, "release", device.release, "a release such as 17.9.4 or 4.28.0F")

    def _model_ports(self, name: str, device: Device, file: str) -> None:
        """Every port the intent declares exists on the model it names, at a speed and MTU it takes (a
        switch that names no model is rendered with its platform's default forms, its ports unchecked)."""
        switch = profile(device.platform, device.model, device.release) if device.model else None
        if switch is None:
            return
        entries = self.net.port_entries.get(name) or list(range(len(device.ports)))
        for index, port in enumerate(device.ports):
            where = f"ports[{entries[index]}]"
            spec = switch.ports.get(port.name)
            if spec is None:
                self.add(file, f"{where}.name", port.name, f"a port of {switch.label}: {switch.port_text}")
                continue
            if port.speed not in spec.speeds:
                self.add(file, f"{where}.speed", port.speed,
                         f"a speed {port.name} of {switch.model} takes: {', '.join(map(str, spec.speeds))} Mb/s")
            if port.mtu is not None and port.mtu > 1500 and not spec.jumbo:
                self.add(file, f"{where}.mtu", port.mtu, f"1500 at most: {port.name} of {switch.model} carries no "
                         "jumbo frames")
            elif port.mtu is not None and switch.system_mtu_max < port.mtu <= platforms()[device.platform].max_mtu:
                self.add(file, f"{where}.mtu", port.mtu, f"at most {switch.system_mtu_max} on {switch.label}")

    def _router_ids(self) -> None:
        """OSPF cannot bring up two routers with one router ID (a device without one uses its
        management address)."""
        owners: dict[object, str] = {}
        for name, device in sorted(self.net.devices.items()):
            rid = device.router_id or device.mgmt_address
            if rid in owners and device.router_id is not None:
                self.add(self.src[f"host:{name}"], "router_id", str(rid),
                         f"a router ID no other device uses ({owners[rid]} has it)")
            owners.setdefault(rid, name)

    def names(self) -> None:
        """VLAN names, and the ACL names made from them, valid on every platform that renders them."""
        known = platforms()
        file = self.src["vlans"]
        for index, vlan in enumerate(self.net.vlans):
            where = sorted(set(self.vlan_presence.get(vlan.id, [])) | {vlan.gateway})
            for kind, name, devices in (("vlan", vlan.name, where), ("acl", acl_name(vlan, "in"), [vlan.gateway])):
                if any(e.path == f"vlans[{index}].name" and e.file == file for e in self.errors):
                    break  # the VLAN name itself is wrong: its ACL name follows from it
                for platform_name in sorted({self.net.devices[d].platform for d in devices if d in self.net.devices}):
                    rule = known[platform_name].names.get(kind) if platform_name in known else None
                    problem = rule.problem(name) if rule else None
                    if problem:
                        what = "VLAN name" if kind == "vlan" else f"name for the ACL {name} made from it"
                        self.add(file, f"vlans[{index}].name", vlan.name,
                                 f"a {what} valid on {platform_name}: {problem}")

