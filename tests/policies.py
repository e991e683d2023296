"""Generated policies over the reference booths, for the compiler-equals-intent properties.

Each example takes a reference booth (router on a stick: fw-booth; two gateways: lab-mini; the
secured network through a VPN: sc-booth), draws host groups and an ordered rule list from every
selector the schema allows (zones, VLANs, groups, any, outside) on both sides, with protocols,
ports, ICMP types, denies before permits and overlaps, and keeps only policies the intent accepts.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from boothnet.intent.checks import check_network
from boothnet.intent.model import Network, Policy
from tests.helpers import INVENTORIES

PORTS = (22, 80, 443, 5201)
# ping and its reply, a type of each family only, and one more (the evaluator adds one named nowhere)
ICMP_TYPES = ("echo-request", "echo-reply", "redirect", "timestamp-request", "packet-too-big")
# sc-booth is the largest (6,900 flows): a third of the examples
BOOTHS = ("fw-booth", "fw-booth", "lab-mini", "lab-mini", "sc-booth")


@cache
def reference(name: str) -> Network:
    from boothnet.intent import load_network

    return load_network(INVENTORIES / name)


def selectors(net: Network, groups: list[str]) -> list[str]:
    zones = sorted({v.zone for v in net.vlans}) + ["outside"]
    return (["any"] + [f"zone:{z}" for z in zones] + [f"vlan:{v.name}" for v in net.vlans]
            + [f"group:{g}" for g in groups])


@st.composite
def rules(draw: Any, choices: list[str], index: int) -> dict[str, Any]:
    proto = draw(st.sampled_from(["ip", "icmp", "tcp", "udp"]))
    rule: dict[str, Any] = {"name": f"r{index}", "from": draw(st.sampled_from(choices)),
                            "to": draw(st.sampled_from(choices)), "proto": proto,
                            "action": draw(st.sampled_from(["permit", "deny"]))}
    if proto in ("tcp", "udp") and draw(st.booleans()):
        rule["ports"] = sorted(draw(st.sets(st.sampled_from(PORTS), min_size=1, max_size=2)))
    if proto == "icmp" and draw(st.booleans()):
        rule["icmp_types"] = sorted(draw(st.sets(st.sampled_from(ICMP_TYPES), min_size=1, max_size=2)))
    if rule["from"] == "zone:outside":
        rule["action"] = "deny"  # the intent refuses a permit from outside (an error case of its own)
    return rule


@st.composite
def policies(draw: Any, booths: tuple[str, ...] = BOOTHS) -> Network:
    """A reference booth with a generated policy the intent accepts."""
    base = reference(draw(st.sampled_from(booths)))
    hosts = sorted(base.endpoints)
    groups = dict(base.host_groups)  # sc-booth's VPN names its clients group
    for i in range(draw(st.integers(0, 2))):
        groups[f"g{i}"] = sorted(draw(st.sets(st.sampled_from(hosts), min_size=1, max_size=3)))
    choices = selectors(base, sorted(groups))
    drawn = [draw(rules(choices, i)) for i in range(draw(st.integers(1, 8)))]
    policy = Policy.model_validate({"default_action": draw(st.sampled_from(["deny", "permit"])), "rules": drawn})
    net = base.model_copy(update={"policy": policy, "host_groups": groups, "warnings": []})
    assume(not check_network(net))
    return net


def dual_stacked(net: Network) -> Network:
    """The same booth with an IPv6 /64 on every VLAN (SLAAC) and a MAC on every host, so that
    every host's IPv6 address is known: the policy, unchanged, now decides both families."""
    data = net.model_dump(by_alias=True, exclude={"warnings"})
    for vlan in data["vlans"]:
        vlan["ipv6"] = {"prefix": f"2001:db8:{vlan['id']:x}::/64"}
    for index, endpoint in enumerate(data["endpoints"].values()):
        endpoint["mac"] = endpoint["mac"] or f"02:00:5e:00:{index >> 8:02x}:{index & 0xFF:02x}"
    return Network.model_validate(data)
