"""Stage 2, derive: the validated `Network` in, one `DeviceModel` per device out (ports, SVIs,
ACLs compiled from the ordered policy, routes, OSPF, the VPN peer), platform-neutral. Next:
render."""

from boothnet.derive.build import DeriveContext, derive_network
from boothnet.derive.model import DeviceModel

__all__ = ["DeriveContext", "DeviceModel", "derive_network"]
