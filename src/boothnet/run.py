"""One run of the pipeline on one intent: it loads, validates and stamps the intent once,
derives each context once (on first use), and names the run's files (`Layout`).

Every stage takes a `Run` (or an inventory path, from which it makes one), so that a
`boothnet demo` — lab, build, verify, validate — reads the intent once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from boothnet.derive import DeriveContext, DeviceModel, derive_network
from boothnet.intent import Network, load_network
from boothnet.intent.stamp import IntentStamp, stamp_intent
from boothnet.layout import Layout
from boothnet.trace import trace

T = TypeVar("T")


class Run:
    def __init__(self, inventory: Path | str, build_root: Path | str = Path("build")) -> None:
        self.inventory = Path(inventory)
        self.build_root = Path(build_root)
        self._models: dict[str, dict[str, DeviceModel]] = {}
        self._memo: dict[str, Any] = {}
        # the Batfish snapshot of this run's view that a stage loaded last (a
        # verify.batfish.verify.LoadedSnapshot): later stages ask their questions of it
        self.batfish_snapshot: Any = None
        # IOS/EOS configs a booth team edited by hand (<device>.cfg): the lab's stand-ins run them
        self.vendor_configs: Path | None = None

    @classmethod
    def of(cls, intent: Run | Path | str, build_root: Path | str = Path("build")) -> Run:
        """`intent` itself when it is a Run already, else a new Run of that inventory."""
        return intent if isinstance(intent, Run) else cls(intent, build_root)

    @cached_property
    def stamp(self) -> IntentStamp:
        # taken before the intent is read: an edit in between leaves the stamp old, never new
        return stamp_intent(self.inventory)

    @cached_property
    def net(self) -> Network:
        self.stamp  # noqa: B018 - the stamp first, see above
        trace(f"load intent {self.inventory}")
        return load_network(self.inventory)

    @cached_property
    def layout(self) -> Layout:
        return Layout(self.build_root, self.net.name)

    def models(self, context: str, make_ctx: Callable[[Network], DeriveContext] = lambda _: DeriveContext()
               ) -> dict[str, DeviceModel]:
        """The devices derived in `context` ("hardware", "lab dot1q", "batfish"), once per run."""
        if context not in self._models:
            trace(f"derive {context}: {len(self.net.devices)} devices")
            self._models[context] = derive_network(self.net, make_ctx(self.net))
        return self._models[context]

    def once(self, key: str, make: Callable[[], T]) -> T:
        """`make()` the first time `key` is asked for in this run, its result after that (the
        Batfish view)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]
