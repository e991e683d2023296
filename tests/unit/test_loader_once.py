"""A file Ansible's plugins checked is parsed once: the load after the check takes that parse,
once; a file edited since (even to the same size) is parsed again."""

from __future__ import annotations

import yaml

from boothnet.intent import loader
from boothnet.intent.loader import load_inventory, yaml_file_errors


def test_the_load_after_a_check_takes_its_parse_once(inventory_copy, monkeypatch):
    inv = inventory_copy()
    vlans = inv.path / "group_vars" / "all" / "vlans.yml"
    parsed: list[str] = []
    real = loader._parse_yaml
    monkeypatch.setattr(loader, "_parse_yaml", lambda path, data, errors: parsed.append(path.name) or
                        real(path, data, errors))
    assert yaml_file_errors(vlans) == []
    assert parsed == ["vlans.yml"]
    first = load_inventory(inv.path)
    assert "vlans.yml" not in parsed[1:]  # taken from the check
    second = load_inventory(inv.path)
    assert parsed.count("vlans.yml") == 2  # taken once only: the second load parses its own
    assert first.vars["vlans"] == second.vars["vlans"] and first.vars["vlans"] is not second.vars["vlans"]


def test_an_edit_after_the_check_is_read(inventory_copy):
    inv = inventory_copy()
    vlans = inv.path / "group_vars" / "all" / "vlans.yml"
    assert yaml_file_errors(vlans) == []
    text = vlans.read_text()
    assert "mtu: 9000" in text
    edited = text.replace("mtu: 9000", "mtu: 1500", 1)  # the same size, maybe the same mtime
    vlans.write_text(edited)
    assert load_inventory(inv.path).vars["vlans"] == yaml.safe_load(edited)["vlans"]
