"""One finding of the ACL review, whichever method (offline or Batfish) found it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from typing import Any

from boothnet.errors import Refusal
from boothnet.intent.model import Network
from boothnet.verify.batfish.review import DENIED, PERMITTED

__all__ = ["DENIED", "PERMITTED", "AclFinding", "ReviewError", "ZoneMap"]


class ReviewError(Refusal):
    """The review could not run (no git history, unknown ref, inventory missing at the ref)."""


@dataclass
class AclFinding:
    """A flow whose fate at one ACL differs between base and head."""

    kind: str  # PERMITTED or DENIED
    device: str
    acl: str | None
    src_ip: str | None
    dst_ip: str | None
    proto: str | None
    port: int | None
    line: str | None  # the line that decides the flow now (head)
    previous_line: str | None  # the line that decided it in base
    rule: str | None = None  # the policy rule behind `line`
    previous_rule: str | None = None
    interface: str | None = None
    direction: str | None = None
    src_zone: str | None = None
    dst_zone: str | None = None
    gate: str | None = None  # why security must sign it off (None: informational)
    flow: str | None = None  # the flow in words, as the method reported it
    source: str = "offline evaluation"

    def flow_text(self) -> str:
        if self.flow:
            return self.flow
        proto = (self.proto or "ip").upper()
        port = f" port {self.port}" if self.port is not None else ""
        where = f", {self.direction} on {self.interface}" if self.interface else ""
        return f"{proto} {self.src_ip} -> {self.dst_ip}{port}{where}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "flow": self.flow_text()}


class ZoneMap:
    """Which intent zone an address is in (most specific VLAN subnet of either intent)."""

    def __init__(self, prefixes: list[tuple[IPv4Network | IPv6Network, str]]):
        self.prefixes = sorted(prefixes, key=lambda p: -p[0].prefixlen)

    @classmethod
    def from_networks(cls, *nets: Network) -> ZoneMap:
        prefixes: list[tuple[IPv4Network | IPv6Network, str]] = []
        for vlan in (vlan for net in nets for vlan in net.vlans):
            prefixes += [(vlan.subnet, vlan.zone)] + ([(vlan.ipv6.prefix, vlan.zone)] if vlan.ipv6 else [])
        return cls(prefixes)

    def zone(self, ip: str | IPv4Address | IPv6Address | None) -> str | None:
        if ip is None:
            return None
        addr = ip_address(str(ip).split("/")[0])
        if str(addr) == "0.0.0.0":
            return None  # Batfish's "any" in flows derived from an ACL line
        return next((zone for net, zone in self.prefixes if addr in net), "outside")


def gate_reason(finding: AclFinding) -> str | None:
    """Newly permitted into the secured network, or between research and production."""
    return gate_reason_of(finding.kind, finding.src_zone, finding.dst_zone)


def gate_reason_of(kind: str, src: str | None, dst: str | None) -> str | None:
    """Why a change of `kind` between these zones needs security's sign-off (None: it does not):
    newly permitted into the secured network, between research and production, or into the booth
    from the show network (which may open nothing in it)."""
    if kind != PERMITTED:
        return None
    if dst == "secure" and src != "secure":
        return f"{src or 'any'} -> secure: newly permitted into the secured network"
    if {src, dst} == {"research", "production"}:
        return f"{src} -> {dst}: research and production are kept apart"
    if src == "outside" and dst not in (None, "outside"):
        return f"outside -> {dst}: the booth admits nothing new from the show network"
    return None
