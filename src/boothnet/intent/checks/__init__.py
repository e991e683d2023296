"""Every check of a loaded intent, feature by feature (one module each: devices, vlans, links,
policy, vpn, paths, ipv6); all errors at once, each naming the file, the field path, the value and
what is allowed. Linear or n log n in the size of the intent, never all-pairs."""

from __future__ import annotations

from boothnet.errors import IntentError
from boothnet.intent.checks.devices import DeviceChecks
from boothnet.intent.checks.ipv6 import Ipv6Checks
from boothnet.intent.checks.links import LinkChecks
from boothnet.intent.checks.paths import PathChecks
from boothnet.intent.checks.policy import PolicyChecks
from boothnet.intent.checks.vlans import VlanChecks
from boothnet.intent.checks.vpn import VpnChecks
from boothnet.intent.model import Network


class Checks(DeviceChecks, VlanChecks, LinkChecks, PolicyChecks, VpnChecks, PathChecks, Ipv6Checks):
    """The features' checks, in the order their findings build on each other."""

    def run(self) -> None:
        self.settings()
        self.devices()
        self.vlans()
        ports = self.links()
        self.endpoints(ports)
        self.vlan_carriage()
        if not self.errors:  # a bad VLAN or port would strand hosts twice over
            self.stranded_hosts()
        self.subnets()
        self.addresses()
        self.names()
        self.policy()
        self.intra_vlan_rules()
        self.shadowed_rules()
        self.unbound_address_rules()
        self.vpn()
        self.uplink_and_paths()
        self.ipv6()


def check_network(net: Network) -> list[IntentError]:
    checks = Checks(net)
    checks.run()
    net.warnings[:] = [str(w) for w in checks.warnings]
    return checks.errors
