"""Live Batfish checks: `pytest checks/` (sc-booth by default; `--network`, `--batfish-host`).

The snapshot is the intent's Batfish view, built here from inventories/<network> unless
`--snapshot-dir` names a folder of configs. With no reachable service every check SKIPS with
the reason and how to start one; `--require-batfish` or BOOTHNET_REQUIRE_BATFISH=1 (CI) turns
that into a failure. Options are registered here only (tests/ must not register them again).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from boothnet.intent import load_network
from boothnet.verify.batfish.from_intent import load_verify_intent, render_batfish_view
from boothnet.verify.batfish.intent import VerifyIntent
from boothnet.verify.batfish.pytest_plugin import batfish_required
from boothnet.verify.batfish.questions import Answers, collect
from boothnet.verify.batfish.service import ServiceStatus, open_session, probe
from boothnet.verify.batfish.snapshot import build_snapshot_dir, init_snapshot, read_configs

REPO = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("boothnet checks")
    group.addoption("--network", default="sc-booth", help="network under inventories/ to check")
    group.addoption("--batfish-host", default=os.environ.get("BATFISH_HOST"),
                    help="Batfish service host (default: $BATFISH_HOST)")
    group.addoption("--snapshot-dir", default=None,
                    help="folder of *.cfg to check (default: the intent's Batfish view, built here)")
    group.addoption("--require-batfish", action="store_true", default=False,
                    help="fail instead of skip when no Batfish service is reachable")


@pytest.fixture(scope="session")
def batfish_status(request: pytest.FixtureRequest) -> ServiceStatus:
    status = probe(request.config.getoption("--batfish-host"))
    if not status.reachable:
        msg = f"BATFISH CHECKS NOT RUN: {status.skip_reason}"
        if request.config.getoption("--require-batfish") or batfish_required():
            pytest.fail(msg)
        pytest.skip(msg)
    return status


@pytest.fixture(scope="session")
def network(request: pytest.FixtureRequest, batfish_status: ServiceStatus) -> str:
    name = request.config.getoption("--network")
    if not name:
        pytest.skip("BATFISH CHECKS NOT RUN: give --network <name> (inventories/<name>)")
    return str(name)


@pytest.fixture(scope="session")
def verify_intent(network: str) -> VerifyIntent:
    try:
        return load_verify_intent(network)
    except NotImplementedError as exc:
        pytest.skip(f"BATFISH CHECKS NOT RUN: {exc}")


@pytest.fixture(scope="session")
def snapshot_configs(request: pytest.FixtureRequest, network: str,
                     tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = request.config.getoption("--snapshot-dir")
    if given:
        path = Path(given)
        if not any(path.glob("*.cfg")):
            pytest.skip(f"BATFISH CHECKS NOT RUN: no *.cfg in {path}")
        return path
    view, _ = render_batfish_view(load_network(REPO / "inventories" / network),
                                  tmp_path_factory.mktemp("view"))
    return view.out_dir


@pytest.fixture(scope="session")
def configs(snapshot_configs: Path) -> dict[str, str]:
    return read_configs(snapshot_configs)


@pytest.fixture(scope="session")
def answers(
    batfish_status: ServiceStatus,
    verify_intent: VerifyIntent,
    snapshot_configs: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Answers:
    snap = build_snapshot_dir(snapshot_configs, verify_intent.links,
                              tmp_path_factory.mktemp("batfish") / "snapshot")
    bf = open_session(batfish_status, "boothnet-checks")
    init_snapshot(bf, snap, "checks")
    return collect(bf, verify_intent, "checks")


@pytest.fixture(scope="session")
def need(answers: Answers) -> Callable[[Any, str], Any]:
    """need(value, what): the answer, or a skip naming the question that did not answer."""

    def _need(value: Any, what: str) -> Any:
        if value is None:
            pytest.skip(f"Batfish did not answer {what}: {answers.errors}")
        return value

    return _need


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "checks" in item.path.parts:
            item.add_marker(pytest.mark.batfish)
