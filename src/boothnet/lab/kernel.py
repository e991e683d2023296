"""What this machine's kernel can do for a lab (probed once per process)."""

from __future__ import annotations

import functools

from boothnet.lab import net
from boothnet.lab.spec import VlanMode


@functools.cache
def detect_vlan_mode() -> VlanMode:
    """ "dot1q" if an 802.1Q device can be created in a throwaway namespace, else "segment"."""
    return "dot1q" if net.vlan_probe() else "segment"
