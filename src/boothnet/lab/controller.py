"""A controller for the lab that reaches it only through its management network, the way a laptop
sits on a booth's management VLAN: a namespace whose one link joins the lab's management bridge.
The floor path runs there when the lab stands in for a floor. lab_down removes it like any other
namespace of the lab (it carries the lab's tag), should a run be killed."""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from boothnet.lab import names, net, services
from boothnet.lab.state import LabState, read_state

CONTROLLER = "floor-controller"


class LabNotUp(RuntimeError):
    pass


def _free_address(state: LabState) -> ipaddress.IPv4Interface:
    """The management subnet's highest address no node and not the bridge holds."""
    subnet = ipaddress.ip_network(str(state.mgmt_subnet))
    used = {ipaddress.ip_interface(str(state.bridge_address)).ip}
    used |= {ipaddress.ip_interface(node["mgmt_address"]).ip for node in state.nodes.values()}
    free = next(ip for ip in reversed(list(subnet.hosts())) if ip not in used)
    return ipaddress.IPv4Interface(f"{free}/{subnet.prefixlen}")


@contextmanager
def management_controller(network: str, state_dir: Path) -> Iterator[tuple[str, ipaddress.IPv4Interface]]:
    """(namespace, its address) for the block; gone afterwards with every process it started."""
    state = read_state(state_dir)
    if not state or not state.up:
        raise LabNotUp(f"lab {network} is not up ({state_dir}): `boothnet lab-up -n {network}` first")
    ns, peer = names.ns_name(network, CONTROLLER), names.mgmt_peer_name(network, CONTROLLER)
    address = _free_address(state)
    if net.ns_exists(ns):  # left by a killed run
        services.kill_namespaces([ns])
        net.delete_root_link(peer)
        net.remove_namespace(ns)
    net.create_namespace(ns, names.alias(network, CONTROLLER))
    try:
        net.add_mgmt_veth(ns, peer, str(state.bridge), str(address), names.alias(network, f"mgmt:{CONTROLLER}"))
        yield ns, address
    finally:
        services.kill_namespaces([ns])  # ssh's ControlPersist masters among them
        net.delete_root_link(peer)
        net.remove_namespace(ns)


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _serve(listener: socket.socket, port: int) -> None:
    """Each connection to the controller's localhost:port joined to this machine's localhost:port."""
    while True:
        try:
            inside, _ = listener.accept()
        except OSError:  # the listener closed: the relay is over
            return
        try:
            outside = socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:
            inside.close()
            continue
        outside.settimeout(None)
        for a, b in ((inside, outside), (outside, inside)):
            threading.Thread(target=_pump, args=(a, b), daemon=True).start()


@contextmanager
def localhost_relay(ns: str, ports: list[int]) -> Iterator[None]:
    """This machine's localhost ``ports`` (the Batfish service) on the controller's localhost too,
    as a laptop on the floor runs Batfish itself. The listening sockets are made inside ``ns``
    (setns in a thread of ours, then back), the connections onward from here; nothing listens
    anywhere else."""
    from pyroute2 import netns

    listeners: list[socket.socket] = []
    made: list[BaseException] = []

    def listen() -> None:
        home = os.open(f"/proc/self/task/{threading.get_native_id()}/ns/net", os.O_RDONLY)
        try:
            netns.setns(ns, flags=0)
            for port in ports:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", port))
                s.listen(16)
                listeners.append(s)
        except OSError as exc:
            made.append(exc)
        finally:
            netns.setns(f"/proc/self/fd/{home}", flags=0)
            os.close(home)

    maker = threading.Thread(target=listen)
    maker.start()
    maker.join()
    try:
        if made:
            raise LabNotUp(f"could not relay localhost {ports} into {ns}: {made[0]}")
        for listener, port in zip(listeners, ports, strict=True):
            threading.Thread(target=_serve, args=(listener, port), daemon=True).start()
        yield
    finally:
        for listener in listeners:
            with suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
