"""LLDP in the lab: one ``lldpd`` per node, in its namespace, with a control socket of its own, so
that each node says who it is on every wire and the cabling stage can ask what it hears.

The sockets live under /run (a Unix socket path is at most 107 bytes; a build folder under
pytest's tmp is longer) and ``lab_down`` removes them with the lab's namespaces.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from boothnet.booth.cables import Cable, CableEnd
from boothnet.booth.lldp import Heard, parse_lldpcli
from boothnet.intent.model import Network
from boothnet.lab.names import MGMT_IF
from boothnet.lab.plan import HOST_IFNAME, port_map
from boothnet.lab.services import in_ns, kill_pids, pids_in_namespaces, run
from boothnet.platforms import frr_linux
from boothnet.process import alive

LLDPD = "/usr/sbin/lldpd"
LLDPCLI = "lldpcli"
SOCKET_DIR = Path("/run/boothnet/lldpd")
PID_FILE = Path("/run/lldpd.pid")  # lldpd 1.0 always writes it; no option to move it
TX_INTERVAL_S = 1  # a neighbour is heard a second after its daemon starts
TTL_S = 4 * TX_INTERVAL_S  # lldpd's default hold multiplier: a neighbour gone is forgotten after this


def socket_path(ns: str) -> Path:
    return SOCKET_DIR / f"{ns}.sock"


def lldpd_conf() -> str:
    # Nothing here may change what identifies a neighbour (system name, port id): lldpd sends its
    # first frames before it reads this file, and a neighbour would keep that first identity as a
    # second, stale neighbour for 120 s. The name comes from the node's own UTS namespace instead.
    return "\n".join([
        # the management bridge joins every node: a neighbour there says nothing about cabling
        f"configure system interface pattern *,!{MGMT_IF},!lo",
        f"configure lldp tx-interval {TX_INTERVAL_S}",
        "",
    ])


def _files(ns: str) -> list[Path]:
    """The socket, lldpcli's lock beside it, the configuration and the hosts file of ``ns``'s lldpd."""
    sock = socket_path(ns)
    return [sock, sock.with_name(f"{sock.name}.lock"), SOCKET_DIR / f"{ns}.conf", SOCKET_DIR / f"{ns}.hosts"]


def start_lldpd(ns: str, node: str) -> int:
    """lldpd in ``ns`` announcing ``node``; returns the pid of its monitor process."""
    SOCKET_DIR.mkdir(parents=True, exist_ok=True)
    sock, _, conf, hosts = _files(ns)
    sock.unlink(missing_ok=True)
    # beside the socket, not in the lab folder: lldpd reads its configuration as its own user,
    # and a lab folder may be private (pytest's tmp is 0700)
    conf.write_text(lldpd_conf())
    # lldpd resolves its host name to a FQDN: from a host whose default route leads into the lab
    # that is a DNS timeout per lookup, so the node's name is in a hosts file of its own
    hosts.write_text(f"127.0.0.1 localhost\n127.0.1.1 {node}\n")
    # its own UTS namespace, so that the system name it announces is the node's from the first
    # frame; `ip netns exec` gives it a private mount namespace for the hosts file
    script = f'hostname "$1" && mount --bind "$4" /etc/hosts && exec {LLDPD} -u "$2" -O "$3"'
    run(in_ns(ns, "unshare", "--uts", "--", "sh", "-c", script, "lldpd", node, str(sock), str(conf), str(hosts)),
        f"lldpd on {node}")
    return _monitor_pid(ns)


def restart_lldpd(ns: str, node: str) -> int:
    """A new lldpd in ``ns``: after a link has been moved into it. lldpd keys a port by its ifindex,
    and a veth moved between namespaces keeps its index when it is free, so the old daemon would go
    on with the socket of the interface that left."""
    kill_pids(_lldpd_pids(ns))
    return start_lldpd(ns, node)


def _monitor_pid(ns: str) -> int:
    """The first lldpd process in ``ns`` (it renames itself, so its pid is found by namespace)."""
    found = _lldpd_pids(ns)
    if not found:
        raise RuntimeError(f"lldpd in {ns}: no process after start")
    return min(found)


def _lldpd_pids(ns: str) -> list[int]:
    found = []
    for pid in pids_in_namespaces([ns])[ns]:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "lldpd":
                found.append(pid)
        except OSError:
            continue  # gone meanwhile
    return found


def neighbours(ns: str, timeout: float = 10) -> dict[str, list[Heard]]:
    """Local interface -> the neighbours it hears, from the node's lldpd."""
    return parse_lldpcli(run([LLDPCLI, "-u", str(socket_path(ns)), "-f", "json0", "show", "neighbors"],
                             f"lldpcli for {ns}", timeout=timeout))


def remove_files(namespaces: set[str]) -> list[str]:
    """The lldpd files of ``namespaces``, and lldpd's pid file when no lldpd is left to own it."""
    removed = []
    for ns in sorted(namespaces):
        for path in _files(ns):
            if path.exists():
                path.unlink()
                removed.append(str(path))
    try:
        owner_runs = alive(int(PID_FILE.read_text().strip()))
    except (OSError, ValueError):
        owner_runs = False
    if not owner_runs and PID_FILE.exists():
        PID_FILE.unlink()
        removed.append(str(PID_FILE))
    return removed


def lab_ifnames(net: Network, vlan_mode: str) -> Callable[[CableEnd, Cable], list[str]]:
    """A cable end's interfaces in the lab: the port map's eth<N> (a trunk in segment mode is one
    wire per VLAN), a host's eth0."""
    ports = port_map(net)

    def ifnames(end: CableEnd, cable: Cable) -> list[str]:
        if not end.port:
            return [HOST_IFNAME]
        name = ports[end.device][end.port]
        if cable.mode == "trunk" and vlan_mode == "segment":
            return [frr_linux.trunk_member(name, vid, vlan_mode) for vid, _ in cable.vlans]
        return [name]

    return ifnames
