"""Stage 2: turn raw intent into a validated Network, reporting every error at once.

Each error names the file, the field path (`vlans[3].id`), the value and what is allowed.
Checks are linear or n log n in the size of the intent (sorting, dictionaries), never
all-pairs, so a show floor of hundreds of devices validates in well under a second.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import cache
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from boothnet.errors import IntentError, IntentInvalid
from boothnet.intent.loader import RawInventory, load_inventory
from boothnet.intent.model import (
    ZONES,
    Device,
    Endpoint,
    Link,
    MtuPolicy,
    Network,
    NetworkSettings,
    Policy,
    Prefixes,
    Rule,
    Throughput,
    Uplink,
    Vlan,
    Vpn,
    acl_name,
)
from boothnet.intent.prefix_index import PrefixIndex
from boothnet.platforms import parse_vlan_ranges, platforms, supported

# ESP overhead in bytes for the worst case of each cipher family: outer IPv4 20, SPI and
# sequence 8, IV, padding to the block, pad length and next header 2, ICV; UDP 8 if encapsulated.
_ESP_CIPHER_OVERHEAD = {"gcm": 8 + 3 + 2 + 16, "cbc": 16 + 15 + 2 + 16}


def esp_overhead(esp_proposal: str, udp_encapsulation: bool) -> int:
    cipher = "gcm" if "gcm" in esp_proposal else "cbc"
    return 20 + 8 + _ESP_CIPHER_OVERHEAD[cipher] + (8 if udp_encapsulation else 0)


def _path(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if part == "":
            part = "''"  # an empty key, shown as one
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _pydantic_errors(
    exc: ValidationError, file: str, prefix: str, data: Any, port_entries: list[int] | None = None
) -> list[IntentError]:
    errors = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        if port_entries and len(loc) > 1 and loc[0] == "ports" and isinstance(loc[1], int):
            loc = ("ports", port_entries[loc[1]], *loc[2:])  # the file's entry, not the expanded port
        value = err.get("input")
        if err["type"] == "missing":
            value = "missing"
        errors.append(
            IntentError(
                file,
                _path((prefix, *loc)) if prefix else _path(loc),
                value if not isinstance(value, dict | list) else type(value).__name__,
                err["msg"],
            )
        )
    return errors


class _Collector:
    def __init__(self, raw: RawInventory):
        self.raw = raw
        self.errors: list[IntentError] = []

    def var_file(self, key: str) -> str:
        return self.raw.var_files.get(key, f"{self.raw.root}/group_vars/all/{key}.yml")

    def add(self, file: str, path: str, value: object, allowed: str) -> None:
        self.errors.append(IntentError(file, path, value, allowed))

    def section(self, key: str, model: type[BaseModel], required: bool = False) -> Any:
        data = self.raw.vars.get(key)
        if data is None:
            if required:
                self.add(self.var_file(key), key, "missing", f"a `{key}:` section in group_vars/all")
            return None
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            self.errors.extend(_pydantic_errors(exc, self.var_file(key), key, data))
            return None

    def items(self, key: str, model: type[BaseModel]) -> list[Any]:
        data = self.raw.vars.get(key) or []
        if not isinstance(data, list):
            self.add(self.var_file(key), key, type(data).__name__, "a list")
            return []
        parsed = []
        for index, item in enumerate(data):
            try:
                parsed.append(model.model_validate(item))
            except ValidationError as exc:
                self.errors.extend(_pydantic_errors(exc, self.var_file(key), f"{key}[{index}]", item))
                parsed.append(None)
        return parsed

    def hosts(self, hosts: dict[str, dict[str, Any]], model: type[BaseModel], group: str) -> dict:
        parsed = {}
        for name, host_vars in hosts.items():
            file = self.raw.host_files[name]
            prefix = f"{group}.{name}" if file == self.raw.hosts_file else ""
            try:
                parsed[name] = model.model_validate({"name": name, **host_vars})
            except ValidationError as exc:
                inline = self.raw.inline_keys.get(name, set())
                found = _pydantic_errors(exc, file, prefix, host_vars, self.raw.port_entries.get(name))
                for error, detail in zip(found, exc.errors(), strict=True):
                    loc = tuple(detail["loc"])
                    if file != self.raw.hosts_file and loc and loc[0] in inline:  # set in hosts.yml, not host_vars
                        error = IntentError(self.raw.hosts_file, _path((f"{group}.{name}", *loc)), error.value,
                                            error.allowed)
                    self.errors.append(error)
        return parsed


def build_network(raw: RawInventory) -> Network:
    c = _Collector(raw)
    settings = c.section("network", NetworkSettings, required=True)
    mtu_policy = c.section("mtu_policy", MtuPolicy) or MtuPolicy()
    vlans = c.items("vlans", Vlan)
    links = c.items("links", Link)
    policy = c.section("policy", Policy) or Policy()
    uplink = c.section("uplink", Uplink)
    vpn = c.section("vpn", Vpn)
    throughput = c.section("throughput", Throughput) or Throughput()
    devices = c.hosts(raw.devices, Device, "devices")
    endpoints = c.hosts(raw.endpoints, Endpoint, "endpoints")
    host_groups = raw.vars.get("host_groups") or {}
    if not isinstance(host_groups, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(m, str) for m in v)
        for k, v in host_groups.items()
    ):
        c.add(
            c.var_file("host_groups"), "host_groups", "malformed", "a mapping of group name to a list of endpoint names"
        )
        host_groups = {}
    known_keys = {"network", "mtu_policy", "vlans", "links", "policy", "uplink", "vpn", "throughput", "host_groups"}
    for key in sorted(set(raw.vars) - known_keys):
        if not key.startswith(("ansible_", "boothnet_", "vault_")):
            c.add(
                raw.var_files[key],
                key,
                "unknown key",
                "one of " + ", ".join(sorted(known_keys)) + " (or an ansible_/boothnet_/vault_ variable)",
            )
    if c.errors or settings is None:
        raise IntentInvalid(c.errors)
    sources = {key: c.var_file(key) for key in known_keys}
    sources.update({f"host:{name}": file for name, file in raw.host_files.items()})
    network = Network(
        settings=settings,
        mtu_policy=mtu_policy,
        devices=devices,
        endpoints=endpoints,
        vlans=[v for v in vlans if v],
        links=[lk for lk in links if lk],
        host_groups=host_groups,
        policy=policy,
        uplink=uplink,
        vpn=vpn,
        throughput=throughput,
        sources=sources,
        port_entries=raw.port_entries,
    )
    errors = check_network(network)
    if errors:
        raise IntentInvalid(errors)
    return network


def load_network(root: Path | str) -> Network:
    """Read and validate an inventory; raises IntentInvalid with every error found."""
    return build_network(load_inventory(Path(root)))


def _host_address_problem(address: IPv4Address, subnet: IPv4Network, slash31: bool) -> str | None:
    if subnet.prefixlen == 32:
        return None
    if subnet.prefixlen == 31:
        return None if slash31 else f"not in a /31 on this platform (no RFC 3021): a /30 or larger than {subnet}"
    if address == subnet.network_address:
        return f"a host address in {subnet}, not its network address"
    if address == subnet.broadcast_address:
        return f"a host address in {subnet}, not its broadcast address"
    return None


def _selector_covers(prefixes: Callable[[str], Prefixes], wide: str, narrow: str) -> bool:
    if wide == narrow or wide == "any":
        return True
    inner, outer = prefixes(narrow), prefixes(wide)
    if not inner or None in inner:
        return False  # "any", or a selector with no address (zone:outside): only itself covers it
    return all(any(o is not None and p.subnet_of(o) for o in outer) for p in inner)


def _rule_covers(prefixes: Callable[[str], Prefixes], earlier: Rule, later: Rule) -> bool:
    """Every packet `later` matches, `earlier` matches first."""
    if earlier.proto != "ip" and earlier.proto != later.proto:
        return False
    if earlier.ports and not (later.ports and set(later.ports) <= set(earlier.ports)):
        return False
    return _selector_covers(prefixes, earlier.source, later.source) and _selector_covers(
        prefixes, earlier.destination, later.destination)


def first_covers(prefixes: Callable[[str], Prefixes], rules: list[Rule]) -> Iterator[tuple[int, int]]:
    """(rule, the first earlier rule that covers it) for every covered rule. Only the earlier
    rules that can cover it are compared: those with its source, and those whose source holds
    its source's first prefix (any among them)."""
    prefixes = cache(prefixes)
    by_source: PrefixIndex[int] = PrefixIndex()
    by_selector: dict[str, list[int]] = defaultdict(list)
    for index, rule in enumerate(rules):
        inner = prefixes(rule.source)
        candidates = set(by_source.holding(inner[0] if inner else None)) | set(by_selector[rule.source])
        hit = next((i for i in sorted(candidates) if _rule_covers(prefixes, rules[i], rule)), None)
        if hit is not None:
            yield index, hit
        by_selector[rule.source].append(index)
        for prefix in inner:
            by_source.add(prefix, index)


# --- semantic checks ------------------------------------------------------------------------


def check_network(net: Network) -> list[IntentError]:
    checks = _Checks(net)
    checks.run()
    net.warnings[:] = [str(w) for w in checks.warnings]
    return checks.errors


MIN_MTU, MAX_MTU = 576, 9216  # IPv4's minimum datagram; the largest jumbo frame the platforms take


class _Checks:
    def __init__(self, net: Network):
        self.net = net
        self.errors: list[IntentError] = []
        self.warnings: list[IntentError] = []
        self.src = net.sources
        self.vlans_by_name = {}
        self.vlans_by_id = {}
        # device -> vlan id -> where it is present (for reserved checks and "carried nowhere")
        self.vlan_presence: dict[int, list[str]] = defaultdict(list)
        self.vlan_on_ports: set[int] = set()

    def add(self, file: str, path: str, value: object, allowed: str) -> None:
        self.errors.append(IntentError(file, path, value, allowed))

    def run(self) -> None:
        self.settings()
        self.devices()
        self.vlans()
        ports = self.links()
        self.endpoints(ports)
        self.vlan_carriage()
        self.subnets()
        self.addresses()
        self.names()
        self.policy()
        self.shadowed_rules()
        self.vpn()
        self.uplink_and_paths()

    # network-wide settings ---------------------------------------------------------------------
    def settings(self) -> None:
        """The twins of the per-object ranges: an MTU is 576-9216 wherever it is written, and
        OSPF's dead interval outlasts several hellos."""
        file = self.src["mtu_policy"]
        for field, mtu in self.net.mtu_policy.model_dump().items():
            if not MIN_MTU <= mtu <= MAX_MTU:
                self.add(file, f"mtu_policy.{field}", mtu, f"{MIN_MTU}-{MAX_MTU}")
        file, ospf = self.src["network"], self.net.settings.ospf
        for field in ("hello", "dead"):
            if not 1 <= getattr(ospf, field) <= 65535:
                self.add(file, f"network.ospf.{field}", getattr(ospf, field), "1-65535 seconds")
        if ospf.hello >= 1 and ospf.dead <= ospf.hello:
            self.add(file, "network.ospf.dead", ospf.dead,
                     f"more than hello ({ospf.hello} s), usually 4 x hello: neighbours would time out "
                     "between hellos")

    # devices ---------------------------------------------------------------------------------
    def devices(self) -> None:
        known = platforms()
        for name, device in sorted(self.net.devices.items()):
            file = self.src[f"host:{name}"]
            if device.platform not in known:
                self.add(file, "platform", device.platform, "supported platforms: " + ", ".join(supported()))
                continue
            entries = self.net.port_entries.get(name) or list(range(len(device.ports)))
            seen: dict[str, int] = {}
            for index, port in enumerate(device.ports):
                entry = entries[index]  # the file's entry: a range entry gives many ports
                if port.name in seen:
                    self.add(
                        file,
                        f"ports[{entry}].name",
                        port.name,
                        f"each port declared once (also ports[{seen[port.name]}])",
                    )
                seen[port.name] = entry
                limit = known[device.platform].max_mtu
                if port.mtu is not None and not MIN_MTU <= port.mtu <= limit:
                    self.add(file, f"ports[{entry}].mtu", port.mtu, f"{MIN_MTU}-{limit} on {device.platform}")
            if device.mgmt_address not in self.net.settings.mgmt_subnet:
                self.add(
                    file,
                    "mgmt_address",
                    str(device.mgmt_address),
                    f"an address in the management subnet {self.net.settings.mgmt_subnet}",
                )

    def _port(self, ref: str, file: str, path: str) -> tuple[Device, Any] | None:
        device_name, _, port_name = ref.partition(":")
        device = self.net.devices.get(device_name)
        if device is None or not port_name:
            self.add(file, path, ref, "device:port with a known device: " + ", ".join(sorted(self.net.devices)))
            return None
        port = next((p for p in device.ports if p.name == port_name), None)
        if port is None:
            names = [p.name for p in device.ports]
            shown = ", ".join(names[:3] + (["..."] if len(names) > 4 else []) + names[3:][-1:])
            self.add(file, path, ref, f"a port declared on {device_name} ({shown or 'none declared'})")
            return None
        return device, port

    # vlans -------------------------------------------------------------------------------------
    def vlans(self) -> None:
        file = self.src["vlans"]
        for index, vlan in enumerate(self.net.vlans):
            path = f"vlans[{index}]"
            if not 1 <= vlan.id <= 4094:
                self.add(file, f"{path}.id", vlan.id, "a VLAN ID in 1-4094")
            if vlan.id in self.vlans_by_id:
                self.add(file, f"{path}.id", vlan.id, f"unique VLAN IDs (also vlans[{self.vlans_by_id[vlan.id][0]}])")
            else:
                self.vlans_by_id[vlan.id] = (index, vlan)
            if vlan.name in self.vlans_by_name:
                self.add(
                    file,
                    f"{path}.name",
                    vlan.name,
                    f"unique VLAN names (also vlans[{self.vlans_by_name[vlan.name][0]}])",
                )
            else:
                self.vlans_by_name[vlan.name] = (index, vlan)
            mtu = self.net.vlan_mtu(vlan)
            if not MIN_MTU <= mtu <= MAX_MTU:
                self.add(file, f"{path}.mtu", mtu, f"{MIN_MTU}-{MAX_MTU}")
            gateway = self.net.devices.get(vlan.gateway)
            if gateway is None:
                self.add(
                    file, f"{path}.gateway", vlan.gateway, "a known device: " + ", ".join(sorted(self.net.devices))
                )
            else:
                self.vlan_presence[vlan.id].append(vlan.gateway)
            if vlan.subnet.prefixlen > 30:
                self.add(file, f"{path}.subnet", str(vlan.subnet),
                         "a VLAN subnet of /30 or larger (a gateway and hosts)")
                continue
            address = self.net.gateway_address(vlan)
            if address not in vlan.subnet or address in (vlan.subnet.network_address, vlan.subnet.broadcast_address):
                self.add(file, f"{path}.gateway_address", str(address), f"a host address in {vlan.subnet}")
            for router, router_address in vlan.routers.items():
                if router not in self.net.devices:
                    self.add(file, f"{path}.routers.{router}", router, "a known device")
                else:
                    self.vlan_presence[vlan.id].append(router)
                if router_address not in vlan.subnet:
                    self.add(file, f"{path}.routers.{router}", str(router_address), f"a host address in {vlan.subnet}")

    def _resolve_vlan(self, ref: int | str) -> Vlan | None:
        if isinstance(ref, int) or str(ref).isdigit():
            found = self.vlans_by_id.get(int(ref))
        else:
            found = self.vlans_by_name.get(str(ref))
        return found[1] if found else None

    # links ---------------------------------------------------------------------------------------
    def links(self) -> dict[str, str]:
        file = self.src["links"]
        used: dict[str, str] = {}
        for index, link in enumerate(self.net.links):
            path = f"links[{index}]"
            ends = {}
            for side in ("a", "b"):
                ref = getattr(link, side)
                found = self._port(ref, file, f"{path}.{side}")
                if found is None:
                    continue
                if ref in used:
                    self.add(file, f"{path}.{side}", ref, f"a port used once (already used by {used[ref]})")
                used[ref] = f"{path}.{side}"
                ends[side] = found
            if link.wan and link.mode != "routed":
                self.add(file, f"{path}.mode", link.mode,
                         "routed: delay_ms, jitter_ms and loss_pct describe a WAN hop between routers")
            if link.jitter_ms > link.delay_ms:
                self.add(file, f"{path}.jitter_ms", link.jitter_ms,
                         f"at most delay_ms ({link.delay_ms}): a frame cannot leave before it arrived")
            if link.mtu is not None:
                known = platforms()
                limits = [known[d.platform].max_mtu for d, _ in ends.values() if d.platform in known]
                limit = min(limits, default=MAX_MTU)
                if not MIN_MTU <= link.mtu <= limit:
                    self.add(file, f"{path}.mtu", link.mtu, f"{MIN_MTU}-{limit} (the ports' platforms)")
            if len(ends) < 2:
                continue
            (dev_a, port_a), (dev_b, port_b) = ends["a"], ends["b"]
            if port_a.speed != port_b.speed:
                self.add(
                    file,
                    f"{path}.speed",
                    f"{link.a} speed {port_a.speed} vs {link.b} speed {port_b.speed}",
                    "the same speed (Mb/s) on both ends of a link",
                )
            elif link.speed and link.speed > port_a.speed:
                self.add(file, f"{path}.speed", link.speed, f"at most the speed of the ports it joins ({port_a.speed})")
            mtu_a, mtu_b = port_a.mtu or link.mtu, port_b.mtu or link.mtu
            if mtu_a and mtu_b and mtu_a != mtu_b:
                self.add(
                    file,
                    f"{path}.mtu",
                    f"{link.a} mtu {mtu_a} vs {link.b} mtu {mtu_b}",
                    "the same MTU on both ends of a link",
                )
            elif link.mtu and (mtu_a or mtu_b) and link.mtu != (mtu_a or mtu_b):
                self.add(
                    file,
                    f"{path}.mtu",
                    link.mtu,
                    f"the MTU of the ports it joins ({mtu_a or mtu_b} on {link.a if mtu_a else link.b})",
                )
            link_mtu = link.mtu or mtu_a or mtu_b or self.net.mtu_policy.default
            if link.mode == "trunk":
                carried = self._trunk_vlans(link, file, path)
                for vlan in carried:
                    self._carry(
                        vlan,
                        (dev_a.name, dev_b.name),
                        link_mtu,
                        file,
                        f"{path}.vlans",
                        f"VLANs with an MTU of at most the trunk MTU {link_mtu}",
                    )
                if not carried:
                    self.add(file, f"{path}.vlans", link.vlans, "at least one known VLAN on a trunk")
            elif link.mode == "access":
                vlan = self._resolve_vlan(link.vlan) if link.vlan is not None else None
                if vlan is None:
                    self.add(file, f"{path}.vlan", link.vlan, "a known VLAN id or name")
                else:
                    self._carry(
                        vlan,
                        (dev_a.name, dev_b.name),
                        link_mtu,
                        file,
                        f"{path}.vlan",
                        f"a VLAN with an MTU of at most the link MTU {link_mtu}",
                    )
            else:
                if link.addresses is None:
                    self.add(file, f"{path}.addresses", "missing", "addresses {a: A/len, b: B/len} on a routed link")
                elif link.addresses.a.network != link.addresses.b.network or link.addresses.a.ip == link.addresses.b.ip:
                    self.add(
                        file,
                        f"{path}.addresses",
                        f"{link.addresses.a} / {link.addresses.b}",
                        "two different addresses in one subnet",
                    )
        return used

    def _carry(self, vlan: Vlan, devices: tuple[str, str], link_mtu: int, file: str, path: str, allowed: str) -> None:
        """A link carries this VLAN: record where, and check it fits the link's MTU."""
        self.vlan_presence[vlan.id] += list(devices)
        self.vlan_on_ports.add(vlan.id)
        if self.net.vlan_mtu(vlan) > link_mtu:
            self.add(file, path, f"{vlan.name} (mtu {self.net.vlan_mtu(vlan)})", allowed)

    def _trunk_vlans(self, link: Link, file: str, path: str) -> list[Vlan]:
        carried: list[Vlan] = []
        for item in link.vlans:
            ids = parse_vlan_ranges([item])
            refs: list[int | str] = list(ids) if ids else [item]
            for ref in refs:
                vlan = self._resolve_vlan(ref)
                if vlan is None:
                    self.add(file, f"{path}.vlans", ref, "known VLAN ids, names or ranges like 110-125")
                else:
                    carried.append(vlan)
        return carried

    # endpoints -------------------------------------------------------------------------------------
    def endpoints(self, used: dict[str, str]) -> None:
        for name, endpoint in sorted(self.net.endpoints.items()):
            file = self.src[f"host:{name}"]
            prefix = f"endpoints.{name}." if file.endswith(("hosts.yml", "hosts.yaml")) else ""
            vlan = self._resolve_vlan(endpoint.vlan)
            if vlan is None:
                self.add(file, f"{prefix}vlan", endpoint.vlan, "a known VLAN name")
            elif endpoint.address not in vlan.subnet or endpoint.address == self.net.gateway_address(vlan):
                self.add(
                    file,
                    f"{prefix}address",
                    str(endpoint.address),
                    f"a host address in {vlan.subnet} other than the gateway {self.net.gateway_address(vlan)}",
                )
            found = self._port(endpoint.attach, file, f"{prefix}attach")
            if found is None:
                continue
            if endpoint.attach in used:
                self.add(
                    file,
                    f"{prefix}attach",
                    endpoint.attach,
                    f"a port used once (already used by {used[endpoint.attach]})",
                )
            used[endpoint.attach] = f"endpoint {name}"
            device, port = found
            if vlan is not None:
                self.vlan_presence[vlan.id].append(device.name)
                self.vlan_on_ports.add(vlan.id)
                if port.mtu and port.mtu < self.net.vlan_mtu(vlan):
                    self.add(
                        file,
                        f"{prefix}attach",
                        f"{endpoint.attach} (mtu {port.mtu})",
                        f"a port with an MTU of at least the VLAN MTU {self.net.vlan_mtu(vlan)}",
                    )

    def vlan_carriage(self) -> None:
        file = self.src["vlans"]
        known = platforms()
        for index, vlan in enumerate(self.net.vlans):
            present = self.vlan_presence.get(vlan.id, [])
            if vlan.id not in self.vlan_on_ports:
                self.add(
                    file,
                    f"vlans[{index}]",
                    vlan.name,
                    "a VLAN carried on at least one port (access, trunk or endpoint)",
                )
            for device_name in sorted(set(present)):
                device = self.net.devices.get(device_name)
                platform = known.get(device.platform) if device else None
                if platform and vlan.id in platform.reserved_vlans:
                    self.add(
                        file,
                        f"vlans[{index}].id",
                        vlan.id,
                        f"not reserved on {platform.name} ({device_name}): reserved {platform.reserved_text()}",
                    )

    # addressing ----------------------------------------------------------------------------------------
    def subnets(self) -> None:
        spans: list[tuple[IPv4Network, str, str]] = [
            (vlan.subnet, self.src["vlans"], f"vlans[{i}].subnet") for i, vlan in enumerate(self.net.vlans)
        ]
        for i, link in enumerate(self.net.links):
            if link.addresses is not None:
                spans.append((link.addresses.a.network, self.src["links"], f"links[{i}].addresses"))
        spans.append((self.net.settings.mgmt_subnet, self.src["network"], "network.mgmt_subnet"))
        # Sorted by start, an overlap can only be with the widest span seen so far: n log n, not n^2.
        spans.sort(key=lambda span: (int(span[0].network_address), span[0].prefixlen))
        widest: tuple[IPv4Network, str, str] | None = None
        for span in spans:
            if widest is not None and span[0].network_address <= widest[0].broadcast_address:
                self.add(
                    span[1],
                    span[2],
                    str(span[0]),
                    f"a subnet that overlaps no other (overlaps {widest[2]} {widest[0]})",
                )
            if widest is None or span[0].broadcast_address > widest[0].broadcast_address:
                widest = span

    def addresses(self) -> None:
        """Every address on a device, gateway, router interface, link or host: a host address of
        its subnet (a /31 holds two per RFC 3021 where the platform allows it) and used once."""
        known = platforms()
        owners: dict[IPv4Address, str] = {}

        def claim(address: IPv4Address, subnet: IPv4Network | None, device: str | None, where: tuple[str, str],
                  who: str) -> None:
            platform = known.get(self.net.devices[device].platform) if device in self.net.devices else None
            if subnet is not None and address in subnet:
                problem = _host_address_problem(address, subnet, platform.slash31 if platform else True)
                if problem:
                    self.add(*where, str(address), problem)
            if address in owners:
                self.add(*where, str(address), f"a unique address (also {owners[address]})")
            else:
                owners[address] = who

        mgmt = self.net.settings.mgmt_subnet
        for name, device in sorted(self.net.devices.items()):
            claim(device.mgmt_address, mgmt, name, (self.src[f"host:{name}"], "mgmt_address"), f"{name} mgmt_address")
        vlans_file = self.src["vlans"]
        for index, vlan in enumerate(self.net.vlans):
            gateway = self.net.gateway_address(vlan)
            if gateway in vlan.subnet:  # out of the subnet is reported by vlans()
                claim(gateway, vlan.subnet, vlan.gateway, (vlans_file, f"vlans[{index}].gateway_address"),
                      f"vlans[{index}] gateway {vlan.gateway}")
            for router, address in vlan.routers.items():
                claim(address, vlan.subnet, router, (vlans_file, f"vlans[{index}].routers.{router}"),
                      f"vlans[{index}].routers.{router}")
        for index, link in enumerate(self.net.links):
            if link.addresses is None:
                continue
            for side in ("a", "b"):
                iface = getattr(link.addresses, side)
                device = getattr(link, side).partition(":")[0]
                claim(iface.ip, iface.network, device, (self.src["links"], f"links[{index}].addresses.{side}"),
                      f"links[{index}].addresses.{side}")
        for name, endpoint in sorted(self.net.endpoints.items()):
            file = self.src[f"host:{name}"]
            prefix = f"endpoints.{name}." if file.endswith(("hosts.yml", "hosts.yaml")) else ""
            vlan = self._resolve_vlan(endpoint.vlan)
            subnet = vlan.subnet if vlan is not None else None
            if vlan is not None and endpoint.address == self.net.gateway_address(vlan):
                continue  # reported by endpoints(): "other than the gateway"
            claim(endpoint.address, subnet, None, (file, f"{prefix}address"), name)

    def names(self) -> None:
        """VLAN names, and the ACL names made from them, valid on every platform that renders them."""
        known = platforms()
        file = self.src["vlans"]
        for index, vlan in enumerate(self.net.vlans):
            where = sorted(set(self.vlan_presence.get(vlan.id, [])) | {vlan.gateway})
            for kind, name, devices in (("vlan", vlan.name, where), ("acl", acl_name(vlan, "in"), [vlan.gateway])):
                if any(e.path == f"vlans[{index}].name" and e.file == file for e in self.errors):
                    break  # the VLAN name itself is wrong: its ACL name follows from it
                for platform_name in sorted({self.net.devices[d].platform for d in devices if d in self.net.devices}):
                    rule = known[platform_name].names.get(kind) if platform_name in known else None
                    problem = rule.problem(name) if rule else None
                    if problem:
                        what = "VLAN name" if kind == "vlan" else f"name for the ACL {name} made from it"
                        self.add(file, f"vlans[{index}].name", vlan.name,
                                 f"a {what} valid on {platform_name}: {problem}")

    # policy -----------------------------------------------------------------------------------------------
    def _check_selector(self, selector: str, file: str, path: str) -> None:
        kind, _, name = selector.partition(":")
        if selector == "any":
            return
        if kind == "zone":
            if name not in ZONES:
                self.add(file, path, selector, "zones: " + ", ".join(ZONES))
        elif kind == "group":
            if name not in self.net.host_groups:
                self.add(
                    file, path, selector, "known host groups: " + (", ".join(sorted(self.net.host_groups)) or "none")
                )
        elif kind == "vlan":
            if name not in self.vlans_by_name:
                self.add(file, path, selector, "a known VLAN name")
        else:
            self.add(file, path, selector, "any, zone:<zone>, group:<host group> or vlan:<vlan name>")

    def policy(self) -> None:
        file = self.src["policy"]
        names: set[str] = set()
        for index, rule in enumerate(self.net.policy.rules):
            path = f"policy.rules[{index}]"
            if rule.name in names:
                self.add(file, f"{path}.name", rule.name, "unique rule names")
            names.add(rule.name)
            self._check_selector(rule.source, file, f"{path}.from")
            self._check_selector(rule.destination, file, f"{path}.to")
            if rule.ports and rule.proto not in ("tcp", "udp"):
                self.add(file, f"{path}.ports", rule.ports, "ports only with proto tcp or udp")
            for port in rule.ports:
                if not 1 <= port <= 65535:
                    self.add(file, f"{path}.ports", port, "ports 1-65535")
        groups_file = self.src["host_groups"]
        for group, members in sorted(self.net.host_groups.items()):
            for index, member in enumerate(members):
                if member not in self.net.endpoints:
                    self.add(groups_file, f"host_groups.{group}[{index}]", member, "a known endpoint")

    def shadowed_rules(self) -> None:
        """A rule that an earlier rule fully covers never decides anything: an error when their
        actions differ (the later rule's intent is lost), a warning when it is only redundant."""
        if any(e.file == self.src["policy"] or e.file == self.src["host_groups"] for e in self.errors):
            return  # selectors must resolve first
        rules = self.net.policy.rules
        file = self.src["policy"]
        for later_index, index in first_covers(self.net.selector_prefixes, rules):
            later, earlier = rules[later_index], rules[index]
            path = f"policy.rules[{later_index}]"
            if earlier.action != later.action:
                self.add(file, path, later.name, f"a rule that can apply: rules[{index}] {earlier.name} "
                         f"({earlier.action}) comes first and covers all of it, so its {later.action} "
                         "never applies")
            else:
                self.warnings.append(IntentError(file, path, later.name, f"a rule that adds something: "
                                                 f"rules[{index}] {earlier.name} already {earlier.action}s "
                                                 "all of it (redundant)"))

    def vpn(self) -> None:
        vpn = self.net.vpn
        if vpn is None:
            return
        file = self.src["vpn"]
        for field in ("booth_gateway", "home_gateway"):
            if getattr(vpn, field) not in self.net.devices:
                self.add(file, f"vpn.{field}", getattr(vpn, field), "a known device")
        for field in ("booth_subnets", "home_subnets"):
            for index, ref in enumerate(getattr(vpn, field)):
                kind, _, name = ref.partition(":")
                if kind != "vlan" or name not in self.vlans_by_name:
                    self.add(file, f"vpn.{field}[{index}]", ref, "vlan:<a known VLAN name>")
                    continue
                zone = self.vlans_by_name[name][1].zone
                if zone in ("research", "production") and zone not in vpn.protected_zones:
                    self.add(file, f"vpn.{field}[{index}]", ref, f"a VLAN outside the {zone} zone, or list "
                             f"{zone} in vpn.protected_zones to carry {zone} traffic through the VPN on purpose")
        kind, _, group = vpn.clients.partition(":")
        if kind != "group" or group not in self.net.host_groups:
            self.add(file, "vpn.clients", vpn.clients, "group:<a known host group>")
        elif len(self.net.host_groups[group]) > vpn.max_clients:
            self.add(
                self.src["host_groups"],
                f"host_groups.{group}",
                f"{len(self.net.host_groups[group])} hosts",
                f"at most {vpn.max_clients} VPN clients (vpn.max_clients)",
            )
        gateway = self.net.devices.get(vpn.booth_gateway)
        outer = [
            lk
            for lk in self.net.links
            if lk.mode == "routed" and gateway and gateway.name in (lk.a.partition(":")[0], lk.b.partition(":")[0])
        ]
        overhead = max(esp_overhead(p, vpn.udp_encapsulation) for p in vpn.esp_proposals)
        inner = self.net.mtu_policy.crypto_inner
        for link in outer:
            if link.mtu and inner + overhead > link.mtu:
                self.add(
                    self.src["network"],
                    "mtu_policy.crypto_inner",
                    inner,
                    f"at most {link.mtu - overhead}: ESP adds up to {overhead} bytes and the "
                    f"outer link {link.a} -- {link.b} has MTU {link.mtu}",
                )

    def uplink_and_paths(self) -> None:
        if self.net.uplink and self.net.uplink.device not in self.net.devices:
            self.add(self.src["uplink"], "uplink.device", self.net.uplink.device, "a known device")
        for index, path in enumerate(self.net.throughput.paths):
            for field, value in (("from", path.source), ("to", path.destination)):
                if value not in self.net.endpoints:
                    self.add(self.src["throughput"], f"throughput.paths[{index}].{field}", value, "a known endpoint")
