"""No Batfish service: SKIPPED with the docker command, never PASS; require is fatal."""

from __future__ import annotations

import json
import os
import re
import socket

import pytest
from bf_recorded import booth_intent, configs_dir

from boothnet.verify.batfish.local import BatfishStartError, stop, up
from boothnet.verify.batfish.report import Status
from boothnet.verify.batfish.review import review_change
from boothnet.verify.batfish.service import (
    DOCKER_COMMAND,
    BatfishAsk,
    BatfishUnavailable,
    find_host,
    probe,
    read_started,
    service_status,
)
from boothnet.verify.batfish.verify import run_verify


@pytest.fixture
def no_service(no_batfish):
    """No BATFISH_HOST and no service that `boothnet batfish up` started."""


@pytest.fixture
def closed_port() -> str:
    """host:port with nothing listening (bound then closed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"127.0.0.1:{port}"


def test_find_host_prefers_explicit_then_env(monkeypatch, no_batfish):
    monkeypatch.setenv("BATFISH_HOST", "bf.example")
    assert find_host("explicit") == "explicit"
    assert find_host() == "bf.example"
    monkeypatch.setenv("BATFISH_HOST", "  ")
    assert find_host() is None


def test_probe_without_host_is_unreachable_with_docker_command(no_service):
    status = probe()
    assert not status.reachable and "BATFISH_HOST" in status.reason
    assert DOCKER_COMMAND in status.skip_reason


def test_find_host_falls_back_to_the_service_boothnet_started(monkeypatch, no_batfish, tmp_path):
    monkeypatch.setattr("boothnet.verify.batfish.service.STATE_DIR", tmp_path)
    record = {"kind": "java", "host": "localhost", "pid": os.getpid(), "log": "x"}
    (tmp_path / "service.json").write_text(json.dumps(record))
    assert find_host() == "localhost"
    (tmp_path / "service.json").write_text(json.dumps({**record, "pid": 2**22 + 1}))  # no such pid
    assert find_host() is None


@pytest.fixture
def nothing_answers(monkeypatch, closed_port):
    """No service answers anywhere (CI runs one on localhost:9996: these tests must not see it)."""
    monkeypatch.setattr("boothnet.verify.batfish.local.probe", lambda host, timeout=2.0: probe(closed_port, 0.2))


def test_up_uses_a_service_that_answers_here_and_starts_none(monkeypatch, no_batfish, tmp_path):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    try:
        port = srv.getsockname()[1]
        monkeypatch.setattr("boothnet.verify.batfish.local.probe",
                            lambda host, timeout=2.0: probe(f"127.0.0.1:{port}" if host == "localhost" else host, 0.5))
        monkeypatch.setenv("BATFISH_JAR", str(tmp_path / "never-started.jar"))
        assert up(tmp_path) == ("localhost", None)
        assert read_started(tmp_path).kind == "found"  # every command finds it from now on
        assert stop(tmp_path) == "Batfish at localhost left running: boothnet did not start it"
        assert read_started(tmp_path) is None
    finally:
        srv.close()


def test_up_with_nothing_to_start_names_the_three_ways(monkeypatch, no_batfish, nothing_answers, tmp_path):
    monkeypatch.delenv("BATFISH_JAR", raising=False)
    monkeypatch.setattr("shutil.which", lambda name: None)  # no docker, no java
    with pytest.raises(BatfishStartError) as err:
        up(tmp_path)
    assert all(way in str(err.value) for way in ("BATFISH_HOST", "BATFISH_JAR", "Docker"))


def test_up_with_a_missing_jar_says_so(monkeypatch, no_batfish, nothing_answers, tmp_path):
    monkeypatch.setenv("BATFISH_JAR", str(tmp_path / "nope.jar"))
    with pytest.raises(BatfishStartError, match=r"BATFISH_JAR=.*nope.jar: no such file"):
        up(tmp_path)


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
    with pytest.raises(BatfishUnavailable, match=re.escape(DOCKER_COMMAND)):
        service_status(closed_port, require=True, timeout=0.5)


def test_run_verify_without_service_is_skipped_never_passed(tmp_path, no_service):
    report = run_verify(booth_intent(), configs_dir(), tmp_path, host=None, require=False)
    assert report.status == Status.SKIPPED
    assert report.checks and all(c.status == Status.SKIPPED for c in report.checks)
    data = json.loads((tmp_path / "verify.json").read_text())
    assert data["status"] == "SKIPPED"
    assert all(DOCKER_COMMAND in c["reason"] for c in data["checks"])
    md = (tmp_path / "verify.md").read_text()
    assert "SKIPPED" in md and DOCKER_COMMAND in md and "PASS" not in md


def test_run_verify_with_require_raises(tmp_path, closed_port):
    with pytest.raises(BatfishUnavailable):
        run_verify(booth_intent(), configs_dir(), tmp_path, host=closed_port, require=True)
    assert not (tmp_path / "verify.json").exists()


def test_review_without_service_is_skipped_with_exit_zero_and_report(tmp_path, no_service):
    result = review_change(configs_dir("base"), configs_dir("change"), booth_intent(), tmp_path)
    assert result.status == Status.SKIPPED and result.exit_code == 0
    assert DOCKER_COMMAND in (tmp_path / "review.md").read_text()
    assert "SKIPPED" in (tmp_path / "review.html").read_text()


def test_review_with_require_raises(tmp_path, closed_port):
    with pytest.raises(BatfishUnavailable):
        review_change(configs_dir("base"), configs_dir("change"), booth_intent(), tmp_path,
                      BatfishAsk(closed_port, require=True))
