"""containerlab topologies: the committed labs/<network>.clab.yml match a regeneration (golden),
validate against containerlab's own schema (../shared/containerlab beside the repo), and broken
topologies are rejected with the JSON path of each problem."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import yaml

from boothnet.cli import main
from boothnet.lab.clab import (
    HOST_IMAGE,
    ROUTER_IMAGE,
    ClabInvalid,
    check_topology,
    generate,
    shaping_scripts,
    validate_file,
)
from boothnet.lab.plan import plan_lab
from boothnet.lab.shaping import htb_params

ROOT = Path(__file__).resolve().parents[2]
NETWORKS = ["lab-mini", "sc-booth"]


@pytest.fixture(scope="module")
def schema_path() -> Path:
    """`shared/containerlab` beside the repo (CI: ../shared next to the clone), or $BOOTHNET_SHARED."""
    env = os.environ.get("BOOTHNET_SHARED")
    for base in ([Path(env)] if env else []) + [ROOT.parent / "shared"]:
        if (base / "containerlab" / "clab.schema.json").is_file():
            return base / "containerlab" / "clab.schema.json"
    pytest.skip("CONTAINERLAB SCHEMA NOT FOUND: expected ../shared/containerlab/clab.schema.json beside the repo")


@pytest.fixture(scope="module")
def schema(schema_path: Path) -> dict:
    return json.loads(schema_path.read_text())


def _committed(network: str) -> dict:
    return yaml.safe_load((ROOT / "labs" / f"{network}.clab.yml").read_text())


def _errors(document: dict, schema: dict) -> list[str]:
    with pytest.raises(ClabInvalid) as info:
        check_topology(document, schema, "broken.clab.yml")
    return info.value.errors


@pytest.mark.parametrize("network", NETWORKS)
def test_committed_topology_matches_regeneration(network, tmp_path, schema_path):
    result = generate(ROOT / "inventories" / network, tmp_path / "labs", tmp_path / "build", schema_path)
    assert not result.findings
    committed = (ROOT / "labs" / f"{network}.clab.yml").read_text()
    assert result.path.read_text() == committed, f"labs/{network}.clab.yml drifted: run `make clab NET={network}`"


@pytest.mark.parametrize("network", NETWORKS)
def test_committed_topology_validates_against_schema(network, schema_path):
    validate_file(ROOT / "labs" / f"{network}.clab.yml", schema_path)


@pytest.mark.parametrize("network", NETWORKS)
def test_topology_is_the_netns_lab_spec(network, tmp_path):
    """Same nodes, management addresses and links as the netns lab in the same VLAN mode."""
    spec, _ = plan_lab(ROOT / "inventories" / network, "dot1q", tmp_path)
    doc = _committed(network)
    nodes = doc["topology"]["nodes"]
    assert doc["mgmt"]["ipv4-subnet"] == spec.mgmt_subnet
    assert {n.name: n.mgmt_address.split("/")[0] for n in spec.nodes} == {k: v["mgmt-ipv4"] for k, v in nodes.items()}
    assert [(link.a.node, link.b.node, link.mtu) for link in spec.links] == [
        (link["endpoints"][0]["node"], link["endpoints"][1]["node"], link["mtu"]) for link in doc["topology"]["links"]
    ]
    for node in spec.nodes:
        assert nodes[node.name]["image"] == (ROUTER_IMAGE if node.kind == "router" else HOST_IMAGE)


def test_routers_bind_their_lab_configs_and_hosts_move_off_eth0():
    doc = _committed("sc-booth")
    bgw1 = doc["topology"]["nodes"]["bgw1"]
    targets = {b.split(":")[1] for b in bgw1["binds"]}
    assert {"/etc/frr/frr.conf", "/etc/frr/daemons", "/etc/boothnet/interfaces.ip"} <= targets
    assert {"/etc/boothnet/nftables.nft", "/etc/swanctl/swanctl.conf"} <= targets
    assert all(b.startswith("../build/sc-booth/clab/configs/bgw1/") for b in bgw1["binds"])
    assert bgw1["exec"][0] == "ip -batch /etc/boothnet/interfaces.ip"
    ends = [e for link in doc["topology"]["links"] for e in link["endpoints"]]
    assert not [e for e in ends if e["interface"] == "eth0"], "eth0 is containerlab's management interface"
    assert "ip addr add 10.110.1.11/24 dev eth1" in doc["topology"]["nodes"]["r01-cn1"]["exec"]
    assert "VLAN mode the lab configs assume: dot1q" in (ROOT / "labs" / "sc-booth.clab.yml").read_text()


def test_shaping_matches_the_netns_lab(tmp_path):
    spec, _ = plan_lab(ROOT / "inventories" / "lab-mini", "dot1q", tmp_path)
    p = htb_params(1000, 9000)
    script = shaping_scripts(spec)["h3"]
    assert "ip link set eth1 gso_max_segs 1" in script
    assert f"burst {p['burst']}b cburst {p['burst']}b quantum {p['quantum']} mtu {p['frame']} overhead 24" in script


def test_segment_mode_flattens_trunks_and_says_so(tmp_path, schema_path):
    result = generate(ROOT / "inventories" / "sc-booth", tmp_path / "labs", tmp_path / "build", schema_path, "segment")
    text = result.path.read_text()
    assert "VLAN mode the lab configs assume: segment" in text
    assert result.links == 78 and "interface: eth49v110" in text  # 63 in dot1q: trunks carry tags


def test_link_endpoint_without_interface_is_rejected(schema):
    doc = copy.deepcopy(_committed("lab-mini"))
    del doc["topology"]["links"][0]["endpoints"][1]["interface"]
    assert "$.topology.links[0].endpoints[1]: 'interface' is a required property" in _errors(doc, schema)


def test_unknown_kind_and_bad_mgmt_address_are_rejected(schema):
    doc = copy.deepcopy(_committed("lab-mini"))
    doc["topology"]["nodes"]["r1"]["kind"] = "frr"
    doc["topology"]["nodes"]["h1"]["mgmt-ipv4"] = "198.18.1.300"
    errors = _errors(doc, schema)
    assert any(e.startswith("$.topology.nodes.r1.kind: 'frr' is not one of") for e in errors)
    assert any(e.startswith("$.topology.nodes.h1.mgmt-ipv4: '198.18.1.300' does not match") for e in errors)


def test_unicode_classes_of_the_schema_work(schema):
    """\\p{N}/\\p{L} (interface zone of an address) run through the regex package, not re."""
    doc = copy.deepcopy(_committed("lab-mini"))
    doc["topology"]["nodes"]["h1"]["mgmt-ipv4"] = "198.18.1.2%eth0"
    check_topology(doc, schema, "zone.clab.yml")
    doc["topology"]["nodes"]["h1"]["mgmt-ipv4"] = "198.18.1.2%"
    assert any(e.startswith("$.topology.nodes.h1.mgmt-ipv4:") for e in _errors(doc, schema))


def test_references_are_checked_beyond_the_schema(schema):
    doc = copy.deepcopy(_committed("lab-mini"))
    links = doc["topology"]["links"]
    links[0]["endpoints"][0]["node"] = "r9"
    links[1]["endpoints"][0]["interface"] = "eth0"
    links[2]["endpoints"][1] = dict(links[1]["endpoints"][1])
    errors = _errors(doc, schema)
    assert "$.topology.links[0].endpoints[0]: node 'r9' is not defined in topology.nodes" in errors
    assert "$.topology.links[1].endpoints[0]: h1:eth0: eth0 is containerlab's management interface" in errors
    assert "$.topology.links[2].endpoints[1]: r1:eth1 is already wired at $.topology.links[1].endpoints[1]" in errors


def _cli(tmp_path: Path, *extra: str) -> int:
    return main(
        ["clab", "-n", "lab-mini", "-i", str(ROOT / "inventories" / "lab-mini"), "--labs-dir", str(tmp_path / "labs")]
        + ["--build-dir", str(tmp_path / "build"), *extra]
    )


def test_cli_writes_validates_and_prints_the_path(tmp_path, schema_path, capsys):
    assert _cli(tmp_path, "--schema", str(schema_path)) == 0
    out = capsys.readouterr().out.strip()
    assert out == str(tmp_path / "labs" / "lab-mini.clab.yml")
    assert (tmp_path / "build" / "lab-mini" / "clab" / "configs" / "r1" / "daemons").read_text().count("ospfd=yes")
    assert (tmp_path / "build" / "lab-mini" / "clab" / "port_map.json").is_file()


def test_cli_schema_errors_are_listed_and_nothing_is_written(tmp_path, schema, capsys):
    strict = copy.deepcopy(schema)  # a containerlab that knows no `linux` kind
    kinds = strict["definitions"]["node-config"]["properties"]["kind"]["enum"]
    kinds.remove("linux")
    (tmp_path / "schema.json").write_text(json.dumps(strict))
    assert _cli(tmp_path, "--schema", str(tmp_path / "schema.json")) == 1
    err = capsys.readouterr().err
    assert "containerlab topology has 6 error(s)" in err and "nothing was written" in err
    assert "$.topology.nodes.r1.kind: 'linux' is not one of" in err
    assert not (tmp_path / "labs").exists() and not (tmp_path / "build" / "lab-mini" / "clab").exists()


def test_cli_without_schema_fails_naming_where_it_looked(tmp_path, capsys):
    assert _cli(tmp_path, "--schema", str(tmp_path / "missing.json")) == 1
    assert f"no file at {tmp_path / 'missing.json'}" in capsys.readouterr().err
