"""``BOOTHNET_TRACE=1``: one line on stderr per costly step of a run (an intent load, a
derive, the Batfish view rendered, a snapshot loaded), so that a run can show it did each
once. Off by default: the steps are called where they happen, not counted afterwards."""

from __future__ import annotations

import os
import sys

TRACE_ENV = "BOOTHNET_TRACE"


def trace(event: str) -> None:
    if os.environ.get(TRACE_ENV, "") not in ("", "0"):
        print(f"trace: {event}", file=sys.stderr, flush=True)
