"""The netns lab runner: a LabSpec becomes namespaces, veths, a management bridge, sshd
on every node and FRR on every router; ``lab_down`` removes all of it, with or without
a (complete) state file. The parts: ``kernel`` (what this kernel can do), ``wiring`` (bridge,
namespaces, links, node start), ``inventory`` (Ansible's inventory and known_hosts),
``teardown`` (lab_down), ``state`` (state.json as a LabState).

state_dir layout (all generated at lab start, never committed):
  state.json  inventory.yml  port_map.json  known_hosts  id_ed25519[.pub]  authorized_keys
  nodes/<node>/{sshd_config, ssh_host_ed25519_key[.pub], sshd.pid, sshd.log}
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from boothnet.lab import names, net, services, strongswan
from boothnet.lab.inventory import write_inventory, write_known_hosts
from boothnet.lab.kernel import detect_vlan_mode
from boothnet.lab.spec import LabSpec
from boothnet.lab.specio import spec_hash, spec_to_dict
from boothnet.lab.state import CONFIG_MODES, ConfigMode, LabState, now, read_state, write_json, write_state
from boothnet.lab.teardown import discover_namespaces, lab_down
from boothnet.lab.wiring import NodeStart, Steps, day0_frr_conf, wire
from boothnet.process import alive
from boothnet.progress import Progress

services.register_node_hook("swanctl.conf", strongswan.start_charon, strongswan.load_swanctl)
__all__ = ["day0_frr_conf", "detect_vlan_mode", "lab_down", "lab_health", "lab_up"]
WORKERS = 8  # threads for per-node bring-up; the work is mostly waiting on fork/exec


def lab_health(state: LabState) -> list[str]:
    """Problems of a running lab described by ``state`` (empty list: healthy)."""
    problems: list[str] = []
    for ns in state.namespaces.values():
        if not net.ns_exists(ns):
            problems.append(f"namespace {ns} missing")
    if state.bridge and not net.root_links_with_alias(names.alias(state.network, "mgmt")):
        problems.append(f"bridge {state.bridge} missing")
    for node, procs in state.pids.items():
        for proc, pid in procs.items():
            if not alive(pid):
                problems.append(f"{node}: {proc} (pid {pid}) not running")
    return problems


def _check_mgmt_subnet_free(spec: LabSpec) -> None:
    subnet = ipaddress.ip_network(spec.mgmt_subnet)
    with net.ipr() as r:
        for a in r.get_addr():
            ip = ipaddress.ip_address(a.get("IFA_ADDRESS"))
            if ip in subnet:
                dev = r.get_links(a["index"])[0].get("IFLA_IFNAME")
                raise RuntimeError(
                    f"mgmt_subnet {subnet} of lab {spec.network} overlaps {ip} on {dev} in the "
                    "root namespace (another lab up? pick another mgmt_subnet)"
                )


def lab_up(
    spec: LabSpec, state_dir: Path, progress: Progress = print, configs: ConfigMode = "full"
) -> LabState:
    """Build ``spec`` in namespaces. A no-op (``changed: False``) when ``state_dir`` holds a
    healthy lab of the same spec hash and config mode; otherwise any previous or partial lab
    of the same network is removed first. On failure the partial lab is removed and the
    error raised. Returns the state (also written to ``state_dir/state.json``)."""
    if configs not in CONFIG_MODES:
        raise ValueError(f"lab {spec.network}: configs must be one of {CONFIG_MODES}, not {configs!r}")
    names.validate_spec(spec)
    state_dir = Path(state_dir).resolve()
    state_dir.mkdir(parents=True, exist_ok=True)
    # day0 does not boot from the rendered configs: a re-render must not rebuild the lab
    # (and wipe what a deploy put there), so only the topology counts
    digest = spec_hash(spec, with_configs=configs == "full")
    old = read_state(state_dir)
    if old and old.up and old.spec_hash == digest and old.configs == configs:
        problems = lab_health(old)
        if not problems:
            progress(f"lab {spec.network} already up with this spec and healthy: no change")
            return dataclasses.replace(old, changed=False)
        progress(f"lab {spec.network} unhealthy ({'; '.join(problems[:3])}): rebuilding")
    if (
        (old and old.status != "down")
        or discover_namespaces(spec.network)
        or (net.root_links_with_alias(names.alias(spec.network, "")))
    ):
        progress(f"lab {spec.network}: removing previous/partial lab first")
        lab_down(spec.network, state_dir, progress)

    if spec.vlan_mode == "dot1q" and detect_vlan_mode() != "dot1q":
        raise RuntimeError(
            f"lab {spec.network}: spec asks for vlan_mode dot1q but this kernel cannot create "
            "802.1Q devices; plan the lab with vlan_mode='segment'"
        )
    _check_mgmt_subnet_free(spec)
    try:
        return _build(spec, state_dir, digest, progress, configs)
    except BaseException:
        progress(f"lab {spec.network}: bring-up failed, removing the partial lab")
        try:
            lab_down(spec.network, state_dir, progress)
        except Exception as exc:  # keep the original error on top
            progress(f"lab {spec.network}: cleanup after failure also failed: {exc}")
        raise


def _initial_state(spec: LabSpec, digest: str, configs: ConfigMode) -> LabState:
    """What state.json says before anything exists: enough for lab_down to undo any part."""
    nw = spec.network
    mgmt = ipaddress.ip_network(spec.mgmt_subnet)
    return LabState(
        network=nw,
        status="building",
        spec_hash=digest,
        configs=configs,
        vlan_mode=spec.vlan_mode,
        kernel_vlan_mode=detect_vlan_mode(),
        mgmt_subnet=spec.mgmt_subnet,
        bridge=names.bridge_name(nw),
        bridge_address=f"{next(mgmt.hosts())}/{mgmt.prefixlen}",
        nodes={n.name: {"kind": n.kind, "mgmt_address": n.mgmt_address} for n in spec.nodes},
        namespaces={n.name: names.ns_name(nw, n.name) for n in spec.nodes},
        mgmt_veths={n.name: names.mgmt_peer_name(nw, n.name) for n in spec.nodes},
        frr_pathspaces={n.name: names.pathspace(nw, n.name) for n in spec.nodes if n.kind == "router"},
        links=[
            {
                "a": f"{lk.a.node}:{lk.a.ifname}",
                "b": f"{lk.b.node}:{lk.b.ifname}",
                "speed_mbps": lk.speed_mbps,
                "mtu": lk.mtu,
                "label": lk.label,
            }
            for lk in spec.links
        ],
        started=now(),
    )


def _build(
    spec: LabSpec, state_dir: Path, digest: str, progress: Progress, configs: ConfigMode
) -> LabState:
    t0 = time.monotonic()
    nw = spec.network
    state = _initial_state(spec, digest, configs)
    # written before anything exists: a kill from here on leaves a state lab_down can use
    write_state(state_dir, state)
    (state_dir / "spec.json").write_text(json.dumps(spec_to_dict(spec), indent=2) + "\n")
    steps = Steps(len(spec.nodes) * 2 + len(spec.links) + 2, progress)
    wire(spec, state, state_dir, steps)

    # keys: one client key per lab, one host key per node (parallel: ssh-keygen per node)
    nodes_dir = state_dir / "nodes"
    nodes_dir.mkdir(exist_ok=True)
    client_pub = services.keygen(state_dir / "id_ed25519", f"boothnet-lab-{nw}")
    auth = state_dir / "authorized_keys"
    auth.write_text(client_pub + "\n")
    auth.chmod(0o600)
    ends: dict[str, list[tuple[str, int]]] = {n.name: [] for n in spec.nodes}
    for lk in spec.links:
        ends[lk.a.node].append((lk.a.ifname, lk.speed_mbps))
        ends[lk.b.node].append((lk.b.ifname, lk.speed_mbps))
    if any(n.config_dir and (Path(n.config_dir) / "swanctl.conf").is_file() for n in spec.nodes):
        strongswan.generate_psk(state_dir)

    start = NodeStart(nw, state.namespaces, nodes_dir, auth, ends, configs, progress, steps)
    host_keys: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for name, pids, host_pub in pool.map(start.up, spec.nodes):
            state.pids[name] = pids
            host_keys[name] = host_pub

    write_known_hosts(state_dir / "known_hosts", spec, host_keys)
    write_inventory(state_dir, spec, configs)
    write_json(state_dir / "port_map.json", spec.port_map)
    state.status, state.up_seconds, state.finished = "up", round(time.monotonic() - t0, 2), now()
    write_state(state_dir, state)
    steps(
        f"lab {nw} up: {len(spec.nodes)} nodes, {len(spec.links)} links in "
        f"{state.up_seconds} s; inventory {state_dir / 'inventory.yml'}"
    )
    return state


