"""Names the netns lab derives from a network and its nodes, and the spec checks that
must pass before anything is created (a half-built lab because of a 16-char ifname is
worse than a clear error up front)."""

from __future__ import annotations

import hashlib
import ipaddress
import re
from pathlib import Path

from boothnet.lab.spec import LabNode, LabSpec

IFNAMSIZ = 15  # kernel IFNAMSIZ (16) minus the terminating NUL
MGMT_IF = "mgmt0"
ALIAS_PREFIX = "boothnet:"  # ifalias on lab-owned links: "boothnet:<network>:<role>"
FRR_ETC = Path("/etc/frr")
FRR_RUN = Path("/var/run/frr")
FRR_MARKER = ".boothnet-lab"  # file in each FRR dir the lab creates, holding the network

_IFNAME_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]*$")


def ns_name(network: str, node: str) -> str:
    return f"{network}-{node}"


def pathspace(network: str, node: str) -> str:
    """FRR pathspace (``-N``). The namespace name, not the bare node name: two labs with
    an ``r1`` each must not share /etc/frr/r1, and lab_down of one must not delete the
    other's."""
    return ns_name(network, node)


def _short(token: str, n: int) -> str:
    return hashlib.sha1(token.encode()).hexdigest()[:n]


def bridge_name(network: str) -> str:
    """Management bridge in the root namespace, derived from the network name only (so a
    lab_down without state can find it)."""
    name = f"bm-{network}"
    if len(name) <= IFNAMSIZ:
        return name
    return f"bm-{network[:6]}-{_short(network, 5)}"


def mgmt_peer_name(network: str, node: str) -> str:
    """Root-namespace end of a node's mgmt veth (its ifalias says which node it is)."""
    return f"bv{_short(network + '/' + node, 10)}"


def alias(network: str, role: str) -> str:
    return f"{ALIAS_PREFIX}{network}:{role}"


def check_ifname(name: str, where: str) -> str | None:
    if not name or len(name) > IFNAMSIZ:
        return f"{where}: interface name {name!r} must be 1..{IFNAMSIZ} characters"
    if not _IFNAME_RE.match(name):
        return f"{where}: interface name {name!r} has characters outside [A-Za-z0-9_.-]"
    return None


def _mgmt_subnet(spec: LabSpec, errs: list[str]) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(spec.mgmt_subnet)
    except ValueError as exc:
        errs.append(f"mgmt_subnet {spec.mgmt_subnet!r}: {exc}")
        return None


def _node_errors(spec: LabSpec, subnet: ipaddress.IPv4Network | ipaddress.IPv6Network | None,
                 errs: list[str]) -> dict[str, set[str]]:
    """Each node's name, kind, management address and (router) configs; returns each node's
    interfaces so far (its management one)."""
    gw = next(subnet.hosts()) if subnet is not None else None
    mgmt_seen: dict[str, str] = {}
    ifs: dict[str, set[str]] = {}
    for node in spec.nodes:
        where = f"node {node.name}"
        if not _NAME_RE.match(node.name):
            errs.append(f"{where}: name must match {_NAME_RE.pattern}")
        if node.name in ifs:
            errs.append(f"{where}: duplicate node name")
        ifs[node.name] = {MGMT_IF}
        if node.kind not in ("router", "host"):
            errs.append(f"{where}: kind {node.kind!r} must be 'router' or 'host'")
        errs += [f"{where}: {why}" for why in _mgmt_errors(node, subnet, gw, mgmt_seen)]
        if node.kind == "router":
            if not node.config_dir:
                errs.append(f"{where}: router needs a config_dir")
            else:
                errs += [f"{where}: missing {Path(node.config_dir) / f}" for f in ("interfaces.ip", "frr.conf")
                         if not (Path(node.config_dir) / f).is_file()]
    return ifs


def _mgmt_errors(node: LabNode, subnet: ipaddress.IPv4Network | ipaddress.IPv6Network | None,
                 gw: object, seen: dict[str, str]) -> list[str]:
    """What is wrong with the node's management address (``gw``: the bridge's; ``seen``: address -> the
    node that has it)."""
    try:
        iface = ipaddress.ip_interface(node.mgmt_address)
    except ValueError as exc:
        return [f"mgmt_address {node.mgmt_address!r}: {exc}"]
    errs = []
    if subnet is not None and iface.ip not in subnet:
        errs.append(f"mgmt_address {node.mgmt_address} not in {subnet}")
    elif subnet is not None and iface.network != subnet:
        errs.append(f"mgmt_address {node.mgmt_address} prefix != {subnet}")
    if iface.ip == gw:
        errs.append(f"mgmt_address {iface.ip} is the bridge's own address")
    other = seen.setdefault(str(iface.ip), node.name)
    if other != node.name:
        errs.append(f"mgmt_address {iface.ip} already used by {other}")
    return errs


def _link_errors(spec: LabSpec, ifs: dict[str, set[str]], errs: list[str]) -> None:
    """Each link's speed, MTU and ends (known nodes, valid interface names, each used once)."""
    for i, link in enumerate(spec.links):
        where = f"link {i} ({link.label or '-'})"
        if link.speed_mbps <= 0:
            errs.append(f"{where}: speed_mbps must be > 0")
        if not 68 <= link.mtu <= 65535:
            errs.append(f"{where}: mtu {link.mtu} outside 68..65535")
        for end in (link.a, link.b):
            if end.node not in ifs:
                errs.append(f"{where}: unknown node {end.node!r}")
                continue
            err = check_ifname(end.ifname, f"{where} {end.node}")
            if err:
                errs.append(err)
            if end.ifname in ifs[end.node] or end.ifname == "lo":
                errs.append(f"{where}: {end.node} already has an interface {end.ifname!r}")
            ifs[end.node].add(end.ifname)


def validate_spec(spec: LabSpec) -> None:
    """Raise ValueError listing every problem of ``spec`` (not just the first)."""
    errs: list[str] = []
    if not _NAME_RE.match(spec.network):
        errs.append(f"network name {spec.network!r} must match {_NAME_RE.pattern}")
    if spec.vlan_mode not in ("dot1q", "segment"):
        errs.append(f"vlan_mode {spec.vlan_mode!r} must be 'dot1q' or 'segment'")
    ifs = _node_errors(spec, _mgmt_subnet(spec, errs), errs)
    _link_errors(spec, ifs, errs)
    for node in spec.nodes:
        for addr in node.addresses:
            if addr.ifname not in ifs.get(node.name, set()) - {MGMT_IF}:
                errs.append(f"node {node.name}: address on unknown interface {addr.ifname!r}")
            try:
                ipaddress.ip_interface(addr.address)
            except ValueError as exc:
                errs.append(f"node {node.name}: address {addr.address!r}: {exc}")
    if errs:
        raise ValueError("invalid LabSpec:\n  " + "\n  ".join(errs))
