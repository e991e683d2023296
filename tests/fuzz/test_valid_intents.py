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
        report = run_verify(intent, result.out_dir, intent.links, work / "verify", host=host, require=True,
                            network="boothnet-valid", snapshot_name="parse")
        for name in ("parsing", "references", "unused"):
            errors = [f.one_line() for f in report.check(name).findings if str(f.severity) == "error"]
            assert report.check(name).status == Status.PASS and errors == [], errors
    finally:
        shutil.rmtree(work, ignore_errors=True)
