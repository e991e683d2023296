"""No Batfish service: SKIPPED with the docker command, never PASS; require is fatal."""

from __future__ import annotations

import json
import socket

import pytest
from bf_recorded import booth_intent, configs_dir

from boothnet.batfish.report import Status
from boothnet.batfish.review import review_change
from boothnet.batfish.service import (
    DOCKER_COMMAND,
    BatfishUnavailable,
    find_host,
    probe,
    service_status,
)
from boothnet.batfish.verify import run_verify


@pytest.fixture
def closed_port() -> str:
    """host:port with nothing listening (bound then closed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"127.0.0.1:{port}"


def test_find_host_prefers_explicit_then_env(monkeypatch):
    monkeypatch.setenv("BATFISH_HOST", "bf.example")
    assert find_host("explicit") == "explicit"
    assert find_host() == "bf.example"
    monkeypatch.setenv("BATFISH_HOST", "  ")
    assert find_host() is None


def test_probe_without_host_is_unreachable_with_docker_command(monkeypatch):
    monkeypatch.delenv("BATFISH_HOST", raising=False)
    status = probe()
    assert not status.reachable and "BATFISH_HOST" in status.reason
    assert DOCKER_COMMAND in status.skip_reason


def test_probe_closed_port_is_unreachable(closed_port):
    status = probe(closed_port, timeout=0.5)
    assert not status.reachable and closed_port in status.reason


def test_probe_listening_port_is_reachable():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    try:
        assert probe(f"127.0.0.1:{srv.getsockname()[1]}", timeout=0.5).reachable
    finally:
        srv.close()


def test_require_makes_unreachable_fatal(closed_port):
    with pytest.raises(BatfishUnavailable, match="docker run -d -p 9996:9996 batfish/allinone"):
        service_status(closed_port, require=True, timeout=0.5)


def test_run_verify_without_service_is_skipped_never_passed(tmp_path, monkeypatch):
    monkeypatch.delenv("BATFISH_HOST", raising=False)
    report = run_verify(booth_intent(), configs_dir(), [], tmp_path, host=None, require=False)
    assert report.status == Status.SKIPPED
    assert report.checks and all(c.status == Status.SKIPPED for c in report.checks)
    data = json.loads((tmp_path / "verify.json").read_text())
    assert data["status"] == "SKIPPED"
    assert all(DOCKER_COMMAND in c["reason"] for c in data["checks"])
    md = (tmp_path / "verify.md").read_text()
    assert "SKIPPED" in md and DOCKER_COMMAND in md and "PASS" not in md


def test_run_verify_with_require_raises(tmp_path, closed_port):
    with pytest.raises(BatfishUnavailable):
        run_verify(booth_intent(), configs_dir(), [], tmp_path, host=closed_port, require=True)
    assert not (tmp_path / "verify.json").exists()


def test_review_without_service_is_skipped_with_exit_zero_and_report(tmp_path, monkeypatch):
    monkeypatch.delenv("BATFISH_HOST", raising=False)
    result = review_change(configs_dir("base"), configs_dir("change"), booth_intent(), tmp_path)
    assert result.status == Status.SKIPPED and result.exit_code == 0
    assert DOCKER_COMMAND in (tmp_path / "review.md").read_text()
    assert "SKIPPED" in (tmp_path / "review.html").read_text()


def test_review_with_require_raises(tmp_path, closed_port):
    with pytest.raises(BatfishUnavailable):
        review_change(configs_dir("base"), configs_dir("change"), booth_intent(), tmp_path,
                      host=closed_port, require=True)
