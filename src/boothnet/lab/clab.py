"""containerlab topology (``labs/<network>.clab.yml``) from the same LabSpec the netns lab uses.

Nodes, links, ``eth<N>`` endpoints, management addresses and the rendered lab configs all
come from ``boothnet.lab.plan.plan_lab``; this module only translates them into
containerlab's format and validates the result against containerlab's own JSON schema
(``shared/containerlab/clab.schema.json``) before anything is written.

Differences to the netns lab, and why:
- containerlab gives every container ``eth0`` on its management network, so a host's data
  interface (``eth0`` in the netns lab, where management is ``mgmt0``) becomes ``eth1``.
  A router with a data port named ``eth0`` cannot be translated (its configs name it).
- Docker hosts have 802.1Q, so the default VLAN mode is ``dot1q`` (real tagged trunks);
  ``segment`` renders the configs for one veth per VLAN exactly as on the CI kernel.
- Lab configs go to ``build/<network>/clab/configs`` (not ``build/<network>/lab/configs``),
  so generating a topology never rewrites the configs of a running netns lab.

Kinds (``kinds``): ``vendor`` (the default) runs each device on the containerlab kind its
platform names in ``platforms/capabilities.yml`` (``containerlab:``): ``frr_linux`` on
``linux`` with FRR, ``arista_eos`` on ``arista_ceos``, ``cisco_ios`` on ``cisco_iol`` (L2).
Vendor nodes boot the device's own config (rendered for its platform, ports renamed to what
the kind exposes, ``build/<network>/clab/port_map.json``) as their ``startup-config``.
``lab`` runs every device as FRR on ``linux``, exactly as the netns lab (no vendor images).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from itertools import count
from pathlib import Path
from typing import Any, Literal

import jsonschema
import regex
import yaml

from boothnet.derive import DeriveContext
from boothnet.derive.build import quirks
from boothnet.files import write_text_atomic
from boothnet.intent import Network, load_network
from boothnet.lab.plan import HOST_IFNAME, LAB_PLATFORM, plan_lab
from boothnet.lab.services import frr_daemons
from boothnet.lab.shaping import htb_params
from boothnet.lab.spec import LabEnd, LabLink, LabNode, LabSpec, VlanMode
from boothnet.layout import Layout
from boothnet.platforms import platforms
from boothnet.render.build import build

# Alpine, iproute2 included; no nftables, no strongSwan (capabilities.yml, frr_linux's containerlab image)
ROUTER_IMAGE: str = platforms()[LAB_PLATFORM].containerlab["image"]
HOST_IMAGE = "nicolaka/netshoot:v0.13"  # iproute2, iperf3, nftables; no nuttcp
CLAB_MGMT_IF = "eth0"  # containerlab's management interface in every container
CLAB_HOST_IF = "eth1"  # where a host's data interface goes instead
CONFIG_MOUNT = "/etc/boothnet"
DEFAULT_VLAN_MODE: VlanMode = "dot1q"
Kinds = Literal["vendor", "lab"]
DEFAULT_KINDS: Kinds = "vendor"
SCHEMA_RELATIVE = Path("containerlab") / "clab.schema.json"

SHAPING = "shaping.sh"
# file in build/<network>/clab/configs/<node>/ -> where it is mounted in the container
BINDS: dict[str, str] = {
    "frr.conf": "/etc/frr/frr.conf",
    "daemons": "/etc/frr/daemons",
    "interfaces.ip": f"{CONFIG_MOUNT}/interfaces.ip",
    "nftables.nft": f"{CONFIG_MOUNT}/nftables.nft",
    "swanctl.conf": "/etc/swanctl/swanctl.conf",
    SHAPING: f"{CONFIG_MOUNT}/{SHAPING}",
}

Progress = Callable[[str], None]


class ClabInvalid(Exception):
    """Every problem of a generated topology, each as ``<JSON path>: <message>``."""

    def __init__(self, source: str, errors: list[str]):
        self.source, self.errors = source, errors
        super().__init__(self.summary())

    def summary(self) -> str:
        lines = [f"{self.source}: containerlab topology has {len(self.errors)} error(s):"]
        return "\n".join(lines + [f"  {e}" for e in self.errors])


class ClabUnsupported(Exception):
    """The intent cannot be translated with the chosen kinds (nothing written)."""


@dataclass
class ClabResult:
    network: str
    path: Path
    vlan_mode: VlanMode
    nodes: int
    links: int
    config_dir: Path
    findings: list[str] = field(default_factory=list)  # build findings (nothing written then)
    kinds: Kinds = DEFAULT_KINDS
    notes: list[str] = field(default_factory=list)  # limits of the kinds (also in the file header)


# --- kinds -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ClabKind:
    """A platform's ``containerlab:`` block in capabilities.yml."""

    platform: str
    kind: str
    image: str
    type: str | None = None
    interface: str | None = None  # what the NOS calls container port eth<N>; None: ports keep their names
    ports_per_slot: int = 0  # IOL: eth<N> is Ethernet<N // 4>/<N % 4>
    mgmt_interface: str | None = None  # the platform's management interface in the container
    startup_config: str | None = None  # file name, "{device}" filled in
    startup_append: tuple[str, ...] = ()  # lines added before the config's final `end`
    max_mtu: int | None = None  # largest interface MTU the kind carries

    @property
    def vendor(self) -> bool:
        return self.interface is not None

    def nos_name(self, n: int) -> str:
        """The NOS interface behind container port ``eth<n>``."""
        assert self.interface is not None
        if self.ports_per_slot:
            return self.interface.format(n=n, slot=n // self.ports_per_slot, port=n % self.ports_per_slot)
        return self.interface.format(n=n)

    def number(self, name: str) -> int | None:
        """``eth<N>``'s N for a name already in the NOS's form (``Ethernet7`` -> 7), else None."""
        if self.interface is None:
            return None
        pattern = re.escape(self.interface)
        for part in ("n", "slot", "port"):
            pattern = pattern.replace(re.escape(f"{{{part}}}"), f"(?P<{part}>\\d+)")
        m = re.fullmatch(pattern, name)
        if m is None:
            return None
        if "n" in m.groupdict():
            return int(m["n"])
        slot, port = int(m["slot"]), int(m["port"])
        return slot * self.ports_per_slot + port if port < self.ports_per_slot else None


def clab_kinds() -> dict[str, ClabKind]:
    """platform -> its containerlab kind, from capabilities.yml."""
    kinds: dict[str, ClabKind] = {}
    for name, platform in platforms().items():
        data = dict(platform.containerlab)
        if not data:
            continue
        data["startup_append"] = tuple(data.get("startup_append", ()))
        kinds[name] = ClabKind(platform=name, **data)
    return kinds


def _used_ports(net: Network) -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    refs = [ref for link in net.links for ref in (link.a, link.b)] + [e.attach for e in net.endpoints.values()]
    for ref in refs:
        device, port = ref.split(":", 1)
        used.setdefault(device, set()).add(port)
    return used


PortMap = dict[str, dict[str, str]]  # device -> intent port -> name


def vendor_ports(net: Network, kinds: dict[str, ClabKind]) -> tuple[PortMap, PortMap]:
    """Per vendor-kind device: (intent port -> NOS name, for the config; intent port -> eth<N>,
    for the links). Only cabled ports, in declaration order; a port already named as the NOS
    names it (cEOS ``Ethernet7``) keeps its number, the others take the lowest free ones. The
    management interface maps to the kind's (IOL-L2 ``Vlan999``, cEOS ``Management0``)."""
    used = _used_ports(net)
    names: dict[str, dict[str, str]] = {}
    ends: dict[str, dict[str, str]] = {}
    for name, device in sorted(net.devices.items()):
        kind = kinds[device.platform]
        if not kind.vendor:
            continue
        ports = [p.name for p in device.ports if p.name in used.get(name, set())]
        numbers: dict[str, int] = {}
        for port in ports:
            n = kind.number(port)
            if n is not None and n >= 1 and n not in numbers.values():
                numbers[port] = n
        taken = set(numbers.values())
        free = (n for n in count(1) if n not in taken)
        for port in ports:
            numbers.setdefault(port, next(free))
        names[name] = {port: kind.nos_name(numbers[port]) for port in ports}
        if kind.mgmt_interface:
            names[name][quirks(device.platform).mgmt_interface()] = kind.mgmt_interface
        ends[name] = {port: f"eth{numbers[port]}" for port in ports}
    return names, ends


# --- schema ----------------------------------------------------------------------------


def find_schema(explicit: Path | None = None) -> Path:
    """The shared schema: ``explicit``, ``$BOOTHNET_SHARED/containerlab``, or ``shared/``
    beside the repository (``../shared`` from the repo root, the CI layout)."""
    if explicit is not None:
        if not explicit.is_file():
            raise FileNotFoundError(f"containerlab schema: no file at {explicit}")
        return explicit
    candidates: list[Path] = []
    if env := os.environ.get("BOOTHNET_SHARED"):
        candidates.append(Path(env))
    here = Path(__file__).resolve()
    candidates += [Path.cwd().resolve().parent / "shared"] + [p.parent / "shared" for p in here.parents]
    for candidate in candidates:
        if (candidate / SCHEMA_RELATIVE).is_file():
            return (candidate / SCHEMA_RELATIVE).resolve()
    tried = ", ".join(str(c / SCHEMA_RELATIVE) for c in dict.fromkeys(candidates))
    raise FileNotFoundError(f"containerlab schema not found (tried {tried}); pass --schema or set BOOTHNET_SHARED")


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    # The schema uses \p{N}/\p{L}, which Python's re lacks: match with the regex package.
    if validator.is_type(instance, "string") and not regex.search(pattern, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def validator_for(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """The Draft the schema names ($schema: draft-07), with ``pattern`` through ``regex``."""
    base = jsonschema.validators.validator_for(schema)
    # the metaschema checks each pattern is a regex: with the same engine that runs them
    formats = jsonschema.FormatChecker()
    formats.checks("regex", raises=regex.error)(regex.compile)
    problems = list(base(base.META_SCHEMA, format_checker=formats).iter_errors(schema))
    if problems:
        raise jsonschema.SchemaError.create_from(jsonschema.exceptions.best_match(problems))
    return jsonschema.validators.extend(base, {"pattern": _pattern})(schema)


def _json_path(parts: Any) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _deepest(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """For anyOf/oneOf (nine link types), the errors of the branch the instance meant:
    branches whose ``type`` discriminator does not match are dropped, then the branch
    that got furthest wins (for a veth link: the endpoint that lacks its interface)."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return [error]
    branches: dict[int, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)

    def discriminator_failed(errors: list[jsonschema.ValidationError]) -> bool:
        return any(list(e.relative_path) == ["type"] and e.validator in ("const", "enum") for e in errors)

    candidates = [errs for errs in branches.values() if not discriminator_failed(errs)] or list(branches.values())
    best = max(candidates, key=lambda errs: (max(len(e.absolute_path) for e in errs), -len(errs)))
    return [deep for e in best for deep in _deepest(e)]


def schema_errors(topology: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    errors = sorted(validator_for(schema).iter_errors(topology), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{_json_path(deep.absolute_path)}: {deep.message}" for error in errors for deep in _deepest(error)]


def reference_errors(topology: dict[str, Any]) -> list[str]:
    """What containerlab checks beyond its schema: endpoints name defined nodes, no
    interface is wired twice, ``eth0`` stays the management interface."""
    nodes = (topology.get("topology") or {}).get("nodes") or {}
    seen: dict[str, str] = {}
    errors: list[str] = []
    for i, link in enumerate((topology.get("topology") or {}).get("links") or []):
        for j, end in enumerate(link.get("endpoints") or [] if isinstance(link, dict) else []):
            if not isinstance(end, dict) or "node" not in end or "interface" not in end:
                continue  # the schema reports the shape
            where, ref = f"$.topology.links[{i}].endpoints[{j}]", f"{end['node']}:{end['interface']}"
            if end["node"] not in nodes:
                errors.append(f"{where}: node {end['node']!r} is not defined in topology.nodes")
            if end["interface"] == CLAB_MGMT_IF:
                errors.append(f"{where}: {ref}: {CLAB_MGMT_IF} is containerlab's management interface")
            if ref in seen:
                errors.append(f"{where}: {ref} is already wired at {seen[ref]}")
            seen.setdefault(ref, where)
    return errors


def check_topology(topology: dict[str, Any], schema: dict[str, Any], source: str) -> None:
    """Raise ClabInvalid with every schema and reference error of ``topology``."""
    errors = schema_errors(topology, schema) + reference_errors(topology)
    if errors:
        raise ClabInvalid(source, errors)


def validate_file(path: Path, schema_path: Path) -> None:
    """Check a written ``*.clab.yml`` (what containerlab reads) against the schema."""
    schema = _load_json(schema_path)
    check_topology(yaml.safe_load(path.read_text()), schema, str(path))


def _load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


# --- translation -----------------------------------------------------------------------


def _clab_ifname(node: LabNode, ifname: str) -> str:
    return CLAB_HOST_IF if node.kind == "host" and ifname == HOST_IFNAME else ifname


def _shape(ifname: str, link: LabLink) -> list[str]:
    """The netns lab's htb shaping (``boothnet.lab.shaping``) as ip/tc commands."""
    p = htb_params(link.speed_mbps, link.mtu)
    rate = f"{p['rate_bytes'] * 8}bit"  # the frames' share of line rate, as the netns lab
    return [
        f"tc qdisc replace dev {ifname} root handle 1: htb default 1",
        f"tc class replace dev {ifname} parent 1: classid 1:1 htb rate {rate} ceil {rate} "
        f"burst {p['burst']}b cburst {p['burst']}b quantum {p['quantum']} mtu {p['frame']}",
    ]


def _end_ifname(by_name: dict[str, LabNode], end: LabEnd) -> str:
    return _clab_ifname(by_name[end.node], end.ifname) if end.node in by_name else end.ifname


def shaping_scripts(spec: LabSpec) -> dict[str, str]:
    """Per node, a script shaping each of its link ends to the link's intent speed."""
    by_name = {n.name: n for n in spec.nodes}
    lines: dict[str, list[str]] = {}
    for link in spec.links:
        for end in (link.a, link.b):
            lines.setdefault(end.node, []).append(f"# {link.label}: {link.speed_mbps} Mb/s, MTU {link.mtu}")
            lines[end.node] += _shape(_end_ifname(by_name, end), link)
    head = "#!/bin/sh\n# {node}: htb shaping for containerlab, generated by boothnet (same as the netns lab).\nset -e\n"
    return {node: head.format(node=node) + "\n".join(body) + "\n" for node, body in lines.items()}


def _host_exec(node: LabNode) -> list[str]:
    cmds: list[str] = []
    for a in node.addresses:
        ifname = _clab_ifname(node, a.ifname)
        cmds += [f"ip link set {ifname} mtu {a.mtu}", f"ip addr add {a.address} dev {ifname}"]
        cmds.append(f"ip link set {ifname} up")
        if a.gateway:
            # replaces Docker's default via management, as the netns lab has none there
            cmds.append(f"ip route replace default via {a.gateway} dev {ifname}")
    cmds += [f"ip route replace {prefix} via {via}" for prefix, via in node.routes]
    return cmds


def _router_exec(files: list[str]) -> list[str]:
    cmds = [f"ip -batch {CONFIG_MOUNT}/interfaces.ip"]
    if "nftables.nft" in files:
        # FRR's Alpine image has no nft: add it rather than run the lab without its firewall
        install = "command -v nft >/dev/null || apk add -q --no-cache nftables"
        cmds.append(f"sh -c '{install}; nft -f {CONFIG_MOUNT}/nftables.nft'")
    return cmds


def topology(
    spec: LabSpec,
    config_files: dict[str, list[str]],
    bind_root: str,
    router_image: str = ROUTER_IMAGE,
    host_image: str = HOST_IMAGE,
    vendor: dict[str, tuple[ClabKind, str]] | None = None,
) -> dict[str, Any]:
    """The containerlab document for ``spec``.

    config_files: node -> file names in its config folder; bind_root: that folder's
    parent as containerlab should see it (relative to the topology file's folder);
    vendor: node -> (its kind, image) for nodes that boot their own config.
    """
    vendor = vendor or {}
    by_name = {n.name: n for n in spec.nodes}
    links: list[dict[str, Any]] = []
    for link in spec.links:
        ends = [{"node": e.node, "interface": _end_ifname(by_name, e)} for e in (link.a, link.b)]
        links.append(
            {
                "type": "veth",
                "endpoints": ends,
                "mtu": link.mtu,
                "labels": {"boothnet.intent": link.label, "boothnet.speed_mbps": link.speed_mbps},
            }
        )
    nodes: dict[str, Any] = {}
    for node in spec.nodes:
        files = sorted(config_files.get(node.name, []))
        if node.name in vendor:
            kind, image = vendor[node.name]
            entry: dict[str, Any] = {"kind": kind.kind, "mgmt-ipv4": node.mgmt_address.split("/")[0], "image": image}
            if kind.type:
                entry["type"] = kind.type
            startup = [f for f in files if f != SHAPING]
            entry["startup-config"] = f"{bind_root}/{node.name}/{startup[0]}"
            entry["labels"] = {"boothnet.role": node.kind, "boothnet.platform": kind.platform}
            nodes[node.name] = entry
            continue
        entry = {"kind": "linux", "mgmt-ipv4": node.mgmt_address.split("/")[0]}
        entry["image"] = router_image if node.kind == "router" else host_image
        binds = [f"{bind_root}/{node.name}/{f}:{BINDS[f]}:ro" for f in files if f in BINDS]
        if binds:
            entry["binds"] = binds
        if node.kind == "router":
            entry["sysctls"] = {"net.ipv4.ip_forward": 1, "net.ipv6.conf.all.forwarding": 1}
        commands = _router_exec(files) if node.kind == "router" else _host_exec(node)
        # shaping last: htb's bucket is sized for the MTU the commands before it set
        entry["exec"] = commands + ([f"sh {BINDS[SHAPING]}"] if SHAPING in files else [])
        entry["labels"] = {"boothnet.role": node.kind}
        nodes[node.name] = entry
    return {
        "name": spec.network,
        "mgmt": {"network": f"boothnet-{spec.network}", "ipv4-subnet": spec.mgmt_subnet},
        "topology": {"nodes": nodes, "links": links},
    }


def header(
    spec: LabSpec,
    inventory: str,
    bind_root: str,
    config_files: dict[str, list[str]],
    kinds: Kinds = DEFAULT_KINDS,
    vendor: dict[str, tuple[ClabKind, str]] | None = None,
    notes: list[str] | None = None,
) -> str:
    mode = (
        "trunks are single veths carrying 802.1Q tags; routers create ethX.VID devices"
        if spec.vlan_mode == "dot1q"
        else "every trunk is flattened to one veth per VLAN (ethXvVID), as on kernels without 802.1Q"
    )
    lines = [
        f"# {spec.network}: containerlab topology generated by boothnet from {inventory}. Do not edit;",
        f"# regenerate with `make clab NET={spec.network}` (boothnet clab -n {spec.network}"
        + ("" if kinds == DEFAULT_KINDS else f" --kinds {kinds}")
        + ").",
        f"# VLAN mode the lab configs assume: {spec.vlan_mode}: {mode}.",
    ]
    if kinds == "lab":
        lines.append("# Kinds: lab: every device runs FRR on kind linux, as in the netns lab (no vendor images).")
    else:
        described = ", ".join(f"{node} {kind.kind} ({image})" for node, (kind, image) in sorted((vendor or {}).items()))
        if not vendor:
            lines.append("# Kinds: vendor: every device is frr_linux, FRR on kind linux (the same as --kinds lab).")
        else:
            lines.append(f"# Kinds: vendor: {described}; other routers FRR on kind linux.")
            lines.append(
                f"# Vendor nodes boot their own config (startup-config), ports renamed as in "
                f"{bind_root.rsplit('/', 1)[0]}/port_map.json."
            )
    lines += [
        f"# Binds: {bind_root}/<node>/ (relative to this file), rendered by `boothnet clab`.",
        f"# Deploy: sudo containerlab deploy -t labs/{spec.network}.clab.yml (see labs/README.md).",
    ]
    for note in notes or []:
        lines += ["# Limit: " + "\n#   ".join(textwrap.wrap(note, 110))]
    vpn = sorted(node for node, files in config_files.items() if "swanctl.conf" in files)
    if vpn:
        lines += [
            f"# VPN: {', '.join(vpn)} bind swanctl.conf, which assumes strongSwan with kernel-libipsec;",
            "# the FRR image has no strongSwan, so the tunnel stays down until charon runs there.",
        ]
    return "\n".join(lines) + "\n"


class _Dumper(yaml.SafeDumper):
    """Block sequences indented under their key, as yamllint's default asks."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        return super().increase_indent(flow, False)


def to_yaml(document: dict[str, Any], head: str) -> str:
    body = yaml.dump(document, Dumper=_Dumper, sort_keys=False, width=1000, default_flow_style=False)
    return head + "---\n" + body


# --- generation ------------------------------------------------------------------------


def _daemons(node: str, network: str, frr_conf: str) -> str:
    wanted = frr_daemons(frr_conf)
    lines = [
        f"# {node}: FRR daemons for containerlab, generated by boothnet from the {network} intent.",
        "# The same set the netns lab starts; zebra and staticd always run.",
    ]
    lines += [f"{d}={'yes' if d in wanted else 'no'}" for d in ("ospfd", "bgpd")]
    lines += ["vtysh_enable=yes"] + [f'{d}_options="-A 127.0.0.1"' for d in ("zebra", "staticd", "ospfd", "bgpd")]
    return "\n".join(lines) + "\n"


def _sync(files: dict[str, bytes], out_dir: Path) -> None:
    """Write ``files`` (relative path -> content) under ``out_dir``, only what changed,
    and remove what is no longer generated."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_bytes() != data:
            target.write_bytes(data)
    for path in sorted(out_dir.rglob("*"), reverse=True):
        rel = str(path.relative_to(out_dir))
        if path.is_file() and rel not in files:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _vendor_spec(spec: LabSpec, ends: dict[str, dict[str, str]], names: dict[str, dict[str, str]]) -> LabSpec:
    """The lab spec with vendor nodes' link ends on their containerlab ports (eth<N>)."""
    intent_port = {dev: {lab: port for port, lab in ports.items()} for dev, ports in spec.port_map.items()}

    def end(e: LabEnd) -> LabEnd:
        return LabEnd(e.node, ends[e.node][intent_port[e.node][e.ifname]]) if e.node in ends else e

    links = [replace(link, a=end(link.a), b=end(link.b)) for link in spec.links]
    return replace(spec, links=links, port_map=names)


def mtu_limits(spec: LabSpec, vendor: dict[str, tuple[ClabKind, str]]) -> list[str]:
    """Vendor nodes whose kind carries less than the intent MTU of some of their links."""
    notes = []
    for node, (kind, _) in sorted(vendor.items()):
        if kind.max_mtu is None:
            continue
        over = [link for link in spec.links if node in (link.a.node, link.b.node) and link.mtu > kind.max_mtu]
        if over:
            notes.append(
                f"{node} ({kind.kind}) carries at most {kind.max_mtu} bytes per interface; "
                f"{len(over)} of its links have intent MTU up to {max(link.mtu for link in over)}: "
                "paths through it stop at that limit (MTU tests: --kinds lab or hardware)"
            )
    return notes


def _with_append(config: str, lines: tuple[str, ...]) -> str:
    """``lines`` before the config's final ``end`` (or at its end)."""
    if not lines:
        return config
    body = config.splitlines()
    at = max((i for i, line in enumerate(body) if line.strip() == "end"), default=len(body))
    return "\n".join(body[:at] + list(lines) + body[at:]) + "\n"


def generate(
    inventory: Path,
    labs_dir: Path = Path("labs"),
    build_root: Path = Path("build"),
    schema_path: Path | None = None,
    vlan_mode: VlanMode = DEFAULT_VLAN_MODE,
    router_image: str = ROUTER_IMAGE,
    host_image: str = HOST_IMAGE,
    progress: Progress = lambda _: None,
    kinds: Kinds = DEFAULT_KINDS,
    images: dict[str, str] | None = None,
) -> ClabResult:
    """Plan the lab, translate, validate, then write configs and ``<labs_dir>/<net>.clab.yml``.

    kinds ``vendor``: devices on their platform's containerlab kind (capabilities.yml), vendor
    nodes booting their own rendered config; ``lab``: every device FRR on ``linux``.
    images: platform -> image, overriding capabilities.yml (``router_image`` for frr_linux).

    Raises ClabInvalid (nothing written) when the topology fails the schema, ClabUnsupported
    when the intent cannot run on the chosen kinds; returns with ``findings`` (nothing
    written) when the configs fail their lint or tool checks.
    """
    schema_file = find_schema(schema_path)
    schema = _load_json(schema_file)
    net = load_network(inventory)
    known = clab_kinds()
    vendor: dict[str, tuple[ClabKind, str]] = {}
    if kinds == "vendor":
        missing = sorted({d.platform for d in net.devices.values() if d.platform not in known})
        if missing:
            raise ClabUnsupported(f"no containerlab kind for platform(s) {', '.join(missing)}; use --kinds lab")
        images = {LAB_PLATFORM: router_image, **(images or {})}
        for name, device in sorted(net.devices.items()):
            kind = known[device.platform]
            if kind.vendor:
                vendor[name] = (kind, images.get(device.platform, kind.image))
        if vendor and vlan_mode == "segment":
            raise ClabUnsupported(
                f"--vlan-mode segment flattens trunks, which vendor nodes ({', '.join(vendor)}) cannot: "
                "use --kinds lab, or the default dot1q"
            )
    with tempfile.TemporaryDirectory(prefix="boothnet-clab-") as scratch:
        spec, result = plan_lab(inventory, vlan_mode, Path(scratch), progress=progress)
        findings = list(result.findings)
        config_dirs = {n.name: Path(n.config_dir) for n in spec.nodes if n.config_dir is not None}
        if vendor:
            names, ends = vendor_ports(net, known)
            progress(f"render {', '.join(vendor)} for their containerlab kinds")
            ctx = DeriveContext(port_map=names, vlan_mode=vlan_mode, tunnel_backend="libipsec")
            built = build(inventory, Path(scratch), ctx=ctx, subdir="clab/configs", progress=progress)
            findings += [f for f in built.findings if f not in findings]
            config_dirs = {name: built.out_dir / name for name in config_dirs}
            spec = _vendor_spec(spec, ends, names)
        files: dict[str, bytes] = {}
        for node in spec.nodes:
            if node.name not in config_dirs:
                continue
            if node.name in vendor:
                kind = vendor[node.name][0]
                (rendered,) = platforms()[kind.platform].files
                text = (config_dirs[node.name].parent / rendered.format(device=node.name)).read_text()
                name = (kind.startup_config or rendered).format(device=node.name)
                files[f"{node.name}/{name}"] = _with_append(text, kind.startup_append).encode()
                continue
            src = config_dirs[node.name]
            for f in sorted(p for p in src.iterdir() if p.is_file()):
                files[f"{node.name}/{f.name}"] = f.read_bytes()
            files[f"{node.name}/daemons"] = _daemons(node.name, spec.network, (src / "frr.conf").read_text()).encode()
        for node, script in shaping_scripts(spec).items():
            if node not in vendor:  # tc runs in linux containers only
                files[f"{node}/{SHAPING}"] = script.encode()
        port_map = json.dumps(spec.port_map, indent=1, sort_keys=True) + "\n"
    config_dir = Layout(build_root, spec.network).configs("clab/configs")
    out = labs_dir / f"{spec.network}.clab.yml"
    notes = mtu_limits(spec, vendor)
    clab = ClabResult(
        spec.network, out, vlan_mode, len(spec.nodes), len(spec.links), config_dir, findings, kinds, notes
    )
    if findings:
        return clab
    bind_root = Path(os.path.relpath(config_dir.resolve(), labs_dir.resolve())).as_posix()
    per_node: dict[str, list[str]] = {}
    for rel in files:
        node, name = rel.split("/", 1)
        per_node.setdefault(node, []).append(name)
    document = topology(spec, per_node, bind_root, router_image, host_image, vendor)
    text = to_yaml(document, header(spec, _display(inventory), bind_root, per_node, kinds, vendor, notes))
    progress(f"validate {out} against {schema_file}")
    # validate what containerlab will read: the YAML text, not the dict it came from
    check_topology(yaml.safe_load(text), schema, str(out))
    _sync(files, config_dir)
    (config_dir.parent / "port_map.json").write_text(port_map)
    labs_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, text)
    return clab


def _display(inventory: Path) -> str:
    # a stable name for the header: inventories/<net>, wherever the command ran from
    parts = inventory.resolve().parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else str(inventory)


__all__ = [
    "ClabInvalid",
    "ClabKind",
    "ClabResult",
    "ClabUnsupported",
    "clab_kinds",
    "check_topology",
    "find_schema",
    "generate",
    "schema_errors",
    "topology",
    "validate_file",
    "vendor_ports",
]
