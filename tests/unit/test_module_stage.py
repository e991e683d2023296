"""The Ansible modules' one helper: boothnet's errors become fail_json with the CLI's messages,
anything else one line naming it a bug (the traceback only in `exception`)."""

from __future__ import annotations

import importlib.util

import pytest

from boothnet.errors import IntentError, IntentInvalid
from tests.helpers import ROOT

_spec = importlib.util.spec_from_file_location("boothnet_stage", ROOT / "plugins/module_utils/boothnet_stage.py")
assert _spec and _spec.loader
stage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(stage)


class Failed(Exception):
    pass


class FakeModule:
    def fail_json(self, **result):
        raise Failed(result)


def boom(kind: str):
    if kind == "intent":
        raise IntentInvalid([IntentError("inv/hosts.yml", "all", "empty file", "a group `all`")])
    raise ZeroDivisionError("division by zero")


def test_intent_errors_read_as_the_cli_prints_them(monkeypatch):
    monkeypatch.setattr("boothnet.render.build.build", lambda *a, **k: boom("intent"))
    with pytest.raises(Failed) as failed:
        stage.run_stage(FakeModule(), "boothnet.render.build:build", "inv")
    result = failed.value.args[0]
    assert result["msg"] == ("intent has 1 error(s):\n  inv/hosts.yml: all: 'empty file': a group `all`\n"
                             "nothing was written")
    assert result["errors"] == ["inv/hosts.yml: all: 'empty file': a group `all`"]


def test_a_crash_is_one_line_naming_a_bug(monkeypatch):
    monkeypatch.setattr("boothnet.render.build.build", lambda *a, **k: boom("crash"))
    with pytest.raises(Failed) as failed:
        stage.run_stage(FakeModule(), "boothnet.render.build:build", "inv")
    result = failed.value.args[0]
    assert result["msg"] == "internal error: ZeroDivisionError: division by zero; this is a bug in boothnet"
    assert "Traceback" in result["exception"]


def test_the_result_comes_back_when_nothing_fails(monkeypatch):
    monkeypatch.setattr("boothnet.render.build.build", lambda *a, **k: "built")
    assert stage.run_stage(FakeModule(), "boothnet.render.build:build", "inv") == "built"
