"""A bound port's IPv6 ACL and its VLAN's SVI ACL, read back from the rendered configs, decide a
host's IPv6 as the intent does under either reading of how they compose (docs/intent.md, "Listed
hosts bound to their ports"; the profiles' `port_acl_over_svi`): the port ACL alone (Catalyst
guides: a port ACL replaces the SVI's router ACL for the port's traffic) or the port ACL, then the
SVI's. The hosts send from addresses the intent never names (stable-privacy, RFC 8981 temporary
addresses), as default Linux, Windows and macOS hosts do: a bound host is its MAC and its prefix."""

from __future__ import annotations

from ipaddress import IPv6Network

import pytest

from boothnet.derive import derive_network
from boothnet.derive.model import AclEntry
from boothnet.derive.policy import acl_decision, compiler_of, source_decision
from boothnet.family import Family
from boothnet.intent import load_network
from boothnet.readback import read_config
from boothnet.readback.facts import AclRule, ConfigFacts
from boothnet.render.build import render_all, single_file_configs
from tests.helpers import INVENTORIES

READINGS = ("port ACL replaces the SVI's", "port ACL, then the SVI's")
# a host's address no intent names: what a default OS sends from (its interface id is its own)
TEMPORARY_IID = 0x3A1F_92C4_7E05_B6D8


def _entries(rules: list[AclRule]) -> list[AclEntry]:
    return [AclEntry(r.action, r.proto, r.src, r.dst, "as read", (r.dst_port,) if r.dst_port is not None else (),
                     r.src_port, r.established, icmp_type=r.icmp_type) for r in rules]


def _decide(facts: ConfigFacts, port: str, reading: str, src: IPv6Network, dst: IPv6Network, proto: str,
            service: int | None) -> str:
    """What the switch does with a new routed flow from the host on `port`."""
    iface = facts.interfaces[port]
    port_acl = facts.acls.get(iface.acl6_in or "")
    svi = facts.interfaces[f"Vlan{iface.access_vlan}"]
    svi_acl = facts.acls.get(svi.acl6_in or "")
    met = [port_acl] if port_acl is not None and reading == READINGS[0] else [port_acl, svi_acl]
    for rules in met:
        if rules is None:  # none bound (or bound and not defined): permits all
            continue
        line = acl_decision(_entries(rules), src, dst, proto, service)  # type: ignore[arg-type]
        if line is None or line.action == "deny":
            return "deny"
    return "permit"


def _rendered(network: str) -> tuple[dict[str, str], object]:
    net = load_network(INVENTORIES / network)
    models = derive_network(net)
    return single_file_configs(render_all(models, net.name)), net


def _wrong(network: str, texts: dict[str, str] | None = None) -> list[str]:
    """Every (reading, host, flow) its gateway switch decides otherwise than the intent says of
    the host, for a bound host sending from a temporary address of its prefix."""
    rendered, net = _rendered(network)
    texts = texts or rendered
    compiler = compiler_of(net, Family.V6)  # type: ignore[arg-type]
    wrong = []
    for endpoint in sorted(net.endpoints.values(), key=lambda e: e.name):  # type: ignore[attr-defined]
        sources = net.bound_sources(endpoint, Family.V6)  # type: ignore[attr-defined]
        device, _, port = endpoint.attach.partition(":")
        if not sources or sources[0].prefixlen != 64 or device not in texts:
            continue
        vlan = net.vlan_name_index[endpoint.vlan]  # type: ignore[attr-defined]
        facts = read_config(texts[device], net.devices[device].platform, device)  # type: ignore[attr-defined]
        temporary = IPv6Network(f"{sources[0].network_address + TEMPORARY_IID}/128")
        own = IPv6Network(f"{net.endpoint_address(endpoint, Family.V6)}/128")  # type: ignore[attr-defined]
        for other in net.vlans:  # type: ignore[attr-defined]
            if other.ipv6 is None or other is vlan:
                continue
            dst = IPv6Network(f"{other.ipv6.prefix.network_address + 0x10}/128")
            for proto, service in (("tcp", 22), ("tcp", 443), ("udp", 5201), ("icmp", None)):
                # what the intent says of this host at its gateway (its own address stands for it;
                # IPv6 into the secured network is refused further on, at that network's gateway)
                want = source_decision(compiler, vlan, own, dst, proto, service)[0]  # type: ignore[arg-type]
                for reading in READINGS:
                    got = _decide(facts, port, reading, temporary, dst, proto, service)
                    if got != want:
                        wrong.append(f"{reading}: {endpoint.name} ({temporary.network_address}) -> {other.name} "
                                     f"{proto}{f'/{service}' if service else ''}: the intent says {want}, "
                                     f"{device} decides {got}")
    return wrong


@pytest.mark.parametrize("network", ["sc-booth-ds", "eos-core-ds"])
def test_a_bound_hosts_temporary_address_is_decided_as_the_host_under_either_reading(network):
    assert _wrong(network) == []


def _with_port_acl(text: str, name: str, lines: str) -> str:
    head, _, rest = text.partition(f"ipv6 access-list {name}\n")
    _, _, tail = rest.partition("!\n")
    return f"{head}ipv6 access-list {name}\n{lines}!\n{tail}"


def test_a_port_acl_that_only_binds_its_host_leaks_research_and_home_where_it_replaces_the_svis():
    """Bound by MAC and prefix alone (the policy left on the SVI): where the port ACL replaces the
    SVI's, client4 (not listed) reaches home and research."""
    core1 = _rendered("sc-booth-ds")[0]["core1"]
    bound_only = " permit ipv6 2001:db8:30::/64 any\n permit ipv6 fe80::/10 any\n permit icmp host :: any\n"
    wrong = _wrong("sc-booth-ds", {"core1": _with_port_acl(core1, "BOUND6_GIGABITETHERNET1_0_44", bound_only)})
    leak = "port ACL replaces the SVI's: client4 (2001:db8:30:0:3a1f:92c4:7e05:b6d8) -> {}: the intent says deny, " \
           "core1 decides permit"
    assert leak.format("research-01 tcp/22") in wrong and leak.format("secure-home tcp/22") in wrong
    # where both apply the SVI's ACL still holds research; not home: it admits the listed
    # hosts' prefix, their ports telling them apart, so every port ACL must carry its policy
    both = [w for w in wrong if w.startswith(READINGS[1])]
    assert both and not [w for w in both if "research" in w]
    assert "port ACL, then the SVI's: client4 (2001:db8:30:0:3a1f:92c4:7e05:b6d8) -> secure-home tcp/22: the " \
           "intent says deny, core1 decides permit" in both


def test_a_port_acl_that_admits_the_eui64_address_alone_drops_a_default_hosts_ipv6():
    """The configs before: the port ACL admitted its host's EUI-64 address only, and the SVI's
    listed lines named it too: a host on stable-privacy or temporary addresses lost its IPv6."""
    core1 = _rendered("sc-booth-ds")[0]["core1"]
    eui64_only = " permit ipv6 host 2001:db8:30::aff:fe0a:1e0b any\n permit ipv6 fe80::/10 any\n" \
                 " permit icmp host :: any\n"
    wrong = _wrong("sc-booth-ds", {"core1": _with_port_acl(core1, "BOUND6_GIGABITETHERNET1_0_41", eui64_only)})
    for reading in READINGS:
        assert (f"{reading}: client1 (2001:db8:30:0:3a1f:92c4:7e05:b6d8) -> booth-lan tcp/22: the intent says "
                "permit, core1 decides deny") in wrong
