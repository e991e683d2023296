"""Interface state of an ``frr_linux`` device as an iproute2 batch: parse, render, delta.

The rendered candidate's ``interfaces.ip`` is the *full intended state* of the interfaces
the device manages, written in six statement forms only::

    link add <br> type bridge
    link add link <parent> name <p.vid> type vlan id <vid>
    link set <if> master <br>
    link set <if> mtu <n>
    link set <if> up
    addr add <cidr> dev <if>

Backups taken on the device add ``link set <if> down`` (an interface that was down must
come back down on a revert); the renderer never writes it.

What "managed" means, per interface the batch mentions:
- existence of bridges and VLAN sub-interfaces (created, or recreated when parent/vid differ);
- its bridge master (none stated = not enslaved);
- its full set of addresses (IPv6 link-local excepted: the kernel owns those);
- its MTU and admin state only where stated (not stated = left as it is).
Interfaces the batch does not mention are never touched, except virtual ones in the
explicit *scope* of a revert (created by the change being reverted, hence deleted).

This module is stdlib-only on purpose: the driver copies it to the device, where the
revert timer runs it without the controller (``python3 ifstate.py apply ...``).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace

# Creation order: a VLAN needs its parent, a port needs its bridge.
_LEVEL = {"other": 0, "vlan": 1, "bridge": 2}


class IfStateError(ValueError):
    """A batch outside the six forms, or a delta the device cannot reach."""


@dataclass
class Iface:
    name: str
    kind: str = "other"  # "bridge" | "vlan" | "other" (physical, veth, ... : not ours to create)
    parent: str | None = None
    vid: int | None = None
    master: str | None = None
    mtu: int | None = None
    up: bool | None = None  # None = not stated, so not managed
    addrs: set[str] = field(default_factory=set)


State = dict[str, Iface]


def _cidr(text: str) -> str:
    try:
        return str(ipaddress.ip_interface(text))
    except ValueError as exc:
        raise IfStateError(f"not an address with prefix length: {text!r}") from exc


def _is_link_local(cidr: str) -> bool:
    iface = ipaddress.ip_interface(cidr)
    return iface.version == 6 and iface.ip.is_link_local


def parse_batch(text: str) -> State:
    """The state a batch describes; any other statement form is an error with its line."""
    state: State = {}

    def get(name: str) -> Iface:
        if len(name) > 15 or not name or "/" in name:
            raise IfStateError(f"not a Linux interface name: {name!r}")
        return state.setdefault(name, Iface(name))

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            _apply(shlex.split(line), get)
        except (IfStateError, ValueError) as exc:
            raise IfStateError(f"interfaces.ip line {number}: {line!r}: {exc}") from exc
    return state


def _apply(w: list[str], get: Callable[[str], Iface]) -> None:
    """One statement of a batch (its words) on the interfaces ``get`` finds or adds."""
    if w[:2] == ["link", "add"] and len(w) == 5 and w[3:] == ["type", "bridge"]:
        get(w[2]).kind = "bridge"
    elif w[:3] == ["link", "add", "link"] and len(w) == 10 and w[4] == "name" and w[6:9] == ["type", "vlan", "id"]:
        i = get(w[5])
        i.kind, i.parent, i.vid = "vlan", w[3], int(w[9])
        get(w[3])
    elif w[:2] == ["link", "set"] and len(w) == 5 and w[3] == "master":
        get(w[2]).master = w[4]
        get(w[4])
    elif w[:2] == ["link", "set"] and len(w) == 5 and w[3] == "mtu":
        get(w[2]).mtu = int(w[4])
    elif w[:2] == ["link", "set"] and len(w) == 4 and w[3] in ("up", "down"):
        get(w[2]).up = w[3] == "up"
    elif w[:2] == ["addr", "add"] and len(w) == 5 and w[3] == "dev":
        get(w[4]).addrs.add(_cidr(w[2]))
    else:
        raise IfStateError("unsupported statement")


def from_ip_json(links: list[dict], addrs: list[dict]) -> State:
    """The whole running state from ``ip -j -d link show`` and ``ip -j addr show``."""
    state: State = {}
    for link in links:
        info = link.get("linkinfo", {})
        kind = info.get("info_kind")
        i = Iface(
            name=link["ifname"],
            kind=kind if kind in ("bridge", "vlan") else "other",
            master=link.get("master"),
            mtu=link.get("mtu"),
            up="UP" in link.get("flags", []),
        )
        if i.kind == "vlan":
            i.parent = link.get("link")
            i.vid = info.get("info_data", {}).get("id")
        state[i.name] = i
    for entry in addrs:
        addressed = state.get(entry.get("ifname", ""))
        if addressed is None:
            continue
        for a in entry.get("addr_info", []):
            if a.get("family") not in ("inet", "inet6") or "local" not in a:
                continue
            cidr = _cidr(f"{a['local']}/{a['prefixlen']}")
            if not _is_link_local(cidr):
                addressed.addrs.add(cidr)
    return state


def restrict(running: State, target: State, scope: set[str] | None = None) -> State:
    """*running* cut down to what *target* manages, so an unchanged intent diffs empty.

    MTU and admin state appear only where the target states them; a virtual interface in
    *scope* but absent from the target appears whole (the delta would delete it).
    """
    names = set(target) | (scope or set())
    out: State = {}
    for name in names:
        cur = running.get(name)
        if cur is None:
            continue
        want = target.get(name)
        if want is None:
            if cur.kind != "other":
                out[name] = replace(cur, mtu=None, up=None, addrs=set(cur.addrs))
            continue
        out[name] = replace(
            cur,
            kind=cur.kind if want.kind != "other" else "other",
            parent=cur.parent if want.kind == "vlan" else None,
            vid=cur.vid if want.kind == "vlan" else None,
            mtu=cur.mtu if want.mtu is not None else None,
            up=cur.up if want.up is not None else None,
            addrs=set(cur.addrs),
        )
    return out


def snapshot(running: State, names: set[str]) -> State:
    """The running state of *names* with MTU and admin state stated: what a backup keeps."""
    return {n: replace(running[n], addrs=set(running[n].addrs)) for n in names if n in running}


def _addr_key(cidr: str) -> tuple[int, int, int]:
    iface = ipaddress.ip_interface(cidr)
    return (iface.version, int(iface.ip), iface.network.prefixlen)


def render_batch(state: State) -> str:
    """Canonical batch: creations, masters, MTUs (ports before bridges), admin state, addresses.

    The same state always renders the same text, and the text is itself a valid batch.
    """
    lines: list[str] = []
    ifs = sorted(state.values(), key=lambda i: i.name)
    lines += [f"link add {i.name} type bridge" for i in ifs if i.kind == "bridge"]
    lines += [
        f"link add link {i.parent} name {i.name} type vlan id {i.vid}"
        for i in ifs
        if i.kind == "vlan"
    ]
    lines += [f"link set {i.name} master {i.master}" for i in ifs if i.master]
    by_level = sorted(ifs, key=lambda i: (_LEVEL[i.kind], i.name))
    lines += [f"link set {i.name} mtu {i.mtu}" for i in by_level if i.mtu is not None]
    lines += [f"link set {i.name} {'up' if i.up else 'down'}" for i in ifs if i.up is not None]
    for i in ifs:
        lines += [f"addr add {a} dev {i.name}" for a in sorted(i.addrs, key=_addr_key)]
    return "".join(line + "\n" for line in lines)


def delta(running: State, target: State, scope: set[str] | None = None) -> list[str]:
    """The ``ip -batch`` statements that take *running* to *target*.

    *running* is the whole device state. Raises :class:`IfStateError` for a target the
    device cannot reach (a physical port or a VLAN parent that does not exist), before
    anything is applied.
    """
    doomed = _doomed(running, target, scope)
    out = [f"link del {cur.name}" for cur in sorted(doomed, key=lambda i: (_LEVEL[i.kind], i.name))]
    after = set(running) - {d.name for d in doomed}
    ifs = sorted(target.values(), key=lambda i: i.name)
    out += _creations(ifs, after)
    gone = {d.name for d in doomed}

    def cur_of(name: str) -> Iface:
        # A freshly created interface has nothing yet: no master, no address, down.
        c = running.get(name)
        return c if c is not None and name not in gone else Iface(name)

    return out + _changes(ifs, cur_of)


def _doomed(running: State, target: State, scope: set[str] | None) -> list[Iface]:
    """Virtual interfaces in scope that the target does not want, or wants different."""
    doomed: list[Iface] = []
    for name in sorted(set(target) | (scope or set())):
        cur, want = running.get(name), target.get(name)
        if cur is None or cur.kind == "other":
            if cur is not None and want is not None and want.kind != "other":
                raise IfStateError(f"{name} exists as a non-{want.kind} interface")
            continue
        if want is None or (
            want.kind != "other"
            and (want.kind, want.parent, want.vid) != (cur.kind, cur.parent, cur.vid)
        ):
            doomed.append(cur)
    return doomed


def _creations(ifs: list[Iface], after: set[str]) -> list[str]:
    """Bridges, then VLANs on parents that exist by then; `after` gets what they create."""
    out: list[str] = []
    for i in ifs:
        if i.kind == "bridge" and i.name not in after:
            out.append(f"link add {i.name} type bridge")
            after.add(i.name)
    for i in ifs:
        if i.kind == "vlan" and i.name not in after:
            if i.parent not in after:
                raise IfStateError(f"VLAN {i.name}: parent {i.parent} does not exist")
            out.append(f"link add link {i.parent} name {i.name} type vlan id {i.vid}")
            after.add(i.name)
    missing = sorted(i.name for i in ifs if i.name not in after)
    if missing:
        raise IfStateError(f"interfaces not on the device: {', '.join(missing)}")
    return out


def _changes(ifs: list[Iface], cur_of: Callable[[str], Iface]) -> list[str]:
    """Bridge membership, MTU, addresses and admin state of interfaces that all exist."""
    out = [f"link set {i.name} {f'master {i.master}' if i.master else 'nomaster'}"
           for i in ifs if cur_of(i.name).master != i.master]
    # MTU: raise ports before the VLANs and bridges on them; lower in the reverse order.
    changes = [i for i in ifs if i.mtu is not None and cur_of(i.name).mtu != i.mtu]
    up_mtu = [i for i in changes if (cur_of(i.name).mtu or 0) < (i.mtu or 0)]
    down_mtu = [i for i in changes if i not in up_mtu]
    out += [f"link set {i.name} mtu {i.mtu}" for i in sorted(up_mtu, key=lambda i: (_LEVEL[i.kind], i.name))]
    out += [f"link set {i.name} mtu {i.mtu}" for i in sorted(down_mtu, key=lambda i: (-_LEVEL[i.kind], i.name))]
    # addresses: removals first, so a moved prefix never exists twice.
    for i in ifs:
        out += [f"addr del {a} dev {i.name}" for a in sorted(cur_of(i.name).addrs - i.addrs, key=_addr_key)]
    for i in ifs:
        out += [f"addr add {a} dev {i.name}" for a in sorted(i.addrs - cur_of(i.name).addrs, key=_addr_key)]
    # admin state, where stated.
    out += [f"link set {i.name} {'up' if i.up else 'down'}"
            for i in ifs if i.up is not None and bool(cur_of(i.name).up) != i.up]
    return out


# --------------------------------------------------------------------------------------
# On the device
# --------------------------------------------------------------------------------------


def read_running() -> State:
    def ip_json(*args: str) -> list[dict]:
        return json.loads(subprocess.run(["ip", "-j", *args], check=True,
                                         capture_output=True, text=True).stdout)

    return from_ip_json(ip_json("-d", "link", "show"), ip_json("addr", "show"))


def _names(arg: str | None) -> set[str]:
    return {n for n in (arg or "").replace(",", " ").split() if n}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="boothnet interface state (device side)")
    sub = p.add_subparsers(dest="cmd", required=True)
    ap = sub.add_parser("apply", help="take the interfaces to a batch's state")
    ap.add_argument("target")
    ap.add_argument("--scope", help="extra interface names (virtual ones absent get deleted)")
    ap.add_argument("--dry-run", action="store_true", help="print the delta only")
    sp = sub.add_parser("snapshot", help="print the running state of some interfaces")
    sp.add_argument("--names", required=True)
    args = p.parse_args(argv)
    running = read_running()
    if args.cmd == "snapshot":
        sys.stdout.write(render_batch(snapshot(running, _names(args.names))))
        return 0
    try:
        with open(args.target, encoding="utf-8") as f:
            target = parse_batch(f.read())
        stmts = delta(running, target, _names(args.scope))
    except (OSError, IfStateError) as exc:
        print(f"ifstate: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write("".join(s + "\n" for s in stmts))
    if args.dry_run or not stmts:
        return 0
    run = subprocess.run(["ip", "-batch", "-"], input="".join(s + "\n" for s in stmts),
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"ifstate: ip -batch failed: {run.stderr.strip()}", file=sys.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
