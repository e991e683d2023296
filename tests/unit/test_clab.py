"""containerlab topologies: the committed labs/<network>.clab.yml (vendor kinds, the default)
match a regeneration (golden), validate against containerlab's own schema (../shared/containerlab
beside the repo) in both kinds, vendor startup configs name exactly the ports their links use,
and broken topologies are rejected with the JSON path of each problem."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path

import pytest
import yaml

from boothnet.cli import main
from boothnet.intent import load_network
from boothnet.lab.clab import (
    HOST_IMAGE,
    ROUTER_IMAGE,
    ClabInvalid,
    check_topology,
    clab_kinds,
    generate,
    shaping_scripts,
    validate_file,
    vendor_ports,
)
from boothnet.lab.plan import plan_lab
from boothnet.lab.shaping import htb_params
from tests.helpers import ROOT

NETWORKS = ["lab-mini", "sc-booth", "fw-booth"]


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
    vendor = {"sc-booth": {"core1": "vrnetlab/cisco_iol:L2-17.12.01", "rsw1": "ceos:4.28.0F"},
              "fw-booth": {"sw1": "ceos:4.28.0F"}}.get(network, {})
    for node in spec.nodes:
        expected = vendor.get(node.name) or (ROUTER_IMAGE if node.kind == "router" else HOST_IMAGE)
        assert nodes[node.name]["image"] == expected


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
    assert "gso_max_segs" not in script  # GSO stays on: htb charges super-packets per segment
    rate = f"rate {p['rate_bytes'] * 8}bit ceil {p['rate_bytes'] * 8}bit"
    assert f"{rate} burst {p['burst']}b cburst {p['burst']}b quantum {p['quantum']} mtu {p['frame']}\n" in script


def test_segment_mode_flattens_trunks_and_says_so(tmp_path, schema_path):
    result = generate(
        ROOT / "inventories" / "sc-booth", tmp_path / "labs", tmp_path / "build", schema_path, "segment", kinds="lab"
    )
    text = result.path.read_text()
    assert "VLAN mode the lab configs assume: segment" in text
    assert result.links == 79 and "interface: eth49v110" in text  # 64 in dot1q: trunks carry tags


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


# --- vendor kinds ----------------------------------------------------------------------

# What containerlab's kinds call container port eth<N> (containerlab docs, kinds cisco_iol and
# arista_ceos), written out here rather than read from capabilities.yml.
NOS_NAME = {
    "cisco_iol": lambda n: f"Ethernet{n // 4}/{n % 4}",
    "arista_ceos": lambda n: f"Ethernet{n}",
}


@pytest.fixture(scope="module")
def vendor_lab(tmp_path_factory, schema_path):
    tmp = tmp_path_factory.mktemp("vendor")
    result = generate(ROOT / "inventories" / "sc-booth", tmp / "labs", tmp / "build", schema_path)
    return result, yaml.safe_load(result.path.read_text())


def test_platforms_run_on_their_kinds(vendor_lab):
    _, doc = vendor_lab
    nodes = doc["topology"]["nodes"]
    assert (nodes["core1"]["kind"], nodes["core1"]["type"]) == ("cisco_iol", "l2")
    assert nodes["rsw1"]["kind"] == "arista_ceos"
    assert {nodes[n]["kind"] for n in ("brt1", "bgw1", "hgw1", "show1")} == {"linux"}
    assert nodes["brt1"]["image"] == ROUTER_IMAGE
    assert {v["kind"] for k, v in nodes.items() if v["labels"]["boothnet.role"] == "host"} == {"linux"}
    assert nodes["core1"]["startup-config"] == "../build/sc-booth/clab/configs/core1/core1.partial.cfg"
    assert nodes["rsw1"]["startup-config"] == "../build/sc-booth/clab/configs/rsw1/rsw1.cfg"
    assert "binds" not in nodes["core1"] and "exec" not in nodes["rsw1"]


def _physical(config: str) -> set[str]:
    return {n for n in re.findall(r"^interface (\S+)$", config, re.M) if not n.startswith(("Vlan", "Management"))}


@pytest.mark.parametrize("node", ["core1", "rsw1"])
def test_startup_config_names_exactly_the_ports_its_links_use(vendor_lab, node):
    result, doc = vendor_lab
    entry = doc["topology"]["nodes"][node]
    config = (result.path.parent / entry["startup-config"]).read_text()
    wired = [end["interface"] for link in doc["topology"]["links"] for end in link["endpoints"] if end["node"] == node]
    assert all(re.fullmatch(r"eth[1-9]\d*", name) for name in wired), wired
    nos = NOS_NAME[entry["kind"]]
    assert _physical(config) == {nos(int(name[3:])) for name in wired}
    assert len(wired) == len(set(wired))


def test_iol_ports_follow_declaration_order_and_the_map_is_recorded(vendor_lab):
    result, doc = vendor_lab
    recorded = json.loads((result.config_dir.parent / "port_map.json").read_text())
    assert recorded["core1"]["GigabitEthernet1/0/1"] == "Ethernet0/1"
    assert recorded["core1"]["GigabitEthernet1/0/4"] == "Ethernet1/0"
    assert recorded["core1"]["GigabitEthernet1/0/41"] == "Ethernet1/1"
    assert recorded["core1"]["TenGigabitEthernet1/1/1"] == "Ethernet2/3"
    assert recorded["core1"]["GigabitEthernet0/0"] == "Vlan999"  # IOL-L2's management SVI
    assert recorded["rsw1"]["Ethernet49"] == "Ethernet49" and recorded["rsw1"]["Management1"] == "Management0"
    trunk = next(link for link in doc["topology"]["links"] if link["labels"]["boothnet.intent"].startswith("core1:Ten"))
    assert trunk["endpoints"] == [{"node": "core1", "interface": "eth11"}, {"node": "rsw1", "interface": "eth49"}]
    config = (result.config_dir / "core1" / "core1.partial.cfg").read_text()
    assert "interface Ethernet2/3\n description to rsw1 Ethernet49\n" in config
    assert "interface Vlan999\n description management\n ip address 198.18.0.11 255.255.255.0\n" in config
    assert not [n for n in re.findall(r"^interface (\S+)$", config, re.M) if "Gigabit" in n or "FastEthernet" in n]


def test_ceos_config_keeps_containerlab_access_and_mtu_fits(vendor_lab):
    result, _ = vendor_lab
    config = (result.config_dir / "rsw1" / "rsw1.cfg").read_text()
    assert config.rstrip().endswith("management api http-commands\n   no shutdown\nend")
    assert "interface Management0\n" in config and "Management1" not in config
    # `mtu` on SVIs and routed ports only (EOS's is a layer-3 MTU): each fits cEOS's
    assert all(int(m) <= clab_kinds()["arista_eos"].max_mtu for m in re.findall(r"^   mtu (\d+)$", config, re.M))


def test_iol_mtu_limit_is_reported(vendor_lab):
    result, _ = vendor_lab
    assert result.notes == [
        "core1 (cisco_iol) carries at most 1500 bytes per interface; 7 of its links have intent MTU up to 9000: "
        "paths through it stop at that limit (MTU tests: --kinds lab or hardware)"
    ]
    assert "# Limit: core1 (cisco_iol) carries at most 1500 bytes" in result.path.read_text()


def test_vendor_ports_keep_nos_names_and_fill_in_order():
    net = load_network(ROOT / "inventories" / "sc-booth")
    names, ends = vendor_ports(net, clab_kinds())
    assert set(names) == {"core1", "rsw1"}
    assert ends["rsw1"]["Ethernet7"] == "eth7"
    assert list(ends["core1"].values()) == [f"eth{n}" for n in range(1, 12)]  # only cabled ports
    iol = clab_kinds()["cisco_ios"]
    assert [iol.number(n) for n in ("Ethernet1/0", "Ethernet0/4", "GigabitEthernet1/0/1")] == [4, None, None]


@pytest.mark.parametrize("network", NETWORKS)
def test_lab_kinds_are_all_linux_and_validate(network, tmp_path, schema_path):
    result = generate(ROOT / "inventories" / network, tmp_path / "labs", tmp_path / "build", schema_path, kinds="lab")
    doc = yaml.safe_load(result.path.read_text())
    assert {n["kind"] for n in doc["topology"]["nodes"].values()} == {"linux"}
    validate_file(result.path, schema_path)
    assert "# Kinds: lab: every device runs FRR on kind linux" in result.path.read_text()
    if network == "sc-booth":
        assert doc["topology"]["nodes"]["core1"]["image"] == ROUTER_IMAGE and not result.notes


def test_vendor_kinds_refuse_segment_mode(tmp_path, schema_path, capsys):
    args = ["clab", "-n", "sc-booth", "-i", str(ROOT / "inventories" / "sc-booth"), "--schema", str(schema_path)]
    args += ["--labs-dir", str(tmp_path / "labs"), "--build-dir", str(tmp_path / "build"), "--vlan-mode", "segment"]
    assert main(args) == 1
    assert "vendor nodes (core1, rsw1) cannot: use --kinds lab" in capsys.readouterr().err
    assert not (tmp_path / "labs").exists()


def test_cli_image_override(tmp_path, schema_path):
    args = ["clab", "-n", "sc-booth", "-i", str(ROOT / "inventories" / "sc-booth"), "--schema", str(schema_path)]
    args += ["--labs-dir", str(tmp_path / "labs"), "--build-dir", str(tmp_path / "build")]
    assert main([*args, "--image", "arista_eos=ceos:4.32.0F"]) == 0
    doc = yaml.safe_load((tmp_path / "labs" / "sc-booth.clab.yml").read_text())
    assert doc["topology"]["nodes"]["rsw1"]["image"] == "ceos:4.32.0F"
