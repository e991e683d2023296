"""The validated intent: what the network should be, independent of any platform."""

from __future__ import annotations

import collections
import re
from functools import cached_property
from ipaddress import (
    IPv4Address,
    IPv4Interface,
    IPv4Network,
    IPv6Address,
    IPv6Interface,
    IPv6Network,
    collapse_addresses,
)
from typing import Annotated, Any, Literal, overload

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from boothnet.family import ICMP_TYPES, Family

Zone = Literal["production", "research", "secure", "outside"]
ZONES: tuple[str, ...] = ("production", "research", "secure", "outside")
EndpointRole = Literal["host", "client", "cluster", "fileserver", "server"]
DeviceRole = Literal[
    "core_switch",
    "access_switch",
    "research_switch",
    "router",
    "firewall",
    "vpn_gateway",
    "show_network",
]


def _written_as_text(example: str) -> BeforeValidator:
    def check(value: object) -> object:
        # pydantic reads a number as an address (false -> 0.0.0.0/32): in an intent that is a typo
        if isinstance(value, bool | int | float):
            raise ValueError(f"an {example}")
        return value

    return BeforeValidator(check)


_IPV4 = _written_as_text("IPv4 address or prefix written as text, e.g. 10.0.10.1 or 10.0.10.0/24")
_IPV6 = _written_as_text("IPv6 address or prefix written as text, e.g. 2001:db8:10::1 or 2001:db8:10::/64")
Address = Annotated[IPv4Address, _IPV4]
Subnet = Annotated[IPv4Network, _IPV4]
Interface = Annotated[IPv4Interface, _IPV4]
Address6 = Annotated[IPv6Address, _IPV6]
Subnet6 = Annotated[IPv6Network, _IPV6]
Interface6 = Annotated[IPv6Interface, _IPV6]


def _mac_as_text(value: object) -> object:
    # YAML 1.1 reads an unquoted 12:34:56:00:00:01 as a base-60 number
    if isinstance(value, bool | int | float):
        raise ValueError('a MAC written as text in quotes, e.g. "02:00:5e:10:30:12" (unquoted, YAML reads some MACs '
                         "as numbers)")
    return value


Mac = Annotated[str, BeforeValidator(_mac_as_text)]


_MAC_FORMS = (re.compile(r"^[0-9a-f]{2}([:-])[0-9a-f]{2}(\1[0-9a-f]{2}){4}$"),  # 02:00:5e:10:30:12, 02-00-...
              re.compile(r"^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$"))  # 0200.5e10.3012 (Cisco)


def normal_mac(text: str) -> str | None:
    """A unicast MAC written in one of the usual forms, in lower-case colon form; else None."""
    lowered = str(text).strip().lower()
    if not any(form.match(lowered) for form in _MAC_FORMS):
        return None
    digits = re.sub(r"[^0-9a-f]", "", lowered)
    if int(digits[:2], 16) & 1:  # the group bit: a multicast or broadcast address
        return None
    return ":".join(digits[i:i + 2] for i in range(0, 12, 2))


def eui64_address(prefix: IPv6Network, mac: str) -> IPv6Address:
    """The SLAAC address a MAC forms in a /64 (RFC 4291 appendix A: the U/L bit flipped, ff:fe in the middle)."""
    octets = [int(part, 16) for part in mac.split(":")]
    octets[0] ^= 0x02
    interface_id = bytes(octets[:3] + [0xFF, 0xFE] + octets[3:])
    return prefix.network_address + int.from_bytes(interface_id, "big")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, populate_by_name=True)


class Port(Strict):
    name: str
    speed: int = Field(gt=0, description="Mb/s")
    mtu: int | None = Field(default=None, description="bytes")
    description: str | None = None


class Device(Strict):
    name: str
    role: DeviceRole
    platform: str = Field(description="cisco_ios, arista_eos or frr_linux (platforms/: capabilities as data)")
    mgmt_address: Address = Field(description="in network.mgmt_subnet; deploy and validate-hw reach it here")
    router_id: Address | None = Field(default=None, description="OSPF router id of a router or firewall")
    managed: bool = True
    ports: list[Port] = Field(default=[], description="ranges like Ethernet1-48 expand")
    model: str | None = Field(default=None, description="cisco_ios, arista_eos: the switch model, a model of a "
                              "profile in platforms/profiles/ (none: C9300-48T, DCS-7010T-48)")
    release: str | None = Field(default=None, description="cisco_ios, arista_eos: its software release, e.g. "
                                "17.9.4 or 4.28.0F (none: the profile's default_release)")


class Endpoint(Strict):
    """A host in a VLAN: not configured by boothnet, but built by the lab and used by validation."""

    name: str
    vlan: str = Field(description="a VLAN's name")
    address: Address = Field(description="in its VLAN's subnet")
    address6: Address6 | None = Field(default=None, description="in its VLAN's IPv6 prefix, where the VLAN's "
                                      "hosts are static; none where they take SLAAC (formed from the MAC)")
    attach: str = Field(description='"device:port", an access port of its VLAN')
    role: EndpointRole = "host"
    # checked and normalised by ``mac_address``
    mac: Mac | None = Field(default=None, description="its NIC's MAC (quoted); needed where its VLAN binds hosts")

    @property
    def mac_address(self) -> str | None:
        """The MAC in lower-case colon form, or None when absent or not a MAC."""
        return normal_mac(self.mac) if self.mac else None


class VlanIpv6(Strict):
    prefix: Subnet6 = Field(description="a global prefix, a /64 where hosts take SLAAC")
    gateway_address: Address6 | None = Field(default=None, description="none: the prefix's ::1")
    hosts: Literal["slaac", "static"] = Field(
        default="slaac", description="slaac: hosts form their addresses from the gateway's router advertisements "
        "as their OS chooses (a bound port admits the prefix from its host's MAC); static: each endpoint gives "
        "its address6 (a bound port admits that address only)")
    routers: dict[str, Address6] = Field(default={}, description="other L3 devices on it: device -> address")


class Vlan(Strict):
    id: int
    name: str
    zone: Zone = Field(description="what the policy's zone: selectors and the isolation matrix group it by")
    subnet: Subnet
    gateway: str = Field(description="the device routing it (its SVI or sub-interface)")
    gateway_address: Address | None = Field(default=None, description="none: the subnet's first address")
    mtu: int | None = Field(default=None, description="none: mtu_policy.default")
    routers: dict[str, Address] = Field(default={}, description="other L3 devices on it (transit): device -> address")
    description: str | None = None
    # IOS and EOS: port security, IP source guard and an IPv6 port ACL; frr_linux: a bridge filter
    bind_hosts: bool = Field(default=False, description="every host port bound to its host's MAC and address "
                             "(in a dual-stack VLAN its IPv6 too: by MAC and prefix, or its static address6; the "
                             "port's IPv6 ACL carries the port's whole IPv6 policy)")
    ipv6: VlanIpv6 | None = Field(default=None, description="none: an IPv4-only VLAN")

    def prefix(self, family: Family) -> IPv4Network | IPv6Network | None:
        """The VLAN's subnet in ``family``: its IPv4 subnet, its IPv6 prefix (None: IPv4 only)."""
        if family == Family.V4:
            return self.subnet
        return self.ipv6.prefix if self.ipv6 else None

    def routers_in(self, family: Family) -> dict[str, IPv4Address] | dict[str, IPv6Address]:
        """Its other L3 devices' addresses in ``family``: device -> address."""
        if family == Family.V4:
            return self.routers
        return self.ipv6.routers if self.ipv6 else {}


class LinkAddresses(Strict):
    a: Interface
    b: Interface


class LinkAddresses6(Strict):
    a: Interface6
    b: Interface6


class Link(Strict):
    a: str = Field(description='"device:port"')
    b: str = Field(description='"device:port"')
    mode: Literal["trunk", "access", "routed"]
    speed: int | None = Field(default=None, gt=0, description="Mb/s; none: the slower port's")
    mtu: int | None = None
    vlans: list[int | str] = Field(default=[], description='trunk: VLAN ids, names or "110-125" ranges')
    vlan: int | str | None = Field(default=None, description="access: the VLAN's id or name")
    addresses: LinkAddresses | None = Field(default=None, description="routed: each end's address")
    addresses6: LinkAddresses6 | None = Field(default=None, description="routed: each end's IPv6 address "
                                              "(a /64, /126 or /127); none: IPv4 only")
    description: str | None = None
    # the lab holds every frame this long, one way, in a delay line
    delay_ms: float = Field(default=0, ge=0, le=1000, description="a WAN hop (routed): one-way delay")
    jitter_ms: float = Field(default=0, ge=0, le=1000, description="a WAN hop: delay variation")
    loss_pct: float = Field(default=0, ge=0, lt=50, description="a WAN hop: frames lost, %")

    def addresses_in(self, family: Family) -> LinkAddresses | LinkAddresses6 | None:
        """Each end's address in ``family`` (a routed link's; None: none in that family)."""
        return self.addresses if family == Family.V4 else self.addresses6

    @property
    def wan(self) -> bool:
        return bool(self.delay_ms or self.jitter_ms or self.loss_pct)

    @property
    def key(self) -> str:
        """How plans, the lab and the WAN paths name the link: "a -- b"."""
        return f"{self.a} -- {self.b}"


class MtuPolicy(Strict):
    default: int = 1500
    jumbo: int = 9000
    crypto_inner: int = 8950


class OspfSettings(Strict):
    area: int = 0
    hello: int = 10
    dead: int = 40


class Management(Strict):
    """How deploy and validate-hw reach IOS and EOS switches: carried by every rendered config, so
    a full replace keeps the way in."""

    user: str = Field(default="boothnet", description="the local user (privilege 15, EOS role network-admin)")
    ios_secret_env: str = Field(default="BOOTHNET_ADMIN_SECRET_IOS", description="the environment variable (or "
                                "vault var of the same name) holding the user's IOS type 9 secret hash")
    eos_secret_env: str = Field(default="BOOTHNET_ADMIN_SECRET_EOS", description="the environment variable (or "
                                "vault var) holding the user's EOS sha512 secret hash")
    domain: str = Field(default="booth.lan", description="IOS `ip domain name`: SSH's RSA key is named after it")
    gateway: Address | None = Field(default=None, description="the management network's router (a default route "
                                    "in the management VRF); none: the controller is on the management subnet")


class NetworkSettings(Strict):
    name: str
    description: str = ""
    mgmt_subnet: Subnet = IPv4Network("198.18.0.0/24")
    ospf: OspfSettings = OspfSettings()
    management: Management = Management()


class Rule(Strict):
    name: str
    source: str = Field(alias="from", description="any, zone:<zone>, group:<host group> or vlan:<vlan name>")
    destination: str = Field(alias="to", description="as from")
    proto: Literal["ip", "icmp", "tcp", "udp"] = "ip"
    ports: list[int] = Field(default=[], description="tcp and udp: destination ports; none: every port")
    icmp_types: list[str] = Field(default=[], description="icmp: the ICMP/ICMPv6 types it matches, by name "
                                  "(echo-request, echo-reply, destination-unreachable, time-exceeded, "
                                  "parameter-problem, redirect, timestamp-request, timestamp-reply, "
                                  "packet-too-big); none: every type")
    action: Literal["permit", "deny"]

    def matches_icmp(self, icmp_type: str) -> bool:
        """Does the rule match an ICMP packet of this type (its protocol aside)?"""
        return not self.icmp_types or icmp_type in self.icmp_types

    def icmp_types_in(self, family: Family) -> list[str | None]:
        """The ICMP types its lines name in one family (None: every type); empty: the rule names
        only types of the other family and matches nothing here."""
        if self.proto != "icmp" or not self.icmp_types:
            return [None]
        return [t for t in self.icmp_types if family in ICMP_TYPES.get(t, {})]


class Policy(Strict):
    default_action: Literal["deny", "permit"] = "deny"
    rules: list[Rule] = []


class Uplink(Strict):
    device: str
    next_hop: Address
    next_hop6: Address6 | None = Field(default=None, description="the show network's IPv6 router; none: no IPv6 "
                                       "default route")


class Vpn(Strict):
    name: str
    booth_gateway: str
    home_gateway: str
    booth_subnets: list[str] = Field(min_length=1)  # "vlan:<name>"
    home_subnets: list[str] = Field(min_length=1)
    clients: str  # "group:<name>"
    max_clients: int = Field(default=3, ge=1)
    ike_proposals: list[str] = Field(default=["aes256-sha256-modp2048"], min_length=1)
    esp_proposals: list[str] = Field(default=["aes256gcm16-modp2048"], min_length=1)
    udp_encapsulation: bool = True
    dpd_delay_s: int = 10
    rekey_time_s: int = 3600
    psk_env: str = "BOOTHNET_VPN_PSK"
    # zones whose VLANs the VPN may carry on purpose (research and production are kept out otherwise)
    protected_zones: list[Zone] = []


class ThroughputPath(Strict):
    name: str
    source: str = Field(alias="from")
    destination: str = Field(alias="to")


class WanTests(Strict):
    """The tests of a declared path that crosses a WAN link (delay_ms, loss_pct)."""

    duration_s: int = Field(default=4, gt=0)  # measured, after omit_s of slow start
    omit_s: int = Field(default=2, ge=0)
    streams: int = Field(default=4, ge=2, le=16)  # the parallel-stream test
    udp_rate_pct: float = Field(default=50, gt=0, le=100)  # UDP test rate, % of the path's physical limit
    udp_load_pct: float = Field(default=25, gt=0, lt=100)  # UDP beside a TCP stream (the ORNL test)
    sweep: list[float] = Field(default=[0.25, 0.5, 1, 2], min_length=2)  # windows, x the advised one
    # a sweep point shows one window's goodput, past slow start: shorter than the path's own tests
    # (sc-booth-ds's 24 points at 4 s kept its demo over 10 minutes)
    sweep_duration_s: int = Field(default=2, gt=0)


class Throughput(Strict):
    pass_ratio: float = Field(default=0.9, gt=0, le=1)
    duration_s: int = Field(default=5, gt=0)
    streams: int = Field(default=1, gt=0)
    tools: list[Literal["iperf3", "nuttcp"]] = ["iperf3", "nuttcp"]
    parallel: int | None = Field(default=None, gt=0)  # lanes of tests that share no link; None: 8
    paths: list[ThroughputPath] = []
    wan: WanTests = WanTests()


Prefixes = list[IPv4Network | None]  # None = any
Prefixes6 = list[IPv6Network | None]


def acl_name(vlan: Vlan, direction: str, family: Family = Family.V4) -> str:
    """The ACL a VLAN's interface gets in one direction (named here: validation checks it per platform)."""
    return f"{vlan.name.upper().replace('-', '_')}_{direction.upper()}{Family(family).acl_suffix}"


class Network(Strict):
    settings: NetworkSettings
    mtu_policy: MtuPolicy = MtuPolicy()
    devices: dict[str, Device]
    endpoints: dict[str, Endpoint] = {}
    vlans: list[Vlan]
    links: list[Link] = []
    host_groups: dict[str, list[str]] = {}
    policy: Policy = Policy()
    uplink: Uplink | None = None
    vpn: Vpn | None = None
    throughput: Throughput = Throughput()
    # where each part came from, for error messages downstream
    sources: dict[str, str] = {}
    port_entries: dict[str, list[int]] = {}  # device -> per port, its entry's index in the file
    warnings: list[str] = []  # not wrong, but worth saying (a redundant rule), as IntentError text

    @property
    def name(self) -> str:
        return self.settings.name

    @overload
    def selector_prefixes(self, selector: str, family: Literal[Family.V4] = ...) -> Prefixes: ...
    @overload
    def selector_prefixes(self, selector: str, family: Literal[Family.V6]) -> Prefixes6: ...
    @overload
    def selector_prefixes(self, selector: str, family: Family) -> Prefixes | Prefixes6: ...

    def selector_prefixes(self, selector: str, family: Family = Family.V4) -> Prefixes | Prefixes6:
        """The prefixes a policy selector (any, zone:, vlan:, group:) stands for in ``family``,
        collapsed: a VLAN without IPv6 stands for none in IPv6, nor a host without an IPv6 address."""
        kind, _, name = selector.partition(":")
        found: list[Any]  # one family: collapse_addresses takes no mix
        if selector == "any":
            found = [None]
            return found
        if kind in ("zone", "vlan"):
            found = [p for v in self.vlans if (v.zone if kind == "zone" else v.name) == name
                     and (p := v.prefix(family)) is not None]
            return list(collapse_addresses(found))
        found = [Family(family).host(a) for m in self.host_groups.get(name, [])
                 if (a := self.endpoint_address(self.endpoints[m], family)) is not None]
        return found

    @cached_property
    def listed_hosts(self) -> frozenset[str]:
        """Hosts a rule admits by name (a group it permits from, the VPN's clients): their
        addresses open doors that no other host's does."""
        groups = {r.source.partition(":")[2] for r in self.policy.rules
                  if r.action == "permit" and r.source.startswith("group:")}
        if self.vpn is not None:
            groups.add(self.vpn.clients.partition(":")[2])
        return frozenset(m for g in groups for m in self.host_groups.get(g, []))

    @cached_property
    def secured_vlans(self) -> frozenset[str]:
        """The secured zone's VLANs and those of the listed hosts: an address there that the intent
        does not list is a FAIL, not a warning."""
        return frozenset({v.name for v in self.vlans if v.zone == "secure"}
                         | {self.endpoints[h].vlan for h in self.listed_hosts if h in self.endpoints})

    def address_rules(self) -> list[tuple[int, Rule, list[Endpoint]]]:
        """Each permit rule that admits a group of listed hosts into the secured zone, by their
        addresses alone, with the hosts it admits: (its index, the rule, the hosts)."""
        secure = [v.subnet for v in self.vlans if v.zone == "secure"]
        found = []
        for index, rule in enumerate(self.policy.rules):
            if rule.action != "permit" or not rule.source.startswith("group:"):
                continue
            reached = self.selector_prefixes(rule.destination)
            if any(p is None or any(p.overlaps(s) for s in secure) for p in reached):
                members = self.host_groups.get(rule.source.partition(":")[2], [])
                found.append((index, rule, [self.endpoints[m] for m in members if m in self.endpoints]))
        return found

    def port_bound(self, endpoint: Endpoint) -> bool:
        """Whether the host's port admits only its MAC and address (its VLAN binds its hosts)."""
        vlan = self.vlan_name_index.get(endpoint.vlan)
        return bool(vlan and vlan.bind_hosts and endpoint.mac_address)

    def vlan_by_name(self) -> dict[str, Vlan]:
        return self.vlan_name_index

    def vlan_mtu(self, vlan: Vlan) -> int:
        return vlan.mtu or self.mtu_policy.default

    @overload
    def gateway_address(self, vlan: Vlan, family: Literal[Family.V4] = ...) -> IPv4Address: ...
    @overload
    def gateway_address(self, vlan: Vlan, family: Literal[Family.V6]) -> IPv6Address | None: ...
    @overload
    def gateway_address(self, vlan: Vlan, family: Family) -> IPv4Address | IPv6Address | None: ...

    def gateway_address(self, vlan: Vlan, family: Family = Family.V4) -> IPv4Address | IPv6Address | None:
        """The VLAN's gateway in ``family``: given, else its subnet's first address (IPv6: its
        prefix's ::1, the same); None for IPv6 in an IPv4-only VLAN."""
        # the intent keeps each family's prefix and given gateway in a field of its own
        if family == Family.V4:
            return vlan.gateway_address or next(iter(vlan.subnet.hosts()))
        if vlan.ipv6 is None:
            return None
        return vlan.ipv6.gateway_address or vlan.ipv6.prefix.network_address + 1

    @overload
    def endpoint_address(self, endpoint: Endpoint, family: Literal[Family.V4] = ...) -> IPv4Address: ...
    @overload
    def endpoint_address(self, endpoint: Endpoint, family: Literal[Family.V6]) -> IPv6Address | None: ...
    @overload
    def endpoint_address(self, endpoint: Endpoint, family: Family) -> IPv4Address | IPv6Address | None: ...

    def endpoint_address(self, endpoint: Endpoint, family: Family = Family.V4) -> IPv4Address | IPv6Address | None:
        """The host's address in ``family``: IPv4's is given; IPv6's is its static one, or where
        its VLAN takes SLAAC the EUI-64 address its MAC forms (Linux's default); None where
        neither is known."""
        if family == Family.V4:
            return endpoint.address
        vlan = self.vlan_name_index.get(endpoint.vlan)
        if vlan is None or vlan.ipv6 is None:
            return None
        if vlan.ipv6.hosts == "static":
            return endpoint.address6
        return eui64_address(vlan.ipv6.prefix, endpoint.mac_address) if endpoint.mac_address else None

    @overload
    def bound_sources(self, endpoint: Endpoint, family: Literal[Family.V4]) -> tuple[IPv4Network, ...] | None: ...
    @overload
    def bound_sources(self, endpoint: Endpoint, family: Literal[Family.V6]) -> tuple[IPv6Network, ...] | None: ...
    @overload
    def bound_sources(self, endpoint: Endpoint, family: Family) -> tuple[IPv4Network | IPv6Network, ...] | None: ...

    def bound_sources(self, endpoint: Endpoint, family: Family) -> tuple[IPv4Network | IPv6Network, ...] | None:
        """The sources a bound host's port admits in ``family`` (docs/intent.md, "Listed hosts
        bound to their ports"). IPv4: its address (IP source guard). IPv6: where its VLAN's hosts
        are static, its own address; where they take SLAAC, the VLAN's prefix, on a port that
        admits the host's MAC only: a host forms its addresses as its OS chooses (stable-privacy,
        RFC 8981 temporary addresses), so its MAC and the prefix are what binds it. None: its
        port binds nothing in ``family`` (not bound, or an IPv4-only VLAN in IPv6)."""
        vlan = self.vlan_name_index.get(endpoint.vlan)
        if vlan is None or vlan.prefix(family) is None or not self.port_bound(endpoint):
            return None
        if family == Family.V6 and vlan.ipv6 is not None and vlan.ipv6.hosts == "slaac":
            return (vlan.ipv6.prefix,)
        address = self.endpoint_address(endpoint, family)
        return (Family(family).host(address),) if address is not None else None

    @property
    def dual_stack(self) -> bool:
        """Whether any VLAN or link has IPv6: a network without keeps to IPv4 everywhere."""
        return any(v.ipv6 for v in self.vlans) or any(lk.addresses6 for lk in self.links)

    # Lookups below assume a validated intent (every reference resolves).

    @cached_property
    def port_index(self) -> dict[str, Port]:
        """ "device:port" -> Port, so lookups stay O(1) on a show floor of hundreds of devices."""
        return {f"{name}:{port.name}": port for name, device in self.devices.items() for port in device.ports}

    @cached_property
    def vlan_name_index(self) -> dict[str, Vlan]:
        return {vlan.name: vlan for vlan in self.vlans}

    @cached_property
    def vlan_id_index(self) -> dict[int, Vlan]:
        return {vlan.id: vlan for vlan in self.vlans}

    def vlan(self, ref: int | str) -> Vlan:
        """A VLAN by id or name."""
        if isinstance(ref, int) or str(ref).isdigit():
            return self.vlan_id_index[int(ref)]
        return self.vlan_name_index[str(ref)]

    def selected_vlans(self, refs: list[str]) -> list[Vlan]:
        """The VLANs of `vlan:<name>` references (the VPN's protected subnets)."""
        return [self.vlan_name_index[ref.partition(":")[2]] for ref in refs]

    def link_mtu(self, link: Link) -> int:
        ports = self.port_index
        return link.mtu or ports[link.a].mtu or ports[link.b].mtu or self.mtu_policy.default

    def link_speed(self, link: Link) -> int:
        return link.speed or min(self.port_index[link.a].speed, self.port_index[link.b].speed)

    def endpoint_mtu(self, endpoint: Endpoint) -> int:
        """The MTU of an endpoint's access port: the port's own, else its VLAN's."""
        return self.port_index[endpoint.attach].mtu or self.vlan_mtu(self.vlan_name_index[endpoint.vlan])

    def route(self, src: Endpoint, dst: Endpoint) -> list[Link]:
        """The links between two endpoints' switches, fewest hops first ([] when none connect)."""
        return self.links_between(src.attach.split(":", 1)[0], dst.attach.split(":", 1)[0])

    def links_between(self, start: str, goal: str) -> list[Link]:
        """The links from device ``start`` to device ``goal``, fewest hops first."""
        edges: dict[str, list[tuple[str, Link]]] = collections.defaultdict(list)
        for link in self.links:
            a, b = link.a.split(":", 1)[0], link.b.split(":", 1)[0]
            edges[a].append((b, link))
            edges[b].append((a, link))
        came: dict[str, tuple[str, Link] | None] = {start: None}
        todo = collections.deque([start])
        while todo:
            here = todo.popleft()
            for there, link in edges[here]:
                if there not in came:
                    came[there] = (here, link)
                    todo.append(there)
        hops: list[Link] = []
        at = goal
        while (step := came.get(at)) is not None:
            at, link = step
            hops.append(link)
        return hops[::-1] if at == start else []

    def trunk_vlans(self, link: Link) -> list[Vlan]:
        """The VLANs a trunk carries, from ids, names and ranges, sorted by id."""
        from boothnet.platforms import parse_vlan_ranges

        refs = parse_vlan_ranges(link.vlans) + [v for v in link.vlans if not parse_vlan_ranges([v])]
        carried = {vlan.id: vlan for vlan in map(self.vlan, refs)}
        return [carried[vid] for vid in sorted(carried)]
