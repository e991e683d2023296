"""The service boothnet starts listens on loopback only: a booth laptop on a show floor must not
serve its configs to anyone who reaches it."""

from __future__ import annotations

import pytest

from boothnet.verify.batfish import local
from boothnet.verify.batfish.service import read_started


def test_the_service_boothnet_started_listens_on_loopback_only(host):
    started = read_started(local.service.STATE_DIR)
    if started is None or started.kind != "java":
        pytest.skip("the Batfish service here was not started by `boothnet batfish up`")
    where = local.listening_addresses()
    assert {a.rsplit(":", 1)[1] for a in where} == {"9996", "9997"}, where
    assert all(a.rsplit(":", 1)[0] in ("127.0.0.1", "[::ffff:127.0.0.1]") for a in where), where
    answering, line = local.status()
    assert answering and "listening on" in line and "reachable from other machines" not in line, line


def test_docker_publishes_on_the_bind_address_only(monkeypatch, tmp_path):
    seen: list[list[str]] = []

    class Done:
        returncode, stderr = 1, "no daemon"

    monkeypatch.setattr(local.subprocess, "run", lambda argv, **_: seen.append(argv) or Done())
    with pytest.raises(local.BatfishStartError):
        local._start_docker(tmp_path, 1)
    published = [a for a in seen[-1] if a.count(":") == 2]
    assert published == ["127.0.0.1:9996:9996", "127.0.0.1:9997:9997"], seen[-1]
