"""The compiler equals the intent in the live lab: fw-booth's firewall (nftables in its
namespace) loaded with the ruleset compiled from generated policies, then every host pair
probed with icmp, every port a rule names and sampled others (the validate stage's isolation
matrix), each flow against the intent's first-match decision.

BOOTHNET_POLICY_LAB_EXAMPLES (default 3) policies per run; each loads in well under a second
and is probed in a few seconds. The planted shadowing bug fails here too, by flow and rule.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from boothnet.derive import derive_network
from boothnet.derive.policy import PolicyCompiler
from boothnet.intent import load_network
from boothnet.intent.model import Network
from boothnet.lab.plan import lab_context
from boothnet.lab.scratch import copy_inventory
from boothnet.render.build import render_all
from boothnet.validate.access import lab_access
from boothnet.validate.checks.isolation import run_isolation
from boothnet.validate.plan import isolation_flows
from boothnet.verify.policy import VERB
from tests.helpers import INVENTORIES, ping_only_policy, quiet, running_lab
from tests.policies import policies
from tests.unit.test_policy_property import shadowing_inbound

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(os.geteuid() != 0, reason="lab tests need root (namespaces, nftables)"),
]

NETWORK = "pol-lab"  # fw-booth under its own name and management subnet
EXAMPLES = int(os.environ.get("BOOTHNET_POLICY_LAB_EXAMPLES", "3"))
FIREWALL = "fw1"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Network, str]]:
    work = tmp_path_factory.mktemp("pol-lab")
    inventory = copy_inventory(INVENTORIES / "fw-booth", work / "inv", NETWORK, "198.18.6.0/24")
    with running_lab(inventory, work / "build") as (spec, _):
        yield load_network(inventory), spec.vlan_mode


def load_policy(net: Network, vlan_mode: str, tmp: Path) -> None:
    """The firewall's ruleset compiled from `net`'s policy, in force in its namespace."""
    models = derive_network(net, lab_context(net, vlan_mode))  # type: ignore[arg-type]
    ruleset = next(f.text for f in render_all({FIREWALL: models[FIREWALL]}, net.name)
                   if f.path.endswith("nftables.nft"))
    path = tmp / "nftables.nft"
    path.write_text(ruleset)
    subprocess.run(["ip", "netns", "exec", f"{net.name}-{FIREWALL}", "nft", "-f", str(path)], check=True)
    # each policy is probed with new flows only: a session an earlier policy admitted stays
    # established (nftables keeps conntrack across a reload), and a probe whose random source
    # port repeats one of that session's would be let through by it, not by this policy
    subprocess.run(["ip", "netns", "exec", f"{net.name}-{FIREWALL}", sys.executable, "-c",
                    "from pyroute2 import Conntrack; Conntrack().flush()"], check=True)


def wrong_rows(net: Network) -> list[str]:
    rows = run_isolation(net, lab_access(net), isolation_flows(net, seed=1), quiet)
    return [f"{r.src} -> {r.dst} {r.flow}: the intent {VERB[r.expected]} it (rule {r.rule}), the lab "
            f"{VERB.get(r.observed or '', 'cannot tell')} it ({r.error or r.detail})"
            for r in rows if r.observed != r.expected]


def on_lab(base: Network, generated: Network) -> Network:
    return generated.model_copy(update={"settings": base.settings})


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(generated=policies(booths=("fw-booth",)))
def test_the_live_firewall_decides_generated_policies_as_the_intent(lab, tmp_path_factory, generated):
    base, vlan_mode = lab
    net = on_lab(base, generated)
    load_policy(net, vlan_mode, tmp_path_factory.mktemp("ruleset"))
    assert wrong_rows(net) == []


def test_the_planted_shadowing_bug_is_caught_live_by_flow_and_rule(lab, tmp_path, monkeypatch):
    net, vlan_mode = lab
    monkeypatch.setattr(PolicyCompiler, "inbound", shadowing_inbound)
    try:
        load_policy(net, vlan_mode, tmp_path)
    finally:
        monkeypatch.undo()
    wrong = wrong_rows(net)
    assert any(w.startswith("office1 -> lab1-cn1 icmp: the intent permits it (rule ping-anywhere), the lab denies")
               for w in wrong), wrong
    load_policy(net, vlan_mode, tmp_path)
    assert wrong_rows(net) == []


# An ICMP timestamp request (type 13) from a host's namespace, as root on a raw socket: prints
# `reply` when the destination's kernel answers it (type 14: Linux does), else `timeout`.
TIMESTAMP_PROBE = r"""
import socket, struct, sys, time
def checksum(data):
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    total = (total >> 16) + (total & 0xFFFF)
    return ~(total + (total >> 16)) & 0xFFFF
destination, ident = sys.argv[1], 0x6969
body = struct.pack("!III", 0, 0, 0)
header = struct.pack("!BBHHH", 13, 0, 0, ident, 1)
packet = struct.pack("!BBHHH", 13, 0, checksum(header + body), ident, 1) + body
sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
sock.settimeout(0.5)
deadline = time.monotonic() + 3
answer = "timeout"
while time.monotonic() < deadline and answer == "timeout":
    sock.sendto(packet, (destination, 0))
    try:
        while True:
            data, (source, _) = sock.recvfrom(2048)
            kind, _, _, got = struct.unpack("!BBHH", data[20:26])
            if source == destination and kind == 14 and got == ident:
                answer = "reply"
                break
    except socket.timeout:
        pass
print(answer)
"""


def timestamp(net: Network, src: str, dst: str) -> str:
    """Does `dst` answer an ICMP timestamp request from `src` through the booth (reply/timeout)?"""
    address = str(net.endpoints[dst].address)
    done = subprocess.run(["ip", "netns", "exec", f"{net.name}-{src}", sys.executable, "-c", TIMESTAMP_PROBE,
                           address], capture_output=True, text=True, check=True, timeout=10)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def ping_only(lab: tuple[Network, str], tmp_path_factory: pytest.TempPathFactory) -> Network:
    """fw-booth's policy with "ping yes, redirects and timestamps no" (tests.helpers.ping_only_policy)."""
    base, _ = lab
    inventory = copy_inventory(INVENTORIES / "fw-booth", tmp_path_factory.mktemp("ping-only") / "inv", NETWORK,
                               "198.18.6.0/24")
    ping_only_policy(inventory)
    return on_lab(base, load_network(inventory))


def test_a_ping_only_rule_passes_ping_and_stops_other_icmp_types_live(lab, ping_only, tmp_path):
    """The frr_linux firewall's typed nft line decides echo-request apart from other ICMP types:
    the isolation matrix agrees with the intent everywhere (pings pass where ping-anywhere
    permits), and a timestamp request answered under the untyped rule is dropped under the typed one."""
    base, vlan_mode = lab
    load_policy(base, vlan_mode, tmp_path)
    assert timestamp(base, "office1", "lab1-cn1") == "reply"  # every ICMP type: the timestamp is answered
    load_policy(ping_only, vlan_mode, tmp_path)
    ruleset = (tmp_path / "nftables.nft").read_text()
    assert "icmp type echo-request counter accept" in ruleset and "meta l4proto icmp" not in ruleset
    rows = run_isolation(ping_only, lab_access(ping_only), isolation_flows(ping_only, seed=1), quiet)
    pings = [r for r in rows if r.flow == "icmp" and r.rule == "ping-anywhere"]
    assert pings and all(r.observed == r.expected == "permit" for r in pings)
    assert [r for r in rows if r.observed != r.expected] == []
    assert timestamp(ping_only, "office1", "lab1-cn1") == "timeout"  # redirects and timestamps: no
    load_policy(base, vlan_mode, tmp_path)


def test_a_removed_echo_request_line_is_named_by_the_isolation_matrix(lab, ping_only, tmp_path):
    """The planted fault: the firewall's ping-anywhere line for office dropped from the ruleset."""
    base, vlan_mode = lab
    load_policy(ping_only, vlan_mode, tmp_path)
    path = tmp_path / "nftables.nft"
    lines = path.read_text().splitlines()
    planted = [line for line in lines
               if "ip saddr 10.20.10.0/24 ip daddr 10.120.1.0/24 icmp type echo-request counter accept" in line]
    assert len(planted) == 1, planted
    path.write_text("\n".join(line for line in lines if line not in planted) + "\n")
    subprocess.run(["ip", "netns", "exec", f"{NETWORK}-{FIREWALL}", "nft", "-f", str(path)], check=True)
    try:
        wrong = wrong_rows(ping_only)
        assert any(w.startswith("office1 -> lab1-cn1 icmp: the intent permits it (rule ping-anywhere), the lab "
                                "denies") for w in wrong), wrong
    finally:
        load_policy(base, vlan_mode, tmp_path)
