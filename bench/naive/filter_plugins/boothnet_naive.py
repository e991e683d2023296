"""Filter for the naive per-host rendering benchmark: a host's input with its derived model."""

from __future__ import annotations

from boothnet.tools.scalebench import naive_host


class FilterModule:
    def filters(self) -> dict[str, object]:
        return {"boothnet_naive_host": naive_host}
