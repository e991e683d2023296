"""A lab's parts made: the management bridge, a namespace per node, every link, and each
node's keys, config, shaping and daemons."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from boothnet.lab import lldp, names, net, services, shaping
from boothnet.lab.spec import LabNode, LabSpec
from boothnet.lab.state import ConfigMode, LabState, write_state
from boothnet.progress import Progress


class Steps:
    def __init__(self, total: int, progress: Progress) -> None:
        self.total, self.done, self.progress = total, 0, progress
        self.lock = threading.Lock()

    def __call__(self, msg: str) -> None:
        with self.lock:
            self.done += 1
            self.progress(f"[{self.done}/{self.total}] {msg}")


def day0_frr_conf(node: str) -> str:
    """The frr.conf a day-0 router boots with: FRR running, nothing configured."""
    return f"frr defaults traditional\nhostname {node}\nservice integrated-vtysh-config\n!\n"


def wire(spec: LabSpec, state: LabState, state_dir: Path, steps: Steps) -> None:
    """The management bridge, a namespace per node on it, and every link (a WAN link through
    its delay line, whose pid goes to state.json at once)."""
    nw, nsmap, bridge = spec.network, state.namespaces, names.bridge_name(spec.network)
    net.create_bridge(bridge, str(state.bridge_address), names.alias(nw, "mgmt"))
    steps(f"mgmt bridge {bridge} {state.bridge_address}")
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
            state.pids.setdefault("wan delay lines", {})[lk.label] = pid
            write_state(state_dir, state)
            what += f", delay line {lk.delay_ms} ms one way, jitter {lk.jitter_ms} ms, loss {lk.loss_pct} %"
        else:
            net.add_link(lk, nsmap[lk.a.node], nsmap[lk.b.node])
        steps(what)
    for n in spec.nodes:
        if n.kind != "router":
            net.set_host_macs(n, nsmap[n.name])


@dataclass
class NodeStart:
    """What every node's start shares: the lab's names, its client key, its link ends."""

    network: str
    namespaces: dict[str, str]
    nodes_dir: Path
    authorized_keys: Path
    ends: dict[str, list[tuple[str, int]]]
    configs: ConfigMode
    progress: Progress
    steps: Steps

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
