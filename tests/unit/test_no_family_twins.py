"""Dual stack is one path taking the address family (boothnet.family.Family), not an IPv4
definition and its IPv6 twin (issue 68). For every function, method or class whose name marks it
IPv6 (``X6``, ``X6_y``, ``X_ipv6``, ``X_v6``), no definition of its IPv4 name may stand beside it
(in the same package directory): the two would be one definition taking the family. The few
definitions that are IPv6's alone are listed with their reason."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from tests.helpers import ROOT

SRC = ROOT / "src" / "boothnet"

# "<path under src/boothnet>:<name>" -> why it has no IPv4 twin to merge with
IPV6_ONLY = {
    "deploy/frr_linux/driver.py:get_ospf6_neighbors": (
        "a driver getter, called by its name as NAPALM's are (as get_arp_table and get_ipv6_neighbors_table "
        "are two getters): getters take no arguments"),
    "readback/reader.py:_top_ipv6": (
        "the reader's handler of the `ipv6` command word, another grammar than `ip`'s (unicast-routing, "
        "`ipv6 router ospf`); both hand a family to the one ACL, route and OSPF readers"),
    "intent/model.py:LinkAddresses6": (
        "the schema of the intent's `addresses6:` key (IPv6 address/lengths), a table of its own in "
        "docs/intent-reference.md; Link.addresses_in(family) is the one way code reads either"),
}


def _ipv4_names(name: str) -> set[str]:
    """The names an IPv4 twin of ``name`` would have: one "6" dropped, "ipv6" as "ip" or
    "ipv4", "v6" as "v4"."""
    found = {name[:m.start()] + name[m.end():] for m in re.finditer("6", name)}
    found |= {name.replace("ipv6", "ip"), name.replace("ipv6", "ipv4"), name.replace("Ipv6", "Ipv4"),
              name.replace("v6", "v4"), name.replace("V6", "V4")}
    return {n.rstrip("_") for n in found if n and n.rstrip("_") != name}


def _definitions(root: Path) -> dict[Path, dict[str, list[str]]]:
    """Package directory -> name -> where it is defined ("file:line")."""
    found: dict[Path, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found[path.parent][node.name].append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def family_twins(root: Path) -> list[str]:
    twins = []
    for names in _definitions(root).values():
        for name, places in names.items():
            if not re.search(r"6", name):
                continue
            for place in places:
                if f"{place.rsplit(':', 1)[0]}:{name}" in IPV6_ONLY:
                    continue
                twins += [f"{place} {name} beside {', '.join(names[other])} {other}"
                          for other in sorted(_ipv4_names(name)) if other in names]
    return twins


def test_no_definition_has_an_ipv6_twin():
    twins = family_twins(SRC)
    assert twins == [], ("IPv4/IPv6 twins (make them one definition taking boothnet.family.Family, "
                         "or list a real IPv6-only name in IPV6_ONLY with its reason):\n" + "\n".join(twins))


def test_every_allowed_ipv6_only_name_still_exists_and_says_why():
    names = {f"{path.relative_to(SRC)}:{node.name}" for path in SRC.rglob("*.py")
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    assert set(IPV6_ONLY) <= names, set(IPV6_ONLY) - names
    assert all(len(why) > 40 for why in IPV6_ONLY.values())


def test_a_new_twin_is_caught(tmp_path: Path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text("def gateway_of(vlan):\n    return 1\n\n\nclass Compiler:\n    pass\n")
    (package / "b.py").write_text("def gateway6_of(vlan):\n    return 2\n\n\nclass Compiler6(object):\n    pass\n\n\n"
                                  "def reads_ipv6(x):\n    return x\n\n\ndef reads_ip(x):\n    return x\n")
    (package / "c.py").write_text("def only6(x):\n    return x\n")  # no IPv4 twin: fine
    found = family_twins(tmp_path)
    assert [line.split()[1] for line in found] == ["gateway6_of", "Compiler6", "reads_ipv6"], found
