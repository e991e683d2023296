"""The live Batfish service for these tests: found as every command finds it (BATFISH_HOST, or
the one `boothnet batfish up` started); a skip here fails under BOOTHNET_REQUIRE_BATFISH=1."""

from __future__ import annotations

import pytest

from boothnet.verify.batfish.service import find_host, probe


@pytest.fixture(scope="session")
def host() -> str:
    status = probe(find_host())
    if not status.reachable:
        pytest.skip(f"LIVE BATFISH TESTS NOT RUN: {status.skip_reason}")
    return str(status.host)
