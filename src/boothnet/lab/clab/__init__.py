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
import tempfile
from pathlib import Path

import yaml

from boothnet.derive import DeriveContext
from boothnet.files import write_text_atomic
from boothnet.intent import Network
from boothnet.lab.clab.base import (
    DEFAULT_KINDS,
    DEFAULT_VLAN_MODE,
    HOST_IMAGE,
    ROUTER_IMAGE,
    SHAPING,
    ClabInvalid,
    ClabResult,
    ClabUnsupported,
    Images,
    Kinds,
)
from boothnet.lab.clab.kinds import ClabKind, _vendor_spec, _with_append, clab_kinds, mtu_limits, vendor_ports
from boothnet.lab.clab.schema import (
    _load_json,
    check_topology,
    find_schema,
    schema_errors,
    validate_file,
)
from boothnet.lab.clab.topology import _daemons, _sync, header, shaping_scripts, to_yaml, topology
from boothnet.lab.plan import LAB_PLATFORM, plan_lab
from boothnet.lab.spec import LabSpec, VlanMode
from boothnet.layout import Layout
from boothnet.platforms import platforms
from boothnet.progress import Progress
from boothnet.render.build import build
from boothnet.run import Run


def generate(
    inventory: Run | Path,
    labs_dir: Path = Path("labs"),
    build_root: Path = Path("build"),
    schema_path: Path | None = None,
    vlan_mode: VlanMode = DEFAULT_VLAN_MODE,
    images: Images | None = None,
    progress: Progress = lambda _: None,
    kinds: Kinds = DEFAULT_KINDS,
) -> ClabResult:
    """Plan the lab, translate, validate, then write configs and ``<labs_dir>/<net>.clab.yml``.

    kinds ``vendor``: devices on their platform's containerlab kind (capabilities.yml), vendor
    nodes booting their own rendered config; ``lab``: every device FRR on ``linux``.
    images: the routers', the hosts' and the vendor nodes' (default: capabilities.yml's).

    Raises ClabInvalid (nothing written) when the topology fails the schema, ClabUnsupported
    when the intent cannot run on the chosen kinds; returns with ``findings`` (nothing
    written) when the configs fail their lint or tool checks.
    """
    schema_file = find_schema(schema_path)
    schema = _load_json(schema_file)
    images = images or Images()
    run = Run.of(inventory, build_root)
    known = clab_kinds()
    vendor = _vendor_nodes(run.net, known, {LAB_PLATFORM: images.router, **images.platform}, vlan_mode) \
        if kinds == "vendor" else {}
    spec, files, findings = _node_configs(run, vlan_mode, vendor, known, progress)
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
    document = topology(spec, per_node, bind_root, images.router, images.host, vendor)
    text = to_yaml(document, header(spec, _display(run.inventory), bind_root, per_node, kinds, vendor, notes))
    progress(f"validate {out} against {schema_file}")
    # validate what containerlab will read: the YAML text, not the dict it came from
    check_topology(yaml.safe_load(text), schema, str(out))
    _sync(files, config_dir)
    (config_dir.parent / "port_map.json").write_text(json.dumps(spec.port_map, indent=1, sort_keys=True) + "\n")
    labs_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, text)
    return clab


def _node_configs(run: Run, vlan_mode: VlanMode, vendor: dict[str, tuple[ClabKind, str]],
                  known: dict[str, ClabKind], progress: Progress) -> tuple[LabSpec, dict[str, bytes], list[str]]:
    """The lab's plan and each node's files, built in a scratch folder, with the build's findings."""
    with tempfile.TemporaryDirectory(prefix="boothnet-clab-") as scratch:
        spec, result = plan_lab(run, vlan_mode, Path(scratch), progress=progress)
        findings = list(result.findings)
        config_dirs = {n.name: Path(n.config_dir) for n in spec.nodes if n.config_dir is not None}
        if vendor:
            names, ends = vendor_ports(run.net, known)
            progress(f"render {', '.join(vendor)} for their containerlab kinds")
            ctx = DeriveContext(port_map=names, vlan_mode=vlan_mode, tunnel_backend="libipsec")
            built = build(run, Path(scratch), ctx=ctx, subdir="clab/configs", progress=progress)
            findings += [f for f in built.findings if f not in findings]
            config_dirs = {name: built.out_dir / name for name in config_dirs}
            spec = _vendor_spec(spec, ends, names)
        return spec, _node_files(spec, config_dirs, vendor), findings


def _vendor_nodes(net: Network, known: dict[str, ClabKind], images: dict[str, str], vlan_mode: VlanMode
                  ) -> dict[str, tuple[ClabKind, str]]:
    """The devices that run on a vendor kind, with their image; ClabUnsupported when a platform
    has no kind, or trunks would be flattened under vendor nodes."""
    missing = sorted({d.platform for d in net.devices.values() if d.platform not in known})
    if missing:
        raise ClabUnsupported(f"no containerlab kind for platform(s) {', '.join(missing)}; use --kinds lab")
    vendor = {name: (known[device.platform], images.get(device.platform, known[device.platform].image))
              for name, device in sorted(net.devices.items()) if known[device.platform].vendor}
    if vendor and vlan_mode == "segment":
        raise ClabUnsupported(
            f"--vlan-mode segment flattens trunks, which vendor nodes ({', '.join(vendor)}) cannot: "
            "use --kinds lab, or the default dot1q"
        )
    return vendor


def _node_files(spec: LabSpec, config_dirs: dict[str, Path], vendor: dict[str, tuple[ClabKind, str]]
                ) -> dict[str, bytes]:
    """Each node's files, ``<node>/<name>``: a vendor node's startup-config, a Linux node's lab
    configs with its FRR daemons file and its shaping script."""
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
    for shaped, script in shaping_scripts(spec).items():
        if shaped not in vendor:  # tc runs in linux containers only
            files[f"{shaped}/{SHAPING}"] = script.encode()
    return files


def _display(inventory: Path) -> str:
    # a stable name for the header: inventories/<net>, wherever the command ran from
    parts = inventory.resolve().parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else str(inventory)


__all__ = [
    "HOST_IMAGE",
    "ROUTER_IMAGE",
    "ClabInvalid",
    "ClabKind",
    "ClabResult",
    "ClabUnsupported",
    "Images",
    "clab_kinds",
    "check_topology",
    "find_schema",
    "generate",
    "schema_errors",
    "topology",
    "validate_file",
    "vendor_ports",
]
