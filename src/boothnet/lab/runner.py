"""The netns lab runner: a LabSpec becomes namespaces, veths, a management bridge, sshd
on every node and FRR on every router; ``lab_down`` removes all of it, with or without
a (complete) state file.

state_dir layout (all generated at lab start, never committed):
  state.json  inventory.yml  port_map.json  known_hosts  id_ed25519[.pub]  authorized_keys
  nodes/<node>/{sshd_config, ssh_host_ed25519_key[.pub], sshd.pid, sshd.log}
"""

from __future__ import annotations

import functools
import ipaddress
import json
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from boothnet.lab import lldp, names, net, services, shaping, strongswan
from boothnet.lab.spec import LabNode, LabSpec, VlanMode
from boothnet.lab.specio import spec_hash, spec_to_dict
from boothnet.lab.state import read_state, write_json
from boothnet.process import alive
from boothnet.progress import Progress

#: "full": routers boot with their rendered configs; "day0": cabling, mgmt, sshd and FRR on a
#: hostname-only frr.conf, empty nftables, no interfaces.ip (what a deploy starts from).
ConfigMode = Literal["full", "day0"]
CONFIG_MODES: tuple[str, ...] = ("full", "day0")
STATE_VERSION = 1
services.register_node_hook("swanctl.conf", strongswan.start_charon, strongswan.load_swanctl)
WORKERS = 8  # threads for per-node bring-up; the work is mostly waiting on fork/exec
SETTLE_SECONDS = 0.6  # after a killed lab_up: how long the lab must stay gone before lab_down returns


@functools.cache
def detect_vlan_mode() -> VlanMode:
    """ "dot1q" if an 802.1Q device can be created in a throwaway namespace, else "segment"."""
    return "dot1q" if net.vlan_probe() else "segment"


# --- state -------------------------------------------------------------------------------


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def lab_health(state: dict[str, Any]) -> list[str]:
    """Problems of a running lab described by ``state`` (empty list: healthy)."""
    problems: list[str] = []
    for ns in state.get("namespaces", {}).values():
        if not net.ns_exists(ns):
            problems.append(f"namespace {ns} missing")
    bridge = state.get("bridge")
    if bridge and not net.root_links_with_alias(names.alias(state["network"], "mgmt")):
        problems.append(f"bridge {bridge} missing")
    for node, procs in state.get("pids", {}).items():
        for proc, pid in procs.items():
            if not alive(pid):
                problems.append(f"{node}: {proc} (pid {pid}) not running")
    return problems


# --- progress --------------------------------------------------------------------------


class _Steps:
    def __init__(self, total: int, progress: Progress) -> None:
        self.total, self.done, self.progress = total, 0, progress
        self.lock = threading.Lock()

    def __call__(self, msg: str) -> None:
        with self.lock:
            self.done += 1
            self.progress(f"[{self.done}/{self.total}] {msg}")


# --- lab_up ----------------------------------------------------------------------------


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


def _discover_namespaces(network: str) -> list[str]:
    """Namespaces of ``network``: name prefix ``<network>-`` and lo tagged by this lab (or
    untagged: a run killed right after creating it). Foreign tags are left alone."""
    prefix = f"{network}-"
    ours = []
    for ns in net.list_namespaces():
        if not ns.startswith(prefix):
            continue
        owner = net.namespace_owner(ns)
        if owner is None or owner.startswith(names.alias(network, "")):
            ours.append(ns)
    return ours


def lab_up(
    spec: LabSpec, state_dir: Path, progress: Progress = print, configs: ConfigMode = "full"
) -> dict[str, Any]:
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
    if (
        old
        and old.get("status") == "up"
        and old.get("spec_hash") == digest
        and old.get("configs", "full") == configs
    ):
        problems = lab_health(old)
        if not problems:
            progress(f"lab {spec.network} already up with this spec and healthy: no change")
            return {**old, "changed": False}
        progress(f"lab {spec.network} unhealthy ({'; '.join(problems[:3])}): rebuilding")
    if (
        (old and old.get("status") != "down")
        or _discover_namespaces(spec.network)
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
        except Exception as exc:  # noqa: BLE001 - keep the original error on top
            progress(f"lab {spec.network}: cleanup after failure also failed: {exc}")
        raise


def day0_frr_conf(node: str) -> str:
    """The frr.conf a day-0 router boots with: FRR running, nothing configured."""
    return f"frr defaults traditional\nhostname {node}\nservice integrated-vtysh-config\n!\n"


def _initial_state(spec: LabSpec, digest: str, configs: ConfigMode) -> dict[str, Any]:
    """What state.json says before anything exists: enough for lab_down to undo any part."""
    nw = spec.network
    mgmt = ipaddress.ip_network(spec.mgmt_subnet)
    return {
        "version": STATE_VERSION,
        "network": nw,
        "status": "building",
        "spec_hash": digest,
        "configs": configs,
        "vlan_mode": spec.vlan_mode,
        "kernel_vlan_mode": detect_vlan_mode(),
        "mgmt_subnet": spec.mgmt_subnet,
        "bridge": names.bridge_name(nw),
        "bridge_address": f"{next(mgmt.hosts())}/{mgmt.prefixlen}",
        "nodes": {n.name: {"kind": n.kind, "mgmt_address": n.mgmt_address} for n in spec.nodes},
        "namespaces": {n.name: names.ns_name(nw, n.name) for n in spec.nodes},
        "mgmt_veths": {n.name: names.mgmt_peer_name(nw, n.name) for n in spec.nodes},
        "frr_pathspaces": {n.name: names.pathspace(nw, n.name) for n in spec.nodes if n.kind == "router"},
        "links": [
            {
                "a": f"{lk.a.node}:{lk.a.ifname}",
                "b": f"{lk.b.node}:{lk.b.ifname}",
                "speed_mbps": lk.speed_mbps,
                "mtu": lk.mtu,
                "label": lk.label,
            }
            for lk in spec.links
        ],
        "pids": {},
        "started": _now(),
    }


def _wire(spec: LabSpec, state: dict[str, Any], state_dir: Path, steps: _Steps) -> None:
    """The management bridge, a namespace per node on it, and every link (a WAN link through
    its delay line, whose pid goes to state.json at once)."""
    nw, nsmap, bridge = spec.network, state["namespaces"], state["bridge"]
    net.create_bridge(bridge, state["bridge_address"], names.alias(nw, "mgmt"))
    steps(f"mgmt bridge {bridge} {state['bridge_address']}")
    for n in spec.nodes:
        ns = nsmap[n.name]
        net.create_namespace(ns, names.alias(nw, n.name))
        net.add_mgmt_veth(ns, names.mgmt_peer_name(nw, n.name), bridge, n.mgmt_address,
                          names.alias(nw, f"mgmt:{n.name}"))
        steps(f"namespace {ns} (mgmt {n.mgmt_address})")
    for lk in spec.links:
        what = f"link {lk.a.node}:{lk.a.ifname} -- {lk.b.node}:{lk.b.ifname} {lk.speed_mbps} Mb/s mtu {lk.mtu}"
        if lk.wan:
            log = state_dir / "wan" / f"{lk.a.node}-{lk.a.ifname}.log"
            pid = net.add_delay_link(lk, nsmap[lk.a.node], nsmap[lk.b.node], log)
            state["pids"].setdefault("wan delay lines", {})[lk.label] = pid
            write_json(state_dir / "state.json", state)
            what += f", delay line {lk.delay_ms} ms one way, jitter {lk.jitter_ms} ms, loss {lk.loss_pct} %"
        else:
            net.add_link(lk, nsmap[lk.a.node], nsmap[lk.b.node])
        steps(what)


@dataclass
class _NodeStart:
    """What every node's start shares: the lab's names, its client key, its link ends."""

    network: str
    namespaces: dict[str, str]
    nodes_dir: Path
    authorized_keys: Path
    ends: dict[str, list[tuple[str, int]]]
    configs: ConfigMode
    progress: Progress
    steps: _Steps

    def up(self, n: LabNode) -> tuple[str, dict[str, int], str]:
        """The node's host key, config, shaping and daemons; its pids and public host key."""
        nw, ns = self.network, self.namespaces[n.name]
        ndir = self.nodes_dir / n.name
        ndir.mkdir(exist_ok=True)
        host_pub = services.keygen(ndir / "ssh_host_ed25519_key", f"{n.name}@{nw}")
        pids: dict[str, int] = {}
        hook_ctx = services.HookContext(network=nw, node=n, ns=ns, node_dir=ndir, progress=self.progress)
        frr_conf = ndir / "frr.day0.conf"
        if n.kind == "router":
            assert n.config_dir  # validate_spec
            cdir = Path(n.config_dir)
            pids.update(services.start_hooks(hook_ctx))
            if self.configs == "full":
                services.apply_interfaces(ns, cdir / "interfaces.ip", n.name)
                frr_conf = cdir / "frr.conf"
            else:
                frr_conf.write_text(day0_frr_conf(n.name))
            services.enable_forwarding(ns, n.name)
            if self.configs == "full" and (cdir / "nftables.nft").is_file():
                services.load_nftables(ns, cdir / "nftables.nft", n.name)
        else:
            net.configure_host(n, ns)
        # shape after interfaces.ip: it may change MTUs, and the bucket must fit a frame.
        # day0 shapes at the wire's spec MTU, never below what a deploy sets later
        # (plan gives each wire the largest MTU its interfaces carry)
        with net.ipr(ns) as h:
            for ifname, speed in self.ends[n.name]:
                shaping.shape_in(h, ifname, speed, where=ns)
        if n.kind == "router":
            assert n.config_dir
            # day0: the daemons the rendered frr.conf (pushed by a deploy) needs, not the day-0 file's
            rendered = Path(n.config_dir) / "frr.conf"
            daemons_for = rendered if rendered.is_file() else None
            pids.update(services.start_frr(ns, nw, names.pathspace(nw, n.name), frr_conf, n.name, daemons_for))
        if self.configs == "full":
            services.load_hooks(hook_ctx)
        pids["lldpd"] = lldp.start_lldpd(ns, n.name)
        pids["sshd"] = services.start_sshd(ns, n, ndir, self.authorized_keys)
        self.steps(f"node {ns} up ({', '.join(sorted(pids))})")
        return n.name, pids, host_pub


def _build(
    spec: LabSpec, state_dir: Path, digest: str, progress: Progress, configs: ConfigMode
) -> dict[str, Any]:
    t0 = time.monotonic()
    nw = spec.network
    state = _initial_state(spec, digest, configs)
    # written before anything exists: a kill from here on leaves a state lab_down can use
    write_json(state_dir / "state.json", state)
    (state_dir / "spec.json").write_text(json.dumps(spec_to_dict(spec), indent=2) + "\n")
    steps = _Steps(len(spec.nodes) * 2 + len(spec.links) + 2, progress)
    _wire(spec, state, state_dir, steps)

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

    start = _NodeStart(nw, state["namespaces"], nodes_dir, auth, ends, configs, progress, steps)
    host_keys: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for name, pids, host_pub in pool.map(start.up, spec.nodes):
            state["pids"][name] = pids
            host_keys[name] = host_pub

    _write_known_hosts(state_dir / "known_hosts", spec, host_keys)
    _write_inventory(state_dir, spec, configs)
    write_json(state_dir / "port_map.json", spec.port_map)
    state.update(status="up", up_seconds=round(time.monotonic() - t0, 2), finished=_now())
    write_json(state_dir / "state.json", state)
    steps(
        f"lab {nw} up: {len(spec.nodes)} nodes, {len(spec.links)} links in "
        f"{state['up_seconds']} s; inventory {state_dir / 'inventory.yml'}"
    )
    return {**state, "changed": True}


def _write_known_hosts(path: Path, spec: LabSpec, host_keys: dict[str, str]) -> None:
    lines = []
    for n in spec.nodes:
        ip = ipaddress.ip_interface(n.mgmt_address).ip
        keytype, key = host_keys[n.name].split()[:2]
        lines.append(f"{ip} {keytype} {key}")
    path.write_text("\n".join(lines) + "\n")


def _write_inventory(state_dir: Path, spec: LabSpec, configs: ConfigMode = "full") -> None:
    nw = spec.network
    common = {
        "ansible_user": "root",
        "ansible_ssh_private_key_file": str(state_dir / "id_ed25519"),
        "ansible_ssh_common_args": (f"-o UserKnownHostsFile={state_dir / 'known_hosts'} -o StrictHostKeyChecking=yes"),
        "ansible_python_interpreter": "/usr/bin/python3",
    }
    groups: dict[str, dict[str, Any]] = {"routers": {}, "hosts": {}}
    for n in spec.nodes:
        hv: dict[str, Any] = {
            "ansible_host": str(ipaddress.ip_interface(n.mgmt_address).ip),
            **common,
            "boothnet_netns": names.ns_name(nw, n.name),
            "boothnet_lldp_socket": str(lldp.socket_path(names.ns_name(nw, n.name))),
        }
        if n.kind == "router":
            hv["boothnet_frr_pathspace"] = names.pathspace(nw, n.name)
            hv["boothnet_config_dir"] = n.config_dir  # what deploy loads: the lab rendering
            # the deploy driver's device-side state (backup, revert timer) under nodes/,
            # so lab_down removes it with the node
            hv["boothnet_deploy_state_dir"] = str(state_dir / "nodes" / n.name / "deploy")
            if n.config_dir and (Path(n.config_dir) / "swanctl.conf").is_file():
                hv.update(strongswan.inventory_vars(state_dir / "nodes" / n.name))
        groups["routers" if n.kind == "router" else "hosts"][n.name] = hv
    inv = {
        "all": {
            "vars": {
                "boothnet_lab_network": nw,
                "boothnet_lab_vlan_mode": spec.vlan_mode,
                "boothnet_lab_configs": configs,
                **({"boothnet_intent_dir": spec.intent} if spec.intent else {}),
                # the lab's own pre-shared key, generated at lab start (deploy fills ${...} from it)
                "boothnet_vpn_psk_file": str(state_dir / strongswan.PSK_FILE),
            },
            "children": {
                **{g: {"hosts": hosts} for g, hosts in groups.items()},
                # deploy.yml deploys network_devices, in the lab as in the intent inventory
                "network_devices": {"children": {"routers": {}}},
            },
        }
    }
    header = f"# generated by boothnet.lab.runner for lab {nw}; do not edit\n"
    (state_dir / "inventory.yml").write_text(header + yaml.safe_dump(inv, sort_keys=True))


# --- lab_down --------------------------------------------------------------------------


RUNTIME_FILES = (
    "inventory.yml",
    "known_hosts",
    "id_ed25519",
    "id_ed25519.pub",
    "authorized_keys",
    "spec.json",
    strongswan.PSK_FILE,
)


def _remove_links(network: str) -> list[str]:
    """The lab's root links (its ifalias), the management bridge last: its address answers
    until the end."""
    links = set(net.root_links_with_alias(names.alias(network, "")))
    bridge = names.bridge_name(network)
    return [name for name in sorted(links - {bridge}) + [bridge] if net.delete_root_link(name)]


def _sweep_late_starters(network: str, namespaces: set[str], pathspaces: set[str], t0: float
                         ) -> tuple[list[dict[str, object]], list[str]]:
    """A killed lab_up may leave a forked child that had not yet exec'd its `ip netns exec ...
    zebra` when we looked: it starts late, makes its FRR dir and dies. Sweep again until the
    lab stays gone for a moment."""
    killed: list[dict[str, object]] = []
    frr_dirs: list[str] = []
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < SETTLE_SECONDS and time.monotonic() - t0 < 30:
        time.sleep(0.1)
        late = services.kill_namespaces(sorted(namespaces))
        late_dirs = services.remove_frr_dirs(network, pathspaces)
        if late or late_dirs:
            killed += late
            frr_dirs += late_dirs
            quiet_since = time.monotonic()
    return killed, frr_dirs


def _remove_files(state_dir: Path, namespaces: set[str]) -> list[str]:
    """lldpd's runtime files, the lab's runtime files, its node and WAN folders."""
    files = lldp.remove_files(namespaces)
    for f in RUNTIME_FILES:
        p = state_dir / f
        if p.exists():
            p.unlink()
            files.append(str(p))
    for folder in ("nodes", "wan"):
        if (state_dir / folder).is_dir():
            shutil.rmtree(state_dir / folder)
            files.append(str(state_dir / folder))
    return files


def lab_down(network: str, state_dir: Path, progress: Progress = print) -> dict[str, Any]:
    """Remove every namespace, process, link, FRR dir and key of lab ``network``. Works from
    state.json when present and by discovery otherwise (``<network>-`` namespaces tagged
    by this lab, root links with this lab's ifalias, FRR dirs with this lab's marker).
    Returns what was removed (also recorded in state.json, status "down")."""
    t0 = time.monotonic()
    state_dir = Path(state_dir).resolve()
    st = read_state(state_dir) or {}
    if st and st.get("network") not in (None, network):
        raise ValueError(f"{state_dir} holds lab {st.get('network')!r}, not {network!r}")
    recorded = set(st.get("namespaces", {}).values())
    nss = recorded if st.get("status") != "down" else set()
    nss = {ns for ns in nss | set(_discover_namespaces(network)) if net.ns_exists(ns)}
    progress(f"lab {network}: down, {len(nss)} namespaces")

    killed = services.kill_namespaces(sorted(nss))
    progress(f"lab {network}: {len(killed)} processes stopped")
    removed_links = _remove_links(network)
    removed_ns = []
    for ns in sorted(nss):
        net.remove_namespace(ns)
        removed_ns.append(ns)
    # a process that was still on its way in (orphaned `ip netns exec` of a killed lab_up)
    killed += services.kill_namespaces(sorted(nss | recorded))
    progress(f"lab {network}: {len(removed_ns)} namespaces, {len(removed_links)} root links removed")
    pathspaces = set(st.get("frr_pathspaces", {}).values()) | nss
    frr_dirs = services.remove_frr_dirs(network, pathspaces)
    if st.get("status") != "up":
        late, late_dirs = _sweep_late_starters(network, pathspaces | recorded, pathspaces, t0)
        killed += late
        frr_dirs += late_dirs
    files = _remove_files(state_dir, nss | recorded)

    removed = {
        "namespaces": removed_ns,
        "processes": killed,
        "links": removed_links,
        "frr_dirs": frr_dirs,
        "files": files,
    }
    down_seconds = round(time.monotonic() - t0, 2)
    if state_dir.is_dir():
        write_json(
            state_dir / "state.json",
            {
                "version": STATE_VERSION,
                "network": network,
                "status": "down",
                "down_at": _now(),
                "down_seconds": down_seconds,
                "removed": removed,
            },
        )
    progress(f"lab {network}: down in {down_seconds} s")
    return {"network": network, "status": "down", "down_seconds": down_seconds, "removed": removed}
