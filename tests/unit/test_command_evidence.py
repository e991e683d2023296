"""Every IOS/EOS command form a config can print has evidence that a real device of that family
takes it (boothnet.platforms.evidence; docs/deploy.md, "What proves an IOS/EOS command").

No IOS or EOS device runs here: the reference networks and a generated show floor are rendered,
every line is reduced to its form, and a form with no entry in evidence/<platform>.yml fails,
named with its device, line number and line."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from boothnet.intent import load_network
from boothnet.platforms import evidence
from boothnet.platforms.evidence import (
    PLATFORMS,
    config_lines,
    evidence_problems,
    forms,
    line_form,
    unevidenced,
    unproven,
    unproven_problems,
)
from boothnet.render.build import build
from boothnet.tools.showfloor import floor_size, write_showfloor
from tests.helpers import INVENTORIES, ROOT, edit_yaml, ping_only_policy


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, Path]]:
    """(platform, network/device, config file) of every IOS/EOS device of the reference networks,
    the acceptance booths and a generated show floor (its booths rotate through every platform)."""
    root = tmp_path_factory.mktemp("evidence")
    floor = root / "floors" / "floor60"
    write_showfloor(floor, floor_size(60), "floor60")
    configs: list[tuple[str, str, Path]] = []
    acceptance = ROOT / "tests" / "acceptance"  # booths written from the docs (tests/acceptance/README.md)
    icmp_types = root / "icmp-types"  # rules naming ICMP types, on IOS and EOS in both families (issue 69)
    shutil.copytree(INVENTORIES / "eos-core-ds", icmp_types)
    ping_only_policy(icmp_types)
    edit_yaml(icmp_types, "group_vars/all/network.yml", lambda d: d["network"].update(name="icmp-types"))
    for inventory in [*sorted(p for p in INVENTORIES.iterdir() if p.is_dir()),
                      *sorted(p for p in acceptance.iterdir() if p.is_dir()), floor, icmp_types]:
        result = build(inventory, root / "build", run_tools=False)
        assert result.ok, (inventory.name, result.findings)
        for device in load_network(inventory).devices.values():
            if device.platform in PLATFORMS:
                cfg = root / "build" / inventory.name / "configs" / f"{device.name}.cfg"
                configs.append((device.platform, f"{inventory.name}/{device.name}", cfg))
    assert {p for p, _, _ in configs} == set(PLATFORMS)
    return configs


def test_every_rendered_line_has_evidence(rendered: list[tuple[str, str, Path]]) -> None:
    """A printed form with no evidence fails, unless evidence/unproven.yml lists it (with why)."""
    missing: dict[tuple[str, str], list[str]] = {}
    for platform, device, cfg in rendered:
        for number, line, form in unevidenced(platform, cfg.read_text(encoding="utf-8")):
            if form not in unproven(platform):
                missing.setdefault((platform, form), []).append(f"{device}:{number}: {line.strip()}")
    report = [f"{platform} {form!r} (no evidence in evidence/{platform}.yml, not in unproven.yml), e.g. {where[0]}"
              f"{f' (+{len(where) - 1} more)' if len(where) > 1 else ''}"
              for (platform, form), where in sorted(missing.items())]
    if report:
        pytest.fail(f"{len(report)} command forms without evidence:\n" + "\n".join(report), pytrace=False)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_unproven_list_only_shrinks(platform: str, rendered: list[tuple[str, str, Path]]) -> None:
    """Each form in evidence/unproven.yml is still printed and still has no evidence: one that gains
    evidence, or that no template prints any more, must leave the list."""
    printed: set[str] = set()
    for cfg_platform, _, cfg in rendered:
        if cfg_platform == platform:
            printed |= forms(cfg.read_text(encoding="utf-8"))
    assert unproven_problems(platform, printed) == []


def test_an_unproven_form_that_gains_evidence_or_leaves_the_configs_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cisco_ios.yml").write_text(yaml.safe_dump({"platform": "cisco_ios", "sources": {}, "forms": [
        {"form": "end", "evidence": [{"kind": "guide", "title": "t", "section": "s", "url": "u"}]}]}),
        encoding="utf-8")
    (tmp_path / "unproven.yml").write_text(yaml.safe_dump({"cisco_ios": [
        {"form": "end", "why": "searched"}, {"form": "vtp mode transparent", "why": "searched"},
        {"form": "ip routing", "why": ""}]}), encoding="utf-8")
    monkeypatch.setattr(evidence, "EVIDENCE_DIR", tmp_path)
    evidence.evidence.cache_clear()
    evidence.unproven.cache_clear()
    try:
        problems = "\n".join(unproven_problems("cisco_ios", {"end", "ip routing"}))
        assert "'end': has evidence in cisco_ios.yml now" in problems
        assert "'vtp mode transparent': no config prints it any more" in problems
        assert "'ip routing': no why" in problems
        assert unproven("cisco_ios") == {"end": "searched", "vtp mode transparent": "searched", "ip routing": ""}
    finally:
        evidence.evidence.cache_clear()
        evidence.unproven.cache_clear()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_evidence_file_is_well_formed(platform: str) -> None:
    assert evidence_problems(platform, ROOT) == []


def test_an_invented_command_is_named() -> None:
    config = ("interface GigabitEthernet1/0/1\n switchport mode trunk\n switchport trunk encapsulation isl\n"
              " no shutdown\n!\nend\n")
    assert unevidenced("cisco_ios", config) == [
        (3, " switchport trunk encapsulation isl", "interface/ switchport trunk encapsulation isl")]


def test_a_known_command_in_the_wrong_section_is_named() -> None:
    """`switchport mode access` has evidence under `interface`, not at the top level."""
    line = "switchport mode access"
    assert unevidenced("cisco_ios", line + "\n") == [(1, line, line)]


@pytest.mark.parametrize(("line", "form"), [
    ("interface GigabitEthernet1/0/1", "interface <ifname>"),
    (" switchport access vlan 30", "switchport access vlan <n>"),
    (" switchport trunk allowed vlan 110,111,120-125", "switchport trunk allowed vlan <n>"),
    (" ip address 10.10.10.1 255.255.255.0", "ip address <ip> <mask>"),
    ("   ip address 10.0.0.1/24", "ip address <prefix>"),
    (" ipv6 address 2001:db8:10::1/64", "ipv6 address <prefix6>"),
    ("ip route 0.0.0.0 0.0.0.0 192.0.2.1 name show_uplink", "ip route <ip> <mask> <ip> name <word>"),
    ("ip route vrf Mgmt-vrf 0.0.0.0 0.0.0.0 198.18.0.1", "ip route vrf <name> <ip> <mask> <ip>"),
    (" permit tcp 10.10.50.0 0.0.0.255 host 10.110.1.5 eq 22", "permit tcp <addr> <addr> eq <n>"),
    ("   20 permit tcp any 10.0.0.0/8 eq 22", "permit tcp <addr> <addr> eq <n>"),
    (" permit icmp any any nd-ns", "permit icmp <addr> <addr> nd-ns"),
    (" switchport port-security mac-address 0200.0a0a.1e0b", "switchport port-security mac-address <mac>"),
    (" description to rsw1 Ethernet49", "description <text>"),
    ("hostname core1", "hostname <word>"),
    (" name booth-lan", "name <word>"),
    ("ip access-list extended test_acl", "ip access-list extended <name>"),
    (" ip access-group RESEARCH_01_IN in", "ip access-group <name> in"),
    ("username admin privilege 15 secret 9 ${BOOTHNET_SECRET}", "username <word> privilege <n> secret 9 <secret>"),
    ("username admin privilege 15 secret 5 $1$abc$def", "username <word> privilege <n> secret 5 <secret>"),
    ("network 10.255.0.0 0.0.0.3 area 0", "network <ip> <mask> area <n>"),
])
def test_line_form(line: str, form: str) -> None:
    assert line_form(line) == form


def test_sections_nest_and_comments_are_skipped() -> None:
    config = ("!RANCID-CONTENT-TYPE: cisco\n! a comment\nvrf definition Mgmt-vrf\n !\n address-family ipv4\n"
              " exit-address-family\n!\nip access-list extended X\n permit ip any any\n")
    assert [(line.number, line.form) for line in config_lines(config)] == [
        (3, "vrf definition <name>"), (5, "vrf definition/ address-family ipv4"),
        (6, "vrf definition/ exit-address-family"), (8, "ip access-list extended <name>"),
        (9, "ip access-list extended/ permit ip <addr> <addr>")]


def test_a_recorded_line_must_have_the_entrys_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "excerpt.txt").write_text("interface Ethernet1\n   switchport mode access\n", encoding="utf-8")
    bad = {"platform": "arista_eos", "sources": {"o/r": {"commit": "0" * 40, "licence": "MIT"}}, "forms": [
        {"form": "interface/ switchport mode trunk",
         "evidence": [{"kind": "recorded", "repo": "o/r", "path": "p", "line": "   switchport mode access",
                       "excerpt": "excerpt.txt"}]},
        {"form": "interface/ switchport mode access",
         "evidence": [{"kind": "recorded", "repo": "o/x", "path": "p", "line": "   switchport mode access",
                       "excerpt": "missing.txt"}, {"kind": "guide", "title": "t"}]}]}
    (tmp_path / "arista_eos.yml").write_text(yaml.safe_dump(bad), encoding="utf-8")
    monkeypatch.setattr(evidence, "EVIDENCE_DIR", tmp_path)
    problems = "\n".join(evidence_problems("arista_eos", tmp_path))
    assert "has the form 'switchport mode access', not 'switchport mode trunk'" in problems
    assert "o/x is not listed under sources" in problems
    assert "excerpt missing.txt does not exist" in problems
    assert "guide evidence lacks section" in problems and "guide evidence lacks url" in problems


MIRRORS = os.environ.get("BOOTHNET_EVIDENCE_MIRRORS", "")


@pytest.mark.skipif(not MIRRORS, reason="set BOOTHNET_EVIDENCE_MIRRORS to a folder of owner+name/repo git mirrors")
@pytest.mark.parametrize("platform", PLATFORMS)
def test_cited_lines_are_in_the_cited_files(platform: str) -> None:
    """With the cited repositories at hand (git mirrors), each recorded line is in its file at the
    pinned commit."""
    data = yaml.safe_load((evidence.EVIDENCE_DIR / f"{platform}.yml").read_text(encoding="utf-8"))
    wrong = []
    for entry in data["forms"]:
        for item in entry["evidence"]:
            if item["kind"] != "recorded":
                continue
            git_dir = Path(MIRRORS) / item["repo"].replace("/", "+") / "repo"
            commit = data["sources"][item["repo"]]["commit"]
            text = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{item['path']}"],
                                  capture_output=True, text=True, check=False).stdout
            if not any(item["line"].strip() in line for line in text.splitlines()):
                wrong.append(f"{entry['form']}: {item['repo']} {item['path']} lacks {item['line']!r}")
    assert not wrong, "\n".join(wrong)
