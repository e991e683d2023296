"""The converse property: a generated intent that is valid by construction (within the schema)
is never refused, builds, and passes the offline lint (FRR's dry run, nft -c, the vendor checks);
a few of them also parse clean in the live Batfish service with no undefined reference.

The generator varies a show floor's shape (devices, booths, hosts per VLAN), each VLAN's MTU within
what its ports carry, the OSPF timers, extra UDP rules per booth, and the show link as a WAN hop
(delay, jitter, loss). `make test` runs BOOTHNET_VALID_EXAMPLES (default 15) and
BOOTHNET_VALID_BATFISH_EXAMPLES (default 3); `make fuzz` many more.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boothnet.render.build import build
from boothnet.tools.showfloor import floor_size, showfloor_files

EXAMPLES = int(os.environ.get("BOOTHNET_VALID_EXAMPLES", "15"))
BATFISH_EXAMPLES = int(os.environ.get("BOOTHNET_VALID_BATFISH_EXAMPLES", "3"))


@st.composite
def valid_intents(draw) -> dict[str, Any]:
    devices = draw(st.integers(4, 12))
    size = floor_size(devices, booths_per_dist=draw(st.integers(1, 4)), hosts_per_vlan=draw(st.integers(1, 3)))
    files = showfloor_files(size, "gen")
    hello = draw(st.integers(1, 10))
    files["group_vars/all/network.yml"]["network"]["ospf"] = {"area": 0, "hello": hello,
                                                              "dead": hello * draw(st.integers(2, 6))}
    for vlan in files["group_vars/all/vlans.yml"]["vlans"]:
        # production access ports carry 1500, research ports and trunks 9000
        vlan["mtu"] = draw(st.integers(576, 1500)) if vlan["zone"] == "production" else draw(st.integers(1500, 9000))
    rules = files["group_vars/all/policy.yml"]["policy"]["rules"]
    booths = sorted({v["name"].rsplit("-", 1)[0] for v in files["group_vars/all/vlans.yml"]["vlans"]})
    extra = []
    for booth in booths:
        if draw(st.booleans()):
            ports = draw(st.lists(st.integers(1, 65535), min_size=1, max_size=3, unique=True))
            extra.append({"name": f"{booth}-udp", "from": f"vlan:{booth}-prod", "to": f"vlan:{booth}-res",
                          "proto": "udp", "ports": sorted(ports), "action": "permit"})
    zone_rules = next(i for i, r in enumerate(rules) if r["name"] == "research-not-to-production")
    rules[zone_rules:zone_rules] = extra
    show = next(link for link in files["group_vars/all/links.yml"]["links"] if link["b"] == "show1:eth1")
    delay = draw(st.sampled_from([0, 0.5, 5, 25, 100]))
    show.update(delay_ms=delay, jitter_ms=draw(st.sampled_from([0, delay / 2])),
                loss_pct=draw(st.sampled_from([0, 0.1, 1.0])))
    return files


@st.composite
def router_on_a_stick(draw) -> dict[str, Any]:
    """fw-booth's shape: one switch trunks 1-6 VLANs to one frr_linux firewall that routes them
    all, with an uplink; the policy drawn with outside rules before others."""
    from tests.policies import PORTS

    root = Path(__file__).resolve().parents[2] / "inventories" / "fw-booth"
    files = {str(p.relative_to(root)): yaml.safe_load(p.read_text()) for p in root.rglob("*.yml")}
    count = draw(st.integers(1, 6))
    zones = [draw(st.sampled_from(["production", "research"])) for _ in range(count)]
    vlans = [{"id": 10 + i, "name": f"v{i}", "zone": zone, "subnet": f"10.50.{i}.0/24", "gateway": "fw1",
              "mtu": 1500 if zone == "production" else draw(st.sampled_from([1500, 9000]))}
             for i, zone in enumerate(zones)]
    files["group_vars/all/vlans.yml"] = {"vlans": vlans}
    files["group_vars/all/links.yml"]["links"][0]["vlans"] = [v["id"] for v in vlans]
    hosts = {f"h{i}": {"vlan": v["name"], "address": f"10.50.{i}.11", "attach": f"sw1:Ethernet{5 + i}",
                       "role": "host"} for i, v in enumerate(vlans)}
    files["hosts.yml"]["all"]["children"]["endpoints"]["hosts"] = hosts
    files["host_vars/sw1.yml"]["ports"] = [{"name": "Ethernet{1-48}", "speed": 1000, "mtu": 9000},
                                           {"name": "Ethernet49", "speed": 10000, "mtu": 9000}]
    selectors = ["any", "zone:production", "zone:research", "zone:outside"] + [f"vlan:{v['name']}" for v in vlans]
    rules = []
    for i in range(draw(st.integers(1, 6))):
        proto = draw(st.sampled_from(["ip", "icmp", "tcp", "udp"]))
        rule = {"name": f"r{i}", "from": draw(st.sampled_from([s for s in selectors if s != "zone:outside"])),
                "to": "zone:outside" if i == 0 else draw(st.sampled_from(selectors)), "proto": proto,
                "action": draw(st.sampled_from(["permit", "deny"]))}
        if proto in ("tcp", "udp"):
            rule["ports"] = sorted(draw(st.sets(st.sampled_from(PORTS), min_size=1, max_size=2)))
        rules.append(rule)
    files["group_vars/all/policy.yml"] = {"host_groups": {}, "policy": {"default_action": "deny", "rules": rules}}
    return files


def _write(files: dict[str, Any], root: Path) -> Path:
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))
    return root


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_intents())
def test_a_valid_intent_is_never_refused_and_builds_clean(files):
    work = Path(tempfile.mkdtemp(prefix="bn-valid-"))
    try:
        result = build(_write(files, work / "inv"), work / "build", run_tools=bool(shutil.which("vtysh")))
        assert result.ok, result.findings
        assert not [name for name, status in result.tool_checks.items() if status.status != "PASS"], result.tool_checks
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.batfish
@settings(max_examples=BATFISH_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                                HealthCheck.function_scoped_fixture])
@given(files=valid_intents())
def test_a_valid_intent_parses_clean_in_batfish(host, files):
    from boothnet.intent import load_network
    from boothnet.verify.batfish.from_intent import render_batfish_view, verify_intent_from_model
    from boothnet.verify.batfish.report import Status
    from boothnet.verify.batfish.verify import run_verify

    work = Path(tempfile.mkdtemp(prefix="bn-valid-bf-"))
    try:
        net = load_network(_write(files, work / "inv"))
        result, models = render_batfish_view(net, work / "build")
        intent = verify_intent_from_model(net, models)
        report = run_verify(intent, result.out_dir, work / "verify", host=host, require=True,
                            network="boothnet-valid", snapshot="parse")
        for name in ("parsing", "references", "unused"):
            errors = [f.one_line() for f in report.check(name).findings if str(f.severity) == "error"]
            assert report.check(name).status == Status.PASS and errors == [], errors
    finally:
        shutil.rmtree(work, ignore_errors=True)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(router_on_a_stick())
def test_a_router_on_a_stick_booth_builds_clean_or_is_refused_by_name(files):
    """A drawn policy may cover a later rule with the opposite action: refused by name, never a traceback."""
    from boothnet.errors import IntentInvalid

    work = Path(tempfile.mkdtemp(prefix="bn-stick-"))
    try:
        try:
            result = build(_write(files, work / "inv"), work / "build", run_tools=bool(shutil.which("vtysh")))
        except IntentInvalid as refused:
            assert all("policy.rules" in str(e) for e in refused.errors), refused.errors
            return
        assert result.ok, result.findings
        assert not [name for name, status in result.tool_checks.items() if status.status != "PASS"], result.tool_checks
    finally:
        shutil.rmtree(work, ignore_errors=True)
