"""What a validate run runs, as data: a profile. The CLI's flags and the Ansible modules'
options edit one (``Profile.edit``); a watch round makes its own from WATCH_ROUND."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Profile:
    """``throughput``: the measuring stages (throughput, production under load, WAN); ``wan_sweep``:
    the WAN window sweep among them; ``vpn_resilience``: the VPN's outage tests (an IKE restart, an
    outside link cut), which a floor never runs; ``ask_batfish``: Batfish's view of every isolation
    flow beside the live one (``batfish_host``: its service); ``isolation_seed``: the isolation
    sample (None: a new one each run); ``share`` (a watch round): only the isolation pairs
    ("src>dst"), hosts, VLANs and MTU path sources it accepts, and the VPN's state and inner MTU."""

    name: str
    throughput: bool = True
    wan_sweep: bool = True
    vpn_resilience: bool = True
    ask_batfish: bool = True
    batfish_host: str | None = None
    isolation_seed: int | None = None
    convergence_timeout_s: float = 60
    share: Callable[[str], bool] | None = None
    spot_s: int | None = None  # a watch round's spot check: one path measured for that long ...
    spot_index: int = 0  # ... the spot_index-th, counted round the list

    def edit(self, **changes: Any) -> Profile:
        """This profile with ``changes`` (unknown names raise TypeError, as a bad flag should)."""
        return dataclasses.replace(self, **changes)


FULL = Profile("full")
# everything but what measures: a quick look at reachability, isolation, MTU and the VPN's state
QUICK = Profile("quick", throughput=False, wan_sweep=False, vpn_resilience=False)
# a share of the quick checks each round; the configs have not changed since verify asked Batfish
WATCH_ROUND = Profile("watch round", throughput=False, wan_sweep=False, vpn_resilience=False, ask_batfish=False)
# a booth's live network: nothing that breaks it on purpose
FLOOR = Profile("floor", vpn_resilience=False)
PROFILES = {p.name: p for p in (FULL, QUICK, WATCH_ROUND, FLOOR)}
