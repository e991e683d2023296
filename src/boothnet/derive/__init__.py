"""Stage 3: derive a per-device model from the validated intent."""

from boothnet.derive.build import DeriveContext, derive_network
from boothnet.derive.model import DeviceModel

__all__ = ["DeriveContext", "DeviceModel", "derive_network"]
