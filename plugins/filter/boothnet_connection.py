"""Ansible filter: the variables of a host that say how Ansible reaches it, for the floor validate
(boothnet_validate's ``hosts``), which hands them to Ansible's own connection plugins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_filters import needing_boothnet

try:
    from boothnet.validate.floor.ansible_runner import connection_vars
except ImportError as error:
    BOOTHNET_MISSING: ImportError | None = error
else:
    BOOTHNET_MISSING = None


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return needing_boothnet({"connection_vars": lambda host_vars: connection_vars(
            dict(host_vars.items()) if isinstance(host_vars, Mapping) else host_vars)}, BOOTHNET_MISSING)
