"""Read an IOS or EOS config the way the device reads it (its defaults where the text is silent).

hier_config builds the config tree (sections, children, the platform's indentation); each line is
then matched by its leading words against what the device accepts. A line no handler knows is
listed with its line number, so a template that starts printing something new fails until the
reader knows it. Nothing here imports the renderer or the platform quirks the templates use: an
omission in the templates cannot hide in the reader too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from ipaddress import (
    IPv4Address,
    IPv4Interface,
    IPv4Network,
    IPv6Address,
    IPv6Interface,
    IPv6Network,
    ip_address,
    ip_network,
)
from pathlib import Path
from typing import Any, Literal

import yaml
from hier_config import Platform, get_hconfig
from hier_config.child import HConfigChild
from hier_config.exceptions import DuplicateChildError

from boothnet.family import Family
from boothnet.readback.facts import (
    AclRule,
    ConfigFacts,
    InterfaceFacts,
    ManagementAccess,
    OspfOn,
    StaticRoute,
    port_sources6,
)

READ_PLATFORMS = ("cisco_ios", "arista_eos")
_HIER = {"cisco_ios": Platform.CISCO_IOS, "arista_eos": Platform.ARISTA_EOS}
# an ACL's words, by family, for what the model calls ip and icmp, and EOS's full ICMPv6 type names
# (and the ICMP type names IOS and EOS share: `echo`, `unreachable`)
ACL_WORDS: dict[Family, dict[str, str]] = {
    Family.V4: {"echo": "echo-request", "unreachable": "destination-unreachable"},
    Family.V6: {"ipv6": "ip", "icmpv6": "icmp", "neighbor-solicitation": "nd-ns", "neighbor-advertisement": "nd-na",
                "unreachable": "destination-unreachable"}}
# the out-of-band management port: routed, never a switch port (Catalyst Gi0/0, EOS Management1)
_MGMT_PREFIX = {"cisco_ios": ("GigabitEthernet0/0",), "arista_eos": ("Management",)}
# created by naming them; they start as the platform's `shutdown.logical` default
_LOGICAL_PREFIX = ("Vlan", "Loopback", "Port-channel", "Port-Channel", "Tunnel")


@cache
def platform_defaults(platform: str) -> dict[str, Any]:
    """The platform's defaults (value only); defaults.yml gives each one's source."""
    data = yaml.safe_load((Path(__file__).parent / "defaults.yml").read_text())
    return {key: entry["value"] for key, entry in data[platform].items()}


def _vlan_list(text: str) -> tuple[int, ...]:
    ids: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        ids.extend(range(int(first), int(last or first) + 1))
    return tuple(ids)


# the IOS AAA lines the reader knows: local login and exec authorization (docs/deploy.md)
_IOS_AAA = frozenset({"aaa new-model", "aaa authentication login default local",
                      "aaa authorization exec default local"})


@dataclass
class _OspfProcess:
    passive_default: bool = False
    passive: dict[str, bool] = field(default_factory=dict)
    networks: list[tuple[IPv4Network, int]] = field(default_factory=list)
    present: bool = False
    redistribute: list[str] | None = None  # `redistribute static` given: its words after it


@dataclass
class _Filters:
    """Prefix lists (name -> (prefix, le) permitted) and route maps (name -> prefix lists matched)."""

    prefix_lists: dict[str, list[tuple[IPv4Network, int]]] = field(default_factory=dict)
    route_maps: dict[str, list[str]] = field(default_factory=dict)

    def permits(self, route_map: str, prefix: IPv4Network) -> bool:
        lists = self.route_maps.get(route_map, [])
        return any(prefix.subnet_of(p) and p.prefixlen <= prefix.prefixlen <= le
                   for name in lists for p, le in self.prefix_lists.get(name, []))


@dataclass
class _OspfLines:
    """An interface's OSPF (or OSPFv3) lines: they take effect with the process."""

    area: int | None = None
    hello: int | None = None
    dead: int | None = None
    network_type: str | None = None


@dataclass
class _Pending:
    """Interface lines that take effect only together (OSPF area/timers, switchport state)."""

    switchport: bool
    ospf: _OspfLines = field(default_factory=_OspfLines)
    ospf6: _OspfLines = field(default_factory=_OspfLines)
    mode_line: str | None = None
    shutdown: bool | None = None
    port_security: bool = False
    violation: str | None = None  # IOS `switchport port-security violation <mode>`
    secure_macs: list[str] = field(default_factory=list)  # IOS `switchport port-security mac-address`
    verify_source: bool = False  # `ip verify source [port-security]`
    ra_suppressed: bool = False  # IOS `ipv6 nd ra suppress all`, EOS `ipv6 nd ra disabled`
    ra_no_autoconfig: set[str] = field(default_factory=set)  # prefixes advertised without the A flag
    mtu_line: bool = False  # an `mtu` line of its own (else the system MTU, where one is set)


@dataclass
class _Binding:
    """A static IP source binding or MAC table entry: on which port, in which VLAN."""

    interface: str
    vlan: int
    mac: str
    address: IPv4Address | None = None  # None: a static MAC entry


def _mac(text: str) -> str:
    """0200.5e10.3012 (IOS, EOS) in lower-case colon form; ValueError when it is not a MAC."""
    digits = text.lower().replace(".", "")
    if len(digits) != 12 or any(c not in "0123456789abcdef" for c in digits):
        raise ValueError(text)
    return ":".join(digits[i:i + 2] for i in range(0, 12, 2))


# --- interface lines: each takes the line's words; False when the reader does not know the form
_InterfaceLine = Callable[[InterfaceFacts, _Pending, list[str]], bool]


def _shutdown(_iface: InterfaceFacts, pending: _Pending, w: list[str]) -> bool:
    if w not in (["shutdown"], ["no", "shutdown"]):
        return False
    pending.shutdown = w == ["shutdown"]
    return True


def _switchport(_iface: InterfaceFacts, pending: _Pending, w: list[str]) -> bool:
    if w not in (["switchport"], ["no", "switchport"]):
        return False
    pending.switchport = w == ["switchport"]
    return True


def _switchport_mode(_iface: InterfaceFacts, pending: _Pending, w: list[str]) -> bool:
    if w[2:] not in (["access"], ["trunk"]):
        return False
    pending.mode_line = w[2]
    return True


def _access_vlan(iface: InterfaceFacts, _pending: _Pending, w: list[str]) -> bool:
    if len(w) != 4:
        return False
    iface.access_vlan = int(w[3])
    return True


def _trunk_vlans(iface: InterfaceFacts, _pending: _Pending, w: list[str]) -> bool:
    if len(w) != 5:
        return False
    iface.trunk_vlans = _vlan_list(w[4])
    return True


def _ip_address(iface: InterfaceFacts, _pending: _Pending, w: list[str]) -> bool:
    """`ip address 10.0.0.1/24` (EOS) or `ip address 10.0.0.1 255.255.255.0` (IOS)."""
    if len(w) not in (3, 4):
        return False
    iface.address = IPv4Interface(w[2] if len(w) == 3 else f"{w[2]}/{w[3]}")
    return True


def _access_group(iface: InterfaceFacts, _pending: _Pending, w: list[str]) -> bool:
    if len(w) != 4 or w[3] not in ("in", "out"):
        return False
    setattr(iface, f"acl_{w[3]}", w[2])
    return True


def _mtu(iface: InterfaceFacts, pending: _Pending, w: list[str]) -> bool:
    if len(w) != 2:
        return False
    iface.mtu = int(w[1])
    pending.mtu_line = True
    return True


def _ios_mss(iface: InterfaceFacts, _pending: _Pending, w: list[str]) -> bool:
    """IOS `ip tcp adjust-mss <bytes>`."""
    if len(w) != 4:
        return False
    iface.mss = int(w[3])
    return True


def _eos_mss(iface: InterfaceFacts, _pending: _Pending, w: list[str]) -> bool:
    """EOS `tcp mss ceiling ipv4 <bytes>`."""
    iface.mss = int(w[4])
    return True


def _crypto_map(iface: InterfaceFacts, _pending: _Pending, w: list[str]) -> bool:
    """IOS `crypto map <name>`."""
    if len(w) != 3:
        return False
    iface.crypto_map = True
    return True


class ConfigReader:
    """One config's reading: `read_config` is the entry point."""

    def __init__(self, text: str, platform: str, device: str):
        if platform not in _HIER:
            raise ValueError(f"no reader for platform {platform!r}: {', '.join(READ_PLATFORMS)} are read")
        self.platform = platform
        self.defaults = platform_defaults(platform)
        # each line with its spacing collapsed, once: _line_no compares every line it passes
        self.lines = [" ".join(line.split()) for line in text.splitlines()]
        self.cursor = 0
        self.facts = ConfigFacts(device, platform, routing=bool(self.defaults["ip_routing"]))
        self.ospf = _OspfProcess()
        self.ospf6 = _OspfProcess()
        self.filters = _Filters()
        self.pending: dict[str, _Pending] = {}
        self.line_of: dict[int, int] = {}
        self.text = text
        self.snooping = False
        self.snooping_vlans: set[int] = set()
        self.bindings: list[_Binding] = []
        self.access: dict[str, Any] = {"users": [], "ssh": platform == "arista_eos", "scp": False, "eapi": False,
                                       "vrf": None, "gateway": None}
        self.aaa: set[str] = set()  # IOS `aaa ...` lines (the SCP server needs AAA exec authorization)
        self.vty: set[str] = set()  # IOS `line vty 0 15`'s lines
        self.facts.vtp_mode = self.defaults["vtp_mode"]
        self.interface_lines = self._interface_lines()

    # --- line numbers and unknown lines --------------------------------------------------------
    def _line_no(self, text: str) -> int:
        """1-based line of the next occurrence of `text` (hier_config keeps no line numbers)."""
        for start in (self.cursor, 0):
            for index in range(start, len(self.lines)):
                if self.lines[index] == text:
                    self.cursor = index + 1
                    return index + 1
        return 0

    def _visit(self, node: HConfigChild) -> None:
        self.line_of[id(node)] = self._line_no(node.text)

    def _unknown(self, node: HConfigChild, why: str = "not a line the reader knows") -> None:
        self.facts.unknown.append((self.line_of.get(id(node), 0), node.text, why))

    # --- entry ---------------------------------------------------------------------------------
    def read(self) -> ConfigFacts:
        try:
            tree = get_hconfig(_HIER[self.platform], self.text)
        except DuplicateChildError as exc:
            self.facts.unreadable = f"a line given twice in one section: {exc}"
            return self.facts
        top: dict[str, Callable[[HConfigChild, list[str]], None]] = {
            "hostname": lambda _n, _w: None,
            "ip": self._top_ip,
            "ipv6": self._top_ipv6,
            "no": self._top_no,
            "interface": self._interface,
            "vlan": self._vlan,
            "router": self._router,
            "archive": self._archive,
            "crypto": self._crypto,
            "route-map": self._route_map,
            "mac": self._top_mac,
            "username": self._username,
            "aaa": self._aaa,
            "line": self._line,
            "vrf": self._vrf_definition,
            "management": self._management_api,
            "vtp": self._vtp,
            "spanning-tree": self._spanning_tree,
            "system": self._system,
        }
        for node in tree.children:
            self._visit(node)
            words = node.text.split()
            handler = top.get(words[0])
            if handler is None:
                self._unknown(node)
                continue
            handler(node, words)
        self._finish_interfaces()
        self._finish_redistribution()
        self._finish_ios_access()
        self.facts.access = ManagementAccess(tuple(self.access["users"]), self.access["ssh"], self.access["scp"],
                                             self.access["eapi"], self.access["vrf"], self.access["gateway"])
        return self.facts

    # --- top-level lines -----------------------------------------------------------------------
    def _top_ip(self, node: HConfigChild, words: list[str]) -> None:
        if words[1:] == ["routing"]:
            self.facts.routing = True
        elif words[1:2] == ["route"] and words[2:3] != ["vrf"]:
            self._route(node, words[2:])
        elif words[1:2] == ["access-list"]:
            self._acl(node, words[2:])
        elif words[1:2] == ["prefix-list"]:
            self._prefix_list(node, words[2:])
        elif words[1:3] == ["dhcp", "snooping"] and self.platform == "cisco_ios" and len(words) in (3, 5):
            if len(words) == 3:
                self.snooping = True
            elif words[3] == "vlan":
                self.snooping_vlans.update(_vlan_list(words[4]))
            else:
                self._unknown(node)
        elif words[1:3] == ["source", "binding"]:
            self._source_binding(node, words[3:])
        elif not self._top_ip_management(words[1:]):
            self._unknown(node)

    def _top_ip_management(self, w: list[str]) -> bool:
        """IOS's SSH and SCP servers, its domain (SSH's key is named after it), the management VRF's route."""
        if self.platform != "cisco_ios":
            return False
        if w[:2] == ["domain", "name"] and len(w) == 3 or w == ["ssh", "version", "2"]:
            return True
        if w == ["scp", "server", "enable"]:
            self.access["scp"] = True
            return True
        if w[:2] == ["route", "vrf"] and len(w) == 6 and w[3:5] == ["0.0.0.0", "0.0.0.0"] \
                and w[2] == self.access["vrf"]:
            self.access["gateway"] = IPv4Address(w[5])
            return True
        return False

    # --- the management plane and the switch's own protocols ------------------------------------
    def _username(self, node: HConfigChild, words: list[str]) -> None:
        """`username U privilege 15 secret 9 H` (IOS), `... privilege 15 role network-admin secret sha512 H` (EOS)."""
        form = (["privilege", "15", "secret", "9"] if self.platform == "cisco_ios"
                else ["privilege", "15", "role", "network-admin", "secret", "sha512"])
        if len(words) == len(form) + 3 and words[2:-1] == form:
            self.access["users"].append(words[1])
        else:
            self._unknown(node, "not a privilege-15 user with a hashed secret the reader can read")

    def _aaa(self, node: HConfigChild, words: list[str]) -> None:
        """IOS AAA with the local user database: login and exec authorization (SCP needs the latter)."""
        if self.platform == "cisco_ios" and " ".join(words) in _IOS_AAA:
            self.aaa.add(" ".join(words))
        else:
            self._unknown(node)

    def _line(self, node: HConfigChild, words: list[str]) -> None:
        """IOS `line vty 0 15`: SSH logins with local users."""
        lines = {child.text for child in node.children}
        for child in node.children:
            self._visit(child)
        if self.platform == "cisco_ios" and words[1:2] == ["vty"] and lines <= {"login local", "transport input ssh"}:
            self.vty = lines
        else:
            self._unknown(node)

    def _finish_ios_access(self) -> None:
        """SSH: vty lines that take SSH and log in local users (`login local` without AAA, AAA's default
        login list with it); SCP: the server on and, as Cisco's Secure Copy guide requires, AAA
        authorization of the user's exec (NAPALM ios copies the candidate with it)."""
        if self.platform != "cisco_ios":
            return
        new_model = "aaa new-model" in self.aaa
        local_login = "aaa authentication login default local" in self.aaa if new_model else "login local" in self.vty
        self.access["ssh"] = "transport input ssh" in self.vty and local_login
        self.access["scp"] = self.access["scp"] and new_model and "aaa authorization exec default local" in self.aaa

    def _vrf_definition(self, node: HConfigChild, words: list[str]) -> None:
        """IOS `vrf definition NAME` with its IPv4 address family: the management VRF."""
        children = [" ".join(c.text.split()) for c in node.all_children()]
        for child in node.all_children():
            self._visit(child)
        if not (self.platform == "cisco_ios" and words[1:2] == ["definition"] and len(words) == 3
                and children in (["address-family ipv4", "exit-address-family"], ["address-family ipv4"])):
            self._unknown(node)

    def _management_api(self, node: HConfigChild, words: list[str]) -> None:
        """EOS `management api http-commands` / `no shutdown`: eAPI on (off where the config is silent)."""
        for child in node.children:
            self._visit(child)
        if self.platform == "arista_eos" and words[1:] == ["api", "http-commands"] and \
                [c.text.strip() for c in node.children] in (["no shutdown"], ["shutdown"], []):
            self.access["eapi"] = [c.text.strip() for c in node.children] == ["no shutdown"]
        else:
            self._unknown(node)

    def _vtp(self, node: HConfigChild, words: list[str]) -> None:
        if self.platform == "cisco_ios" and words[1:2] == ["mode"] and words[2:] in (
                ["server"], ["client"], ["transparent"], ["off"]):
            self.facts.vtp_mode = words[2]
        else:
            self._unknown(node)

    def _spanning_tree(self, node: HConfigChild, words: list[str]) -> None:
        # the mode decides no forwarding the lab models (one loop-free tree per booth)
        if words[1:2] != ["mode"] or words[2:] not in (["rapid-pvst"], ["mst"], ["mstp"], ["pvst"]):
            self._unknown(node)

    def _system(self, node: HConfigChild, words: list[str]) -> None:
        if self.platform == "cisco_ios" and words[1:2] == ["mtu"] and len(words) == 3 and words[2].isdigit():
            self.facts.system_mtu = int(words[2])
        else:
            self._unknown(node)

    def _top_ipv6(self, node: HConfigChild, words: list[str]) -> None:
        if words[1:] == ["unicast-routing"]:
            self.facts.ipv6_routing = True
        elif words[1:2] == ["access-list"] and len(words) == 3:
            self._acl_rules(node, words[2], Family.V6)
        elif words[1:2] == ["route"]:
            self._route(node, words[2:], Family.V6)
        elif words[1:3] == ["router", "ospf"] and len(words) == 4:
            self._ospf_process(node, self.ospf6, Family.V6)
        else:
            self._unknown(node)

    def _source_binding(self, node: HConfigChild, w: list[str]) -> None:
        """IOS `ip source binding MAC vlan N IP interface IF`; EOS `... IP MAC vlan N interface IF`."""
        try:
            if self.platform == "cisco_ios" and len(w) >= 6 and w[1] == "vlan" and w[4] == "interface":
                mac, vlan, address, interface = _mac(w[0]), int(w[2]), IPv4Address(w[3]), " ".join(w[5:])
            elif self.platform == "arista_eos" and len(w) >= 6 and (w[2], w[4]) == ("vlan", "interface"):
                address, mac, vlan, interface = IPv4Address(w[0]), _mac(w[1]), int(w[3]), " ".join(w[5:])
            else:
                raise ValueError(w)
        except ValueError:
            self._unknown(node, "not an IP source binding the reader can read")
            return
        self.bindings.append(_Binding(interface, vlan, mac, address))

    def _top_mac(self, node: HConfigChild, words: list[str]) -> None:
        """`mac address-table static MAC vlan N interface IF` (a MAC that port security admits on EOS)."""
        w = words[1:]
        try:
            if w[:2] != ["address-table", "static"] or len(w) < 7 or (w[3], w[5]) != ("vlan", "interface"):
                raise ValueError(w)
            self.bindings.append(_Binding(" ".join(w[6:]), int(w[4]), _mac(w[2])))
        except ValueError:
            self._unknown(node, "not a static MAC entry the reader can read")

    def _top_no(self, node: HConfigChild, words: list[str]) -> None:
        if words[1:] == ["ip", "routing"]:
            self.facts.routing = False
        else:
            self._unknown(node)

    def _prefix(self, words: list[str]) -> tuple[IPv4Network, list[str]]:
        """`A M` (IOS, mask or wildcard) or `A/L` (EOS); the words after it."""
        if "/" in words[0]:
            return IPv4Network(words[0], strict=False), words[1:]
        return IPv4Network(f"{words[0]}/{words[1]}", strict=False), words[2:]

    def _route(self, node: HConfigChild, words: list[str], family: Family = Family.V4) -> None:
        try:
            prefix, rest = self._prefix(words) if family == Family.V4 else (IPv6Network(words[0]), words[1:])
            hop: IPv4Address | IPv6Address | str
            try:
                hop = ip_address(rest[0])
            except ValueError:
                hop = rest[0]  # an interface: Null0, a tunnel
            if isinstance(hop, IPv4Address | IPv6Address) and hop.version != family:
                raise ValueError(f"an IPv{hop.version} next hop on an IPv{family} route")
            rest = rest[1:]
            distance = int(self.defaults["route_distance"])
            if rest and rest[0].isdigit():
                distance, rest = int(rest[0]), rest[1:]
            if rest and (rest[0] != "name" or len(rest) != 2):
                raise ValueError(rest)
        except (ValueError, IndexError):
            self._unknown(node, "not a static route the reader can read")
            return
        self.facts.routes.append(StaticRoute(prefix, hop, distance))

    def _vlan(self, node: HConfigChild, words: list[str]) -> None:
        if len(words) != 2 or not words[1].isdigit():
            self._unknown(node)
            return
        self.facts.vlans[int(words[1])] = ""
        for child in node.children:
            self._visit(child)
            parts = child.text.split()
            if parts[0] == "name" and len(parts) == 2:
                self.facts.vlans[int(words[1])] = parts[1]
            else:
                self._unknown(child)

    def _archive(self, node: HConfigChild, _words: list[str]) -> None:
        # `configure replace`'s archive: no forwarding fact, but only the lines it takes
        for child in node.children:
            self._visit(child)
            if child.text.split()[0] not in ("path", "maximum"):
                self._unknown(child)

    # --- ACLs ----------------------------------------------------------------------------------
    def _acl(self, node: HConfigChild, words: list[str]) -> None:
        if self.platform == "cisco_ios":
            if words[:1] != ["extended"] or len(words) != 2:
                self._unknown(node, "only named extended IPv4 ACLs are read")
                return
            name = words[1]
        else:
            if len(words) != 1:
                self._unknown(node, "only IPv4 ACLs are read")
                return
            name = words[0]
        self._acl_rules(node, name, Family.V4)

    def _acl_rules(self, node: HConfigChild, name: str, family: Family) -> None:
        rules = self.facts.acls.setdefault(name, [])
        for child in node.children:
            self._visit(child)
            try:
                rules.append(self._acl_rule(child.text.split(), family))
            except (ValueError, IndexError):
                self._unknown(child, "not an ACL entry the reader can read")

    def _acl_address(self, words: list[str], family: Family) -> tuple[IPv4Network | IPv6Network | None, list[str]]:
        """`any`, `host A` or a prefix, of the ACL's own family (the device refuses another)."""
        if words[0] == "any":
            return None, words[1:]
        address, rest = ((ip_network(words[1]), words[2:]) if words[0] == "host"
                         else (IPv6Network(words[0]), words[1:]) if family == Family.V6 else self._prefix(words))
        if address.version != family:
            raise ValueError(f"an IPv{address.version} address in an IPv{family} ACL")
        return address, rest

    def _acl_rule(self, words: list[str], family: Family) -> AclRule:
        if words[0].isdigit():  # EOS numbers its lines
            words = words[1:]
        action: Literal["permit", "deny"] = "permit" if words[0] == "permit" else "deny"
        if words[0] not in ("permit", "deny"):
            raise ValueError(words[0])
        proto = ACL_WORDS[family].get(words[1], words[1])
        src, rest = self._acl_address(words[2:], family)
        src_port = None
        if rest[:1] == ["eq"]:
            src_port, rest = int(rest[1]), rest[2:]
        dst, rest = self._acl_address(rest, family)
        dst_port = None
        if rest[:1] == ["eq"]:
            dst_port, rest = int(rest[1]), rest[2:]
        icmp_type = None
        if proto == "icmp" and rest and rest[0] not in ("established", "log"):
            icmp_type, rest = ACL_WORDS[family].get(rest[0], rest[0]), rest[1:]
        flags = set(rest)
        if not flags <= {"established", "log"} or len(flags) != len(rest):
            raise ValueError(rest)
        return AclRule(action, proto, src, src_port, dst, dst_port, icmp_type, "established" in flags, "log" in flags)

    # --- interfaces ----------------------------------------------------------------------------
    def _interface(self, node: HConfigChild, words: list[str]) -> None:
        name = " ".join(words[1:])
        mgmt = name.startswith(_MGMT_PREFIX[self.platform])
        logical = name.startswith(_LOGICAL_PREFIX)
        mode = "mgmt" if mgmt else "svi" if name.startswith("Vlan") else "access"
        shutdown = self.defaults["shutdown"]["logical" if logical else "physical"]
        iface = self.facts.interfaces.setdefault(name, InterfaceFacts(
            name, mode, mtu=int(self.defaults["mtu"]), shutdown=bool(shutdown),
            access_vlan=int(self.defaults["access_vlan"]) if mode == "access" else None))
        pending = self.pending.setdefault(name, _Pending(switchport=mode == "access"))
        for child in node.children:
            self._visit(child)
            if not self._interface_line(iface, pending, child.text.split()):
                self._unknown(child)

    def _interface_line(self, iface: InterfaceFacts, pending: _Pending, w: list[str]) -> bool:
        """One interface line, by the handler of its longest known leading words; False if the
        reader does not know it."""
        for size in range(len(w), 0, -1):
            handler = self.interface_lines.get(tuple(w[:size]))
            if handler is not None:
                return handler(iface, pending, w)
        return False

    def _interface_lines(self) -> dict[tuple[str, ...], _InterfaceLine]:
        """The interface lines this platform takes, by their leading words. A form one platform
        only takes is in its table only: the other's reader lists it as a line it does not know."""
        lines: dict[tuple[str, ...], _InterfaceLine] = {
            ("description",): lambda _iface, _pending, _w: True,
            ("spanning-tree", "portfast"): lambda _iface, _pending, w: len(w) == 2,
            ("shutdown",): _shutdown,
            ("no", "shutdown"): _shutdown,
            ("switchport",): _switchport,
            ("no", "switchport"): _switchport,
            ("switchport", "mode"): _switchport_mode,
            ("switchport", "access", "vlan"): _access_vlan,
            ("switchport", "trunk", "allowed", "vlan"): _trunk_vlans,
            ("switchport", "port-security"): lambda _iface, pending, w: self._interface_port_security(pending, w),
            ("ip", "address"): _ip_address,
            ("ip", "access-group"): _access_group,
            ("ip", "ospf"): lambda _iface, pending, w: self._interface_ospf(pending.ospf, w[2:]),
            ("ip", "verify", "source"): lambda _iface, pending, w: self._interface_port_security(pending, w),
            ("ipv6",): lambda iface, pending, w: self._interface_ipv6(iface, pending, w[1:]),
            ("mtu",): _mtu,
        }
        if self.platform == "cisco_ios":
            lines |= {
                ("vrf", "forwarding"): self._management_vrf,
                ("switchport", "trunk", "encapsulation", "dot1q"): lambda _iface, _pending, w: len(w) == 4,
                ("ip", "tcp", "adjust-mss"): _ios_mss,
                ("crypto", "map"): _crypto_map,
            }
        else:
            lines[("tcp", "mss", "ceiling", "ipv4")] = _eos_mss
        return lines

    def _management_vrf(self, iface: InterfaceFacts, _pending: _Pending, w: list[str]) -> bool:
        """IOS `vrf forwarding <name>` on the management port: the VRF management access lives in."""
        if len(w) != 3 or iface.mode != "mgmt":
            return False
        self.access["vrf"] = w[2]
        return True

    def _interface_ipv6(self, iface: InterfaceFacts, pending: _Pending, w: list[str]) -> bool:
        filter_word = "traffic-filter" if self.platform == "cisco_ios" else "access-group"
        if w[0] == "address" and len(w) == 2:
            iface.address6 = IPv6Interface(w[1])
        elif w[:1] == [filter_word] and len(w) == 3 and w[2] in ("in", "out"):
            setattr(iface, f"acl6_{w[2]}", w[1])
        elif w == (["nd", "ra", "suppress", "all"] if self.platform == "cisco_ios" else ["nd", "ra", "disabled"]):
            pending.ra_suppressed = True
        elif w[:2] == ["nd", "prefix"] and len(w) == 6 and w[3].isdigit() and w[4].isdigit() \
                and w[5] == "no-autoconfig":
            pending.ra_no_autoconfig.add(str(IPv6Network(w[2])))
        elif w[0] == "ospf" and len(w) > 1:
            return self._interface_ospf(pending.ospf6, w[1:], v3=True)
        else:
            return False
        return True

    def _interface_port_security(self, pending: _Pending, w: list[str]) -> bool:
        ios = self.platform == "cisco_ios"
        # EOS's one secure MAC: no change to what is admitted
        no_effect = [] if ios else [["switchport", "port-security", "mac-address", "maximum", "1"]]
        if w == ["switchport", "port-security"]:
            pending.port_security = True
        elif ios and w[2:3] == ["violation"] and len(w) == 4 and w[3] in ("protect", "restrict", "shutdown"):
            pending.violation = w[3]
        elif ios and w[2:3] == ["mac-address"] and len(w) == 4:
            try:
                pending.secure_macs.append(_mac(w[3]))
            except ValueError:
                return False  # `sticky`, or not a MAC: listed as a line the reader does not know
        elif w[:3] == ["ip", "verify", "source"] and (not w[3:] or ios and w[3:] in (["port-security"], ["mac-check"])):
            pending.verify_source = True
        else:
            return w in no_effect
        return True

    @staticmethod
    def _interface_ospf(lines: _OspfLines, w: list[str], v3: bool = False) -> bool:
        """`ip ospf ...` or (v3) `ipv6 ospf ...` after those words."""
        if w[0] == "hello-interval" and len(w) == 2:
            lines.hello = int(w[1])
        elif w[0] == "dead-interval" and len(w) == 2:
            lines.dead = int(w[1])
        elif w[0] == "network" and len(w) == 2:
            lines.network_type = w[1]
        elif w[0] == "area" and len(w) == 2 and not v3:  # EOS
            lines.area = _area(w[1])
        elif len(w) == 3 and w[0].isdigit() and w[1] == "area":  # `ip ospf 1 area 0`, `ipv6 ospf 1 area 0`
            lines.area = _area(w[2])
        else:
            return False
        return True

    def _finish_interfaces(self) -> None:
        """What the interface lines mean together: switchport state, then OSPF coverage."""
        for name, iface in self.facts.interfaces.items():
            pending = self.pending[name]
            if pending.shutdown is not None:
                iface.shutdown = pending.shutdown
            if self.facts.system_mtu and not pending.mtu_line and iface.mode != "mgmt":
                iface.mtu = self.facts.system_mtu
            if iface.mode == "access":
                if not pending.switchport:
                    iface.mode, iface.access_vlan = "routed", None
                elif pending.mode_line == "trunk":
                    iface.mode, iface.access_vlan = "trunk", None
                    iface.trunk_vlans = iface.trunk_vlans or _vlan_list(self.defaults["trunk_vlans"])
                if pending.switchport and iface.address is not None:
                    self.facts.unknown.append((0, f"interface {name}: ip address", "an address on a switch "
                                               "port: the device refuses it without `no switchport`"))
                    iface.address = None
            frames = self.defaults.get("switchport_frames")
            if frames and iface.mode in ("access", "trunk"):
                iface.mtu = int(frames)  # EOS: `mtu` bounds routed packets only, never switched frames
            iface.ra = self._ra(iface, pending)
            iface.ospf = self._ospf_on(name, iface, pending, Family.V4)
            iface.ospf6 = self._ospf_on(name, iface, pending, Family.V6)
            if iface.mode == "access":
                self._bound(name, iface, pending)

    def _ra(self, iface: InterfaceFacts, pending: _Pending) -> Literal["slaac", "static"] | None:
        """What the interface's router advertisements offer its hosts, as the device sends them."""
        if iface.address6 is None or not self.facts.ipv6_routing or pending.ra_suppressed \
                or not self.defaults["ipv6_ra"]:
            return None
        return "static" if str(iface.address6.network) in pending.ra_no_autoconfig else "slaac"

    def _bound(self, name: str, iface: InterfaceFacts, pending: _Pending) -> None:
        """What a host port admits: port security admits its secure MACs (IOS: those it names;
        EOS: the static MAC entries on the port), none named being any one MAC; IP source guard
        admits the sources its static bindings give the port, and on IOS only in a VLAN where
        DHCP snooping is on (else it does nothing)."""
        mine = [b for b in self.bindings if b.interface == name and b.vlan == iface.access_vlan]
        if pending.port_security:
            macs = pending.secure_macs if self.platform == "cisco_ios" else [b.mac for b in mine if b.address is None]
            iface.allowed_macs = tuple(macs) or None
            iface.violation = pending.violation or str(self.defaults["port_security_violation"])
        guarded = self.snooping and iface.access_vlan in self.snooping_vlans if self.platform == "cisco_ios" else True
        if pending.verify_source and guarded:
            iface.allowed_sources = tuple(b.address for b in mine if b.address is not None)
        if iface.acl6_in in self.facts.acls:  # one bound but not defined permits all, as on a routed port
            iface.allowed_sources6 = port_sources6(self.facts.acls[iface.acl6_in])

    def _ospf_on(self, name: str, iface: InterfaceFacts, pending: _Pending, family: Family) -> OspfOn | None:
        """OSPF (IPv4) or OSPFv3 (IPv6) on an interface, with its process present: where the
        interface names the process's area, or a `network` line covers its address (OSPFv3 has
        none). OSPFv3 runs only where the interface has IPv6 and IPv6 routing is on (the device
        refuses `ipv6 router ospf` without it)."""
        process, lines, address = ((self.ospf, pending.ospf, iface.address) if family == Family.V4
                                   else (self.ospf6, pending.ospf6, iface.address6))
        if not process.present or (family == Family.V6 and (address is None or not self.facts.ipv6_routing)):
            return None
        area = lines.area
        if area is None and address is not None:
            area = next((a for net, a in process.networks if address.ip in net), None)
        return self._on(name, area, lines, process)

    def _on(self, name: str, area: int | None, lines: _OspfLines, process: _OspfProcess) -> OspfOn | None:
        if area is None:
            return None
        return OspfOn(
            area=area,
            passive=process.passive.get(name, process.passive_default),
            hello=lines.hello or int(self.defaults["ospf_hello"]),
            dead=lines.dead or self._default_dead(lines.hello),
            network_type=lines.network_type or str(self.defaults["ospf_network_type"]),
        )

    def _default_dead(self, hello: int | None) -> int:
        if hello and self.defaults["ospf_dead_follows_hello"]:
            return 4 * hello
        return int(self.defaults["ospf_dead"])

    # --- OSPF and crypto -----------------------------------------------------------------------
    def _router(self, node: HConfigChild, words: list[str]) -> None:
        if words[1:2] != ["ospf"]:
            self._unknown(node)
            return
        self._ospf_process(node, self.ospf, Family.V4)

    def _ospf_process(self, node: HConfigChild, process: _OspfProcess, family: Family) -> None:
        """`router ospf N` (IPv4) or `ipv6 router ospf N` (IPv6) and its lines."""
        process.present = True
        process.passive_default = bool(self.defaults["ospf_passive"])
        for child in node.children:
            self._visit(child)
            if not self._ospf_line(child.text.split(), process, family):
                self._unknown(child)

    def _ospf_line(self, w: list[str], process: _OspfProcess, family: Family) -> bool:
        v6 = family == Family.V6
        if w[0] == "router-id" and len(w) == 2:
            setattr(self.facts, "ospf6_router_id" if v6 else "ospf_router_id", IPv4Address(w[1]))
        elif w == ["passive-interface", "default"]:
            process.passive_default = True
        elif w[:1] == ["passive-interface"] and len(w) == 2:
            process.passive[w[1]] = True
        elif w[:2] == ["no", "passive-interface"] and len(w) == 3:
            process.passive[w[2]] = False
        elif w[0] == "network" and "area" in w and not v6:
            prefix, rest = self._prefix(w[1:])
            if rest[:1] != ["area"] or len(rest) != 2:
                return False
            process.networks.append((prefix, _area(rest[1])))
        elif w[:2] == ["default-information", "originate"]:
            setattr(self.facts, "default_originate6" if v6 else "default_originate", True)
        elif w[:2] == ["redistribute", "static"] and not v6:
            process.redistribute = w[2:]
        else:
            return False
        return True

    # --- route filters and redistribution ------------------------------------------------------
    def _prefix_list(self, node: HConfigChild, words: list[str]) -> None:
        """IOS: `ip prefix-list N seq 5 permit P [le X]`; EOS: `ip prefix-list N` with `seq ...` lines."""
        entries = self.filters.prefix_lists.setdefault(words[0], [])
        lines = [(node, words[1:])] if len(words) > 1 else [(c, c.text.split()) for c in node.children]
        for line_node, w in lines:
            if line_node is not node:
                self._visit(line_node)
            try:
                if w[0] == "seq":
                    w = w[2:]
                if w[0] != "permit" or len(w) not in (2, 4) or (len(w) == 4 and w[2] != "le"):
                    raise ValueError(w)
                prefix = IPv4Network(w[1])
                entries.append((prefix, int(w[3]) if len(w) == 4 else prefix.prefixlen))
            except (ValueError, IndexError):
                self._unknown(line_node, "not a prefix-list entry the reader can read")

    def _route_map(self, node: HConfigChild, words: list[str]) -> None:
        if len(words) != 4 or words[2] != "permit":
            self._unknown(node, "only `route-map NAME permit N` is read")
            return
        matched = self.filters.route_maps.setdefault(words[1], [])
        for child in node.children:
            self._visit(child)
            w = child.text.split()
            if w[:4] == ["match", "ip", "address", "prefix-list"] and len(w) == 5:
                matched.append(w[4])
            else:
                self._unknown(child)

    def _finish_redistribution(self) -> None:
        """The static routes OSPF carries: through the route map where one is named; on IOS only
        classful prefixes unless `subnets` is given."""
        words = self.ospf.redistribute
        if words is None:
            return
        route_map = words[words.index("route-map") + 1] if "route-map" in words[:-1] else None
        subnets = "subnets" in words or self.platform != "cisco_ios"
        carried = []
        for route in self.facts.routes:
            if not isinstance(route.prefix, IPv4Network):
                continue  # `ipv6 router ospf` redistributes on its own (boothnet asks it for none)
            if not subnets and route.prefix.prefixlen != _classful(route.prefix):
                continue
            if route_map is None or self.filters.permits(route_map, route.prefix):
                carried.append(route.prefix)
        self.facts.redistribute = tuple(sorted(set(carried)))

    def _crypto(self, node: HConfigChild, words: list[str]) -> None:
        if self.platform != "cisco_ios":
            self._unknown(node)
            return
        known_children = {"isakmp": {"encr", "hash", "authentication", "group"},
                          "ipsec": {"mode"}, "map": {"set", "match"}}.get(words[1])
        if known_children is None:
            self._unknown(node)
            return
        for child in node.children:
            self._visit(child)
            parts = child.text.split()
            if parts[0] not in known_children:
                self._unknown(child)
            elif parts[:2] == ["set", "peer"]:
                self.facts.crypto_peers += (IPv4Address(parts[2]),)


def _area(text: str) -> int:
    """An OSPF area as a number: `0` or dotted `0.0.0.0`."""
    return int(IPv4Address(text)) if "." in text else int(text)


def _classful(prefix: IPv4Network) -> int:
    first = int(prefix.network_address) >> 24
    return 8 if first < 128 else 16 if first < 192 else 24


def read_config(text: str, platform: str, device: str) -> ConfigFacts:
    """The facts an IOS or EOS device takes from `text`, its defaults applied."""
    return ConfigReader(text, platform, device).read()
