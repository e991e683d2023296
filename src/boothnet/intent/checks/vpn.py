"""The VPN: gateways, peers, the inner MTU through ESP, the booth hosts allowed."""

from __future__ import annotations

from boothnet.errors import IntentError
from boothnet.intent.checks.base import CheckBase
from boothnet.intent.model import Link, Vpn
from boothnet.platforms import platforms
from boothnet.platforms.profiles import profile

# ESP overhead in bytes for the worst case of each cipher family: outer IPv4 20, SPI and
# sequence 8, IV, padding to the block, pad length and next header 2, ICV; UDP 8 if encapsulated.
_ESP_CIPHER_OVERHEAD = {"gcm": 8 + 3 + 2 + 16, "cbc": 16 + 15 + 2 + 16}


def esp_overhead(esp_proposal: str, udp_encapsulation: bool) -> int:
    cipher = "gcm" if "gcm" in esp_proposal else "cbc"
    return 20 + 8 + _ESP_CIPHER_OVERHEAD[cipher] + (8 if udp_encapsulation else 0)


class VpnChecks(CheckBase):
    """The VPN's gateways and the inner MTU that fits through ESP."""

    def vpn(self) -> None:
        vpn = self.net.vpn
        if vpn is None:
            return
        file = self.src["vpn"]
        for field in ("booth_gateway", "home_gateway"):
            if getattr(vpn, field) not in self.net.devices:
                self.add(file, f"vpn.{field}", getattr(vpn, field), "a known device")
            else:
                self._vpn_end(field, file)
        if vpn.home_gateway == vpn.booth_gateway:
            self.add(file, "vpn.home_gateway", vpn.home_gateway,
                     f"a device other than vpn.booth_gateway ({vpn.booth_gateway}): a tunnel needs two ends")
        for field in ("booth_subnets", "home_subnets"):
            self._vpn_subnets(vpn, field, file)
        kind, _, group = vpn.clients.partition(":")
        if kind != "group" or group not in self.net.host_groups:
            self.add(file, "vpn.clients", vpn.clients, "group:<a known host group>")
        elif len(self.net.host_groups[group]) > vpn.max_clients:
            self.add(
                self.src["host_groups"],
                f"host_groups.{group}",
                f"{len(self.net.host_groups[group])} hosts",
                f"at most {vpn.max_clients} VPN clients (vpn.max_clients)",
            )
        overhead = max(esp_overhead(p, vpn.udp_encapsulation) for p in vpn.esp_proposals)
        inner = self.net.mtu_policy.crypto_inner
        # ESP leaves both ends by their routed links: the booth's and the home side's
        for link in self._routed_links_of(vpn.booth_gateway) + self._routed_links_of(vpn.home_gateway):
            mtu = self.net.link_mtu(link)  # its own, or its ports' (1500 unless they say more)
            if inner + overhead > mtu:
                self.add(
                    self.src["network"],
                    "mtu_policy.crypto_inner",
                    inner,
                    f"at most {mtu - overhead}: ESP adds up to {overhead} bytes and the "
                    f"outer link {link.a} -- {link.b} has MTU {mtu}",
                )
        self._vpn_clients(group, file)

    def _routed_links_of(self, device: str) -> list[Link]:
        """The device's routed links, each once (a link between the two gateways is both's)."""
        if device not in self.net.devices:
            return []
        return [lk for lk in self.net.links
                if lk.mode == "routed" and device in (lk.a.partition(":")[0], lk.b.partition(":")[0])]

    def _role_of(self, ref: str) -> str | None:
        device = self.net.devices.get(ref.partition(":")[0])
        return device.role if device else None

    def _vpn_end(self, field: str, file: str) -> None:
        """A VPN end is a device whose platform terminates IPsec, with a routed link (IPv4
        addresses on both ends) to a device of role show_network: the tunnel's outer addresses.
        Without either, derive builds no tunnel and neither gateway's config carries the VPN."""
        assert self.net.vpn is not None
        name = getattr(self.net.vpn, field)
        device = self.net.devices[name]
        platform = platforms().get(device.platform)
        if platform is None:
            return  # an unsupported platform is reported by devices()
        if not platform.ipsec:
            able = ", ".join(p.name for p in platforms().values() if p.ipsec)
            self.add(file, f"vpn.{field}", name,
                     f"a device whose platform can terminate IPsec ({able}): {name} is {device.platform}, which "
                     f"cannot (ipsec: false in capabilities.yml): no config of {name} would carry the tunnel")
            return
        switch = profile(device.platform, device.model, device.release)
        if switch is not None and not switch.ipsec:
            self.add(file, f"vpn.{field}", name,
                     f"a device that can terminate IPsec: {name} is a {switch.label}, a switch that terminates no "
                     "IPsec for transit traffic (platforms/profiles/): put the VPN end on a router or a Linux gateway")
            return
        outside = [lk for lk in self._routed_links_of(name) if lk.addresses is not None
                   and self._role_of(lk.b if lk.a.partition(":")[0] == name else lk.a) == "show_network"]
        if not outside:
            self.add(file, f"vpn.{field}", name,
                     f"a device with a routed port to the show network (a routed link with addresses to a device "
                     f"of role show_network): {name} ({device.role}, {device.platform}) has none, so the tunnel "
                     f"has no outer address and the VPN would be rendered on neither gateway")

    def _vpn_subnets(self, vpn: Vpn, field: str, file: str) -> None:
        """Each of the VPN's VLANs known, and in a zone it may carry."""
        for index, ref in enumerate(getattr(vpn, field)):
            kind, _, name = ref.partition(":")
            if kind != "vlan" or name not in self.vlans_by_name:
                self.add(file, f"vpn.{field}[{index}]", ref, "vlan:<a known VLAN name>")
                continue
            zone = self.vlans_by_name[name][1].zone
            if zone in ("research", "production") and zone not in vpn.protected_zones:
                self.add(file, f"vpn.{field}[{index}]", ref, f"a VLAN outside the {zone} zone, or list "
                         f"{zone} in vpn.protected_zones to carry {zone} traffic through the VPN on purpose")

    def _vpn_clients(self, group: str, file: str) -> None:
        """Each listed client once, in a VLAN the VPN carries from the booth."""
        vpn = self.net.vpn
        assert vpn is not None
        members = self.net.host_groups.get(group, [])
        carried = {ref.partition(":")[2] for ref in vpn.booth_subnets}
        for index, member in enumerate(members):
            path = f"host_groups.{group}[{index}]"
            if member in members[:index]:
                self.warnings.append(IntentError(self.src["host_groups"], path, member,
                                                 "each VPN client once (listed again)"))
            endpoint = self.net.endpoints.get(member)
            if endpoint is not None and endpoint.vlan not in carried:
                self.add(self.src["host_groups"], path, member,
                         f"a host in a VLAN of vpn.booth_subnets ({', '.join(sorted(carried))}): {member} is in "
                         f"{endpoint.vlan}, which the tunnel does not carry")

