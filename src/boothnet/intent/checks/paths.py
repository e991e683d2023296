"""The show network's uplink and the paths over it."""

from __future__ import annotations

from boothnet.intent.checks.base import CheckBase


class PathChecks(CheckBase):
    """The uplink and the intent's paths over it."""

    def uplink_and_paths(self) -> None:
        if self.net.uplink and self.net.uplink.device not in self.net.devices:
            self.add(self.src["uplink"], "uplink.device", self.net.uplink.device, "a known device")
        for index, path in enumerate(self.net.throughput.paths):
            for field, value in (("from", path.source), ("to", path.destination)):
                if value not in self.net.endpoints:
                    self.add(self.src["throughput"], f"throughput.paths[{index}].{field}", value, "a known endpoint")
            if path.source == path.destination:
                self.add(self.src["throughput"], f"throughput.paths[{index}].to", path.destination,
                         f"another endpoint than the path's source {path.source} (a host to itself crosses no network)")

