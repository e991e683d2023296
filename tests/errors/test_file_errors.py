"""Problems with an input file as a file: encoding, YAML syntax, duplicate keys, hosts.yml's
shape. One exact message each, the same through `boothnet build` and ansible-playbook."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, errors_of


def write(inv, relative: str, data: bytes | str) -> None:
    path = inv.path / relative
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


CASES = {
    "non_utf8": ("group_vars/all/throughput.yml", b"---\nthroughput:\n  # caf\xe9\n  pass_ratio: 0.9\n",
                 ["inv/group_vars/all/throughput.yml: line 3: 'byte 0xe9': UTF-8 text (save the file as UTF-8)"]),
    "hosts_non_utf8": ("hosts.yml",
                       b"---\nall:\n  children:\n    network_devices:\n      hosts:\n        r1: # caf\xe9\n",
                       ["inv/hosts.yml: line 6: 'byte 0xe9': UTF-8 text (save the file as UTF-8)"]),
    "yaml_syntax": ("group_vars/all/throughput.yml", "throughput:\n  pass_ratio: [0.9\n",
                    ["inv/group_vars/all/throughput.yml: line 3, column 1: 'unparseable YAML': valid YAML "
                     "(while parsing a flow sequence did not find expected ',' or ']')"]),
    "duplicate_key": ("group_vars/all/throughput.yml", "throughput:\n  pass_ratio: 0.9\n  pass_ratio: 0.8\n",
                      ["inv/group_vars/all/throughput.yml: line 3, column 3: \"duplicate key 'pass_ratio'\": "
                       "each key once in a mapping (first at line 2)"]),
    "scalar_file": ("group_vars/all/throughput.yml", "42\n",
                    ["inv/group_vars/all/throughput.yml: (file): 'int': a mapping of variables (name: value)"]),
    "host_vars_list": ("host_vars/r1.yml", "- eth1\n",
                       ["inv/host_vars/r1.yml: (file): 'list': a mapping of variables (name: value)"]),
    "hosts_empty": ("hosts.yml", "",
                    ["inv/hosts.yml: all: 'empty file': a group `all` with children network_devices and endpoints"]),
    "hosts_all_list": ("hosts.yml", "all: []\n",
                       ["inv/hosts.yml: all: 'list': a group `all` with children network_devices and endpoints"]),
    "hosts_children_list": ("hosts.yml", "all:\n  children: [network_devices]\n",
                            ["inv/hosts.yml: all.children: 'list': a mapping of group name to group"]),
    "host_listed_twice": (
        "hosts.yml",
        "all:\n  children:\n    network_devices:\n      hosts: {r1: , r2: }\n    endpoints:\n      hosts:\n"
        "        r1: {vlan: users, address: 10.0.10.11, attach: 'r1:eth1', role: client}\n",
        ["inv/hosts.yml: all.children.endpoints.hosts.r1: 'r1': each host listed once "
         "(also at all.children.network_devices.hosts.r1)"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_file_problem_is_one_exact_error(inventory_copy, case):
    relative, data, expected = CASES[case]
    inv = inventory_copy()
    write(inv, relative, data)
    assert errors_of(inv) == expected


@pytest.mark.parametrize("case", ["non_utf8", "hosts_non_utf8", "yaml_syntax", "duplicate_key"])
def test_ansible_playbook_prints_the_same_message(inventory_copy, case, tmp_path):
    relative, data, expected = CASES[case]
    inv = inventory_copy()
    write(inv, relative, data)
    run = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inv.path.resolve()),
         str(ROOT / "playbooks" / "build.yml"), "-e", f"boothnet_build_dir={tmp_path / 'build'}"],
        cwd=ROOT, capture_output=True, text=True)
    assert run.returncode != 0 and "Traceback" not in run.stdout + run.stderr
    assert "codec" not in run.stdout + run.stderr  # Python's wording, from another inventory parser
    # ansible-playbook runs in the repository: the same message, with the path as seen from there
    assert expected[0].replace("inv/", f"{inv.path.resolve()}/", 1) in run.stdout + run.stderr
    assert not (tmp_path / "build").exists()


def test_deploy_against_an_inventory_without_devices_says_what_it_expected(tmp_path):
    inv = tmp_path / "hosts.yml"
    inv.write_text("all:\n  children:\n    endpoints:\n      hosts:\n        h1:\n")
    run = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inv),
         "playbooks/deploy.yml", "--check"], cwd=ROOT, capture_output=True, text=True)
    out = run.stdout + run.stderr
    assert run.returncode != 0 and "Traceback" not in out and "no attribute" not in out
    assert (f"deploy.yml deploys the hosts of group 'network_devices', which {inv} does not have: "
            "run it against an intent inventory (inventories/<network>, group network_devices), "
            "a lab inventory, build/<network>/lab/inventory.yml") in out


def test_an_empty_key_inline_in_hosts_yml_is_named_there(inventory_copy):
    inv = inventory_copy()
    hosts = inv.load("hosts.yml")
    hosts["all"]["children"]["network_devices"]["hosts"]["r1"] = {"": None}
    inv.save("hosts.yml", hosts)
    assert errors_of(inv) == ["inv/hosts.yml: devices.r1.'': None: not a key boothnet knows (the keys here: managed, "
                              "mgmt_address, model, name, platform, ports, release, role, router_id)"]


def test_how_ansible_reaches_a_host_is_not_intent_but_a_misspelt_intent_key_is_an_error(inventory_copy):
    """Issue 32: a booth team writes ansible_host, ansible_user, a vaulted password beside the intent's
    host keys; those are Ansible's. Anything else unknown is still an error, named."""
    inv = inventory_copy()
    (inv.path / "host_vars" / "h1.yml").write_text(
        "ansible_host: 192.0.2.21\nansible_user: booth\nansible_become: true\n"
        "ansible_become_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162\n")
    (inv.path / "host_vars" / "h2.yml").write_text("ansible_host: 192.0.2.22\naddres: 10.0.10.99\n")
    assert errors_of(inv) == ["inv/host_vars/h2.yml: addres: '10.0.10.99': not a key boothnet knows; did you mean "
                              "'address'? (the keys here: address, address6, attach, mac, name, role, vlan)"]


def test_a_key_one_letter_off_is_named_with_the_key_it_likely_meant(inventory_copy):
    inv = inventory_copy()
    inv.edit("group_vars/all/vlans.yml", lambda d: d["vlans"][1].update(mtuu=d["vlans"][1].pop("mtu")))
    assert errors_of(inv) == [
        "inv/group_vars/all/vlans.yml: vlans[1].mtuu: 9000: not a key boothnet knows; did you mean 'mtu'? (the "
        "keys here: bind_hosts, description, gateway, gateway_address, id, ipv6, mtu, name, routers, subnet, zone)"]


def test_a_merge_key_with_an_override_is_yaml_not_a_duplicate(inventory_copy):
    """`{<<: *research, id: 111}`: the mapping's own key overrides the merged one, as YAML defines."""
    inv = inventory_copy()
    (inv.path / "group_vars" / "all" / "vlans.yml").write_text(
        "---\nboothnet_research: &lab {id: 99, name: lab, zone: research, subnet: 10.0.20.0/24, gateway: r2, "
        "mtu: 9000}\n"
        "vlans:\n  - {id: 10, name: users, zone: production, subnet: 10.0.10.0/24, gateway: r1, mtu: 1500}\n"
        "  - {<<: *lab, id: 20}\n")
    from boothnet.intent import load_network

    assert [(v.name, v.id) for v in load_network(inv.path).vlans] == [("users", 10), ("lab", 20)]
