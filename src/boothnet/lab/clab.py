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
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import regex
import yaml

from boothnet.lab.plan import HOST_IFNAME, plan_lab
from boothnet.lab.services import frr_daemons
from boothnet.lab.shaping import WIRE_OVERHEAD, htb_params
from boothnet.lab.spec import LabEnd, LabLink, LabNode, LabSpec, VlanMode

ROUTER_IMAGE = "quay.io/frrouting/frr:8.4.1"  # Alpine, iproute2 included; no nftables, no strongSwan
HOST_IMAGE = "nicolaka/netshoot:v0.13"  # iproute2, iperf3, nftables; no nuttcp
CLAB_MGMT_IF = "eth0"  # containerlab's management interface in every container
CLAB_HOST_IF = "eth1"  # where a host's data interface goes instead
CONFIG_MOUNT = "/etc/boothnet"
DEFAULT_VLAN_MODE: VlanMode = "dot1q"
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


@dataclass
class ClabResult:
    network: str
    path: Path
    vlan_mode: VlanMode
    nodes: int
    links: int
    config_dir: Path
    findings: list[str] = field(default_factory=list)  # build findings (nothing written then)


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
    import json

    return json.loads(path.read_text())


# --- translation -----------------------------------------------------------------------


def _clab_ifname(node: LabNode, ifname: str) -> str:
    return CLAB_HOST_IF if node.kind == "host" and ifname == HOST_IFNAME else ifname


def _shape(ifname: str, link: LabLink) -> list[str]:
    """The netns lab's htb shaping (``boothnet.lab.shaping``) as ip/tc commands."""
    p = htb_params(link.speed_mbps, link.mtu)
    rate = f"{link.speed_mbps}mbit"
    return [
        f"ip link set {ifname} gso_max_segs 1",
        f"tc qdisc replace dev {ifname} root handle 1: htb default 1",
        f"tc class replace dev {ifname} parent 1: classid 1:1 htb rate {rate} ceil {rate} "
        f"burst {p['burst']}b cburst {p['burst']}b quantum {p['quantum']} mtu {p['frame']} overhead {WIRE_OVERHEAD}",
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
) -> dict[str, Any]:
    """The containerlab document for ``spec``.

    config_files: node -> file names in its config folder; bind_root: that folder's
    parent as containerlab should see it (relative to the topology file's folder).
    """
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
        entry: dict[str, Any] = {"kind": "linux", "mgmt-ipv4": node.mgmt_address.split("/")[0]}
        files = sorted(config_files.get(node.name, []))
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


def header(spec: LabSpec, inventory: str, bind_root: str, config_files: dict[str, list[str]]) -> str:
    mode = (
        "trunks are single veths carrying 802.1Q tags; routers create ethX.VID devices"
        if spec.vlan_mode == "dot1q"
        else "every trunk is flattened to one veth per VLAN (ethXvVID), as on kernels without 802.1Q"
    )
    lines = [
        f"# {spec.network}: containerlab topology generated by boothnet from {inventory}. Do not edit;",
        f"# regenerate with `make clab NET={spec.network}` (boothnet clab -n {spec.network}).",
        f"# VLAN mode the lab configs assume: {spec.vlan_mode}: {mode}.",
        f"# Binds: {bind_root}/<node>/ (relative to this file), rendered by `boothnet clab`.",
        f"# Deploy: sudo containerlab deploy -t labs/{spec.network}.clab.yml (see labs/README.md).",
    ]
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


def generate(
    inventory: Path,
    labs_dir: Path = Path("labs"),
    build_root: Path = Path("build"),
    schema_path: Path | None = None,
    vlan_mode: VlanMode = DEFAULT_VLAN_MODE,
    router_image: str = ROUTER_IMAGE,
    host_image: str = HOST_IMAGE,
    progress: Progress = lambda _: None,
) -> ClabResult:
    """Plan the lab, translate, validate, then write configs and ``<labs_dir>/<net>.clab.yml``.

    Raises ClabInvalid (nothing written) when the topology fails the schema; returns with
    ``findings`` (nothing written) when the lab configs fail their lint or tool checks.
    """
    schema_file = find_schema(schema_path)
    schema = _load_json(schema_file)
    with tempfile.TemporaryDirectory(prefix="boothnet-clab-") as scratch:
        spec, result = plan_lab(inventory, vlan_mode, Path(scratch), progress=progress)
        files: dict[str, bytes] = {}
        for node in spec.nodes:
            if node.config_dir is None:
                continue
            src = Path(node.config_dir)
            for f in sorted(p for p in src.iterdir() if p.is_file()):
                files[f"{node.name}/{f.name}"] = f.read_bytes()
            files[f"{node.name}/daemons"] = _daemons(node.name, spec.network, (src / "frr.conf").read_text()).encode()
        for node, script in shaping_scripts(spec).items():
            files[f"{node}/{SHAPING}"] = script.encode()
        port_map = (Path(scratch) / spec.network / "lab" / "port_map.json").read_bytes()
    config_dir = build_root / spec.network / "clab" / "configs"
    out = labs_dir / f"{spec.network}.clab.yml"
    clab = ClabResult(spec.network, out, vlan_mode, len(spec.nodes), len(spec.links), config_dir, list(result.findings))
    if not result.ok:
        return clab
    bind_root = Path(os.path.relpath(config_dir.resolve(), labs_dir.resolve())).as_posix()
    per_node: dict[str, list[str]] = {}
    for rel in files:
        node, name = rel.split("/", 1)
        per_node.setdefault(node, []).append(name)
    document = topology(spec, per_node, bind_root, router_image, host_image)
    text = to_yaml(document, header(spec, _display(inventory), bind_root, per_node))
    progress(f"validate {out} against {schema_file}")
    # validate what containerlab will read: the YAML text, not the dict it came from
    check_topology(yaml.safe_load(text), schema, str(out))
    _sync(files, config_dir)
    (config_dir.parent / "port_map.json").write_bytes(port_map)
    labs_dir.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, out)
    return clab


def _display(inventory: Path) -> str:
    # a stable name for the header: inventories/<net>, wherever the command ran from
    parts = inventory.resolve().parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else str(inventory)


__all__ = [
    "ClabInvalid",
    "ClabResult",
    "check_topology",
    "find_schema",
    "generate",
    "schema_errors",
    "topology",
    "validate_file",
]
