"""pytest plugin (entry point `pytest11`, loaded wherever boothnet is installed): with
BOOTHNET_REQUIRE_BATFISH=1 (CI sets it), a test marked `batfish` that would skip fails instead,
so no Batfish check is ever silently not run."""

from __future__ import annotations

import os

import pytest

REQUIRE_ENV = "BOOTHNET_REQUIRE_BATFISH"


def batfish_required() -> bool:
    return os.environ.get(REQUIRE_ENV, "").strip() not in ("", "0")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and batfish_required() and item.get_closest_marker("batfish"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_ENV}=1 and this Batfish test skipped: {reason}"
