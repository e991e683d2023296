"""boothnet doctor names what is missing and the Debian package that provides it."""

from __future__ import annotations

import os

import pytest

from boothnet.lab import doctor


def test_missing_charon_plugins_name_their_packages(tmp_path, monkeypatch):
    monkeypatch.setattr(doctor, "PLUGIN_DIR", tmp_path)  # no plugin installed
    checks = {c.name: c for c in doctor.check_programs()}
    gcm = checks["charon plugin gcm"]
    assert not gcm.ok and gcm.package == "libstrongswan-standard-plugins"
    assert checks["charon plugin kernel-libipsec"].package == "libcharon-extra-plugins"
    assert checks["charon plugin sha2"].package == "libstrongswan"
    line = checks["charon plugin openssl"].line()
    assert line == "  FAIL charon plugin openssl: not found (install Debian package libstrongswan-standard-plugins)"


def test_missing_program_is_named_with_its_package(monkeypatch):
    monkeypatch.setattr(doctor, "PROGRAMS", (("nuttcp-not-installed", "nuttcp"),))
    (check,) = [c for c in doctor.check_programs() if c.name == "nuttcp-not-installed"]
    assert not check.ok and doctor.missing_packages([check]) == ["nuttcp"]


def test_java_for_a_jar_that_is_not_there(monkeypatch, tmp_path):
    monkeypatch.setenv("BATFISH_JAR", str(tmp_path / "allinone.jar"))
    check = doctor.check_java()
    assert not check.ok and "no such file" in check.detail


@pytest.mark.lab
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: a scratch namespace")
def test_charon_that_cannot_load_a_plugin_fails_naming_it(monkeypatch):
    # `!` makes a plugin critical: charon refuses to start without it, as without gcm/openssl
    monkeypatch.setattr(doctor.strongswan, "PLUGINS", doctor.strongswan.PLUGINS + " nosuchplugin!")
    with doctor.scratch_namespace() as ns:
        check = doctor.check_charon(ns, timeout=5)
    assert not check.ok and "nosuchplugin" in check.detail


@pytest.mark.lab
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: a scratch namespace")
def test_the_machine_passes_every_required_check():
    failed = [c.line() for c in doctor.run_doctor() if not c.ok and c.required]
    assert failed == []
