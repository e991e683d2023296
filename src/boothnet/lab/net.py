"""Namespaces, veth pairs, the management bridge and host addressing, all via pyroute2."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import subprocess
import sys
import time
from pathlib import Path

from pyroute2 import IPRoute, netns
from pyroute2 import config as pyroute2_config
from pyroute2.netlink.exceptions import NetlinkError
from pyroute2.netlink.rtnl.ifaddrmsg import IFA_F_NODAD

from boothnet.lab import names
from boothnet.lab.spec import LabLink, LabNode

# pyroute2 opens a namespace's socket in a forked child, given 2 s (10 s in all): beside the live
# tier's other labs coming up, children took longer and a lab-up failed (ci106)
pyroute2_config.default_communicate_timeout = 15
pyroute2_config.default_create_socket_timeout = 60


def ipr(ns: str | None = None) -> IPRoute:
    # flags=0: opening a namespace must never create it
    return IPRoute(netns=ns, flags=0) if ns else IPRoute()


def list_namespaces() -> list[str]:
    return sorted(netns.listnetns())


def ns_exists(name: str) -> bool:
    return os.path.exists(f"/run/netns/{name}")


def create_namespace(name: str, owner_alias: str) -> None:
    """Create ``name``, bring lo up and tag lo with ``owner_alias`` (how lab_down tells
    its own namespaces from a foreign one sharing the name prefix)."""
    netns.create(name)
    with ipr(name) as ns:
        lo = ns.link_lookup(ifname="lo")[0]
        ns.link("set", index=lo, state="up", ifalias=owner_alias)


def namespace_owner(name: str) -> str | None:
    """The ifalias on lo of ``name`` (None when unset or unreadable)."""
    try:
        with ipr(name) as ns:
            lo = ns.link_lookup(ifname="lo")[0]
            return ns.get_links(lo)[0].get("IFLA_IFALIAS") or None
    except (OSError, NetlinkError, IndexError):
        return None


def remove_namespace(name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        netns.remove(name)


def create_bridge(name: str, address: str, owner_alias: str) -> None:
    with ipr() as r:
        if r.link_lookup(ifname=name):
            raise RuntimeError(f"management bridge {name} already exists in the root namespace")
        r.link("add", ifname=name, kind="bridge")
        idx = r.link_lookup(ifname=name)[0]
        iface = ipaddress.ip_interface(address)
        r.addr("add", index=idx, address=str(iface.ip), prefixlen=iface.network.prefixlen)
        r.link("set", index=idx, state="up", ifalias=owner_alias)


def root_links_with_alias(prefix: str) -> list[str]:
    with ipr() as r:
        return sorted(
            lk.get("IFLA_IFNAME")
            for lk in r.get_links()
            if (lk.get("IFLA_IFALIAS") or "").startswith(prefix)
        )


def delete_root_link(name: str) -> bool:
    with ipr() as r:
        found = r.link_lookup(ifname=name)
        if not found:
            return False
        with contextlib.suppress(NetlinkError):  # may vanish with its namespace meanwhile
            r.link("del", index=found[0])
        return True


def add_mgmt_veth(ns: str, root_end: str, bridge: str, address: str, owner_alias: str) -> None:
    """veth ``mgmt0`` in ``ns`` (at ``address``) whose peer ``root_end`` joins ``bridge``."""
    with ipr() as r:
        r.link("add", ifname=root_end, kind="veth", peer={"ifname": names.MGMT_IF, "net_ns_fd": ns})
        idx = r.link_lookup(ifname=root_end)[0]
        br = r.link_lookup(ifname=bridge)[0]
        r.link("set", index=idx, master=br, state="up", ifalias=owner_alias)
    iface = ipaddress.ip_interface(address)
    with ipr(ns) as n:
        idx = n.link_lookup(ifname=names.MGMT_IF)[0]
        n.addr("add", index=idx, address=str(iface.ip), prefixlen=iface.network.prefixlen)
        n.link("set", index=idx, state="up")


def add_link(link: LabLink, ns_a: str, ns_b: str) -> None:
    """The veth pair of ``link``, created from inside ``ns_a`` with its peer born in ``ns_b``
    (no moment where either end sits in the root namespace), MTU set, both ends up."""
    with ipr(ns_a) as a:
        a.link(
            "add",
            ifname=link.a.ifname,
            kind="veth",
            peer={"ifname": link.b.ifname, "net_ns_fd": ns_b},
        )
        idx = a.link_lookup(ifname=link.a.ifname)[0]
        a.link("set", index=idx, mtu=link.mtu, state="up")
    with ipr(ns_b) as b:
        idx = b.link_lookup(ifname=link.b.ifname)[0]
        b.link("set", index=idx, mtu=link.mtu, state="up")


WAN_TMP_IFNAME = "bnwantmp0"


def add_delay_link(link: LabLink, ns_a: str, ns_b: str, log: Path) -> int:
    """A WAN hop: a delay line process (boothnet.lab.delayline) in ``ns_a`` with a TAP at
    each end instead of a veth pair; the second TAP, born in ``ns_a``, moves to ``ns_b``.
    The process lives in ``ns_a``, so lab_down stops it with that namespace's others, and
    its TAPs go with it. Returns its pid."""
    cmd = ["ip", "netns", "exec", ns_a, sys.executable, "-m", "boothnet.lab.delayline",
           "--tap-a", link.a.ifname, "--tap-b", WAN_TMP_IFNAME, "--delay-ms", str(link.delay_ms),
           "--jitter-ms", str(link.jitter_ms), "--loss-pct", str(link.loss_pct),
           "--stats", str(log.with_suffix(".stats.json"))]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 10
    with ipr(ns_a) as a:
        while not a.link_lookup(ifname=WAN_TMP_IFNAME):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"delay line for {link.label} did not start: {log.read_text()[-500:]}")
            time.sleep(0.02)
        a.link("set", index=a.link_lookup(ifname=WAN_TMP_IFNAME)[0], net_ns_fd=ns_b)
        a.link("set", index=a.link_lookup(ifname=link.a.ifname)[0], mtu=link.mtu, state="up")
    with ipr(ns_b) as b:
        b.link("set", index=b.link_lookup(ifname=WAN_TMP_IFNAME)[0], ifname=link.b.ifname, mtu=link.mtu, state="up")
    return proc.pid


def set_host_macs(node: LabNode, ns: str) -> None:
    """A host's intended MACs, set as soon as its links exist: before any switch loads its port
    security, which err-disables a port at the first frame from another MAC (the veth's random one
    sends IPv6 router solicitations and DAD the moment it is up; a CI run lost h2's port so)."""
    with ipr(ns) as n:
        for a in node.addresses:
            if a.mac:
                n.link("set", index=n.link_lookup(ifname=a.ifname)[0], address=a.mac)


def configure_host(node: LabNode, ns: str) -> None:
    """Addresses, MTU and routes of a host node (hosts are not managed devices)."""
    with ipr(ns) as n:
        for a in node.addresses:
            idx = n.link_lookup(ifname=a.ifname)[0]
            iface = ipaddress.ip_interface(a.address)
            n.link("set", index=idx, mtu=a.mtu, state="up")
            n.addr("add", index=idx, address=str(iface.ip), prefixlen=iface.network.prefixlen)
            if a.address6:
                iface6 = ipaddress.ip_interface(a.address6)
                # no duplicate detection: the lab knows its addresses, and a tentative one fails probes
                n.addr("add", index=idx, address=str(iface6.ip), prefixlen=iface6.network.prefixlen,
                       flags=IFA_F_NODAD)
        for a in node.addresses:
            if a.gateway:
                n.route("replace", dst="default", gateway=a.gateway)
        for prefix, via in node.routes:
            n.route("replace", dst=prefix, gateway=via)


# In an unnamed namespace, which ends with the probe's process: a run killed mid-probe (a demo's
# Ctrl-C, SIGKILL) left a named one behind that no lab-down knew of (ci104).
VLAN_PROBE = ("ip link add p0 type veth peer name p1 || exit 3\n"
              "ip link add link p0 name p0.10 type vlan id 10 2>/dev/null || exit 4\n")


def vlan_probe() -> bool:
    """True when the kernel can create an 802.1Q device (tried in a throwaway namespace)."""
    probe = subprocess.run(["unshare", "--net", "sh", "-c", VLAN_PROBE], capture_output=True, text=True)
    if probe.returncode not in (0, 4):
        raise RuntimeError(f"cannot probe this kernel's VLAN support (unshare --net, a veth pair): "
                           f"{probe.stderr.strip() or f'exit {probe.returncode}'}")
    return probe.returncode == 0
