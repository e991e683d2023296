"""Isolation responder: listens on every probed TCP and UDP port of one host's data addresses,
answers each probe and logs who reached it, so that the prober can tell a delivery from a drop.

argv: bind-addresses tcp-ports udp-ports log-path (addresses and ports comma-separated; an
address of either family). The log's first line is "ready" and the ports that could not be
bound, as <proto>/<port>/<IP version>:<why>; then one "seen <proto> <port> <peer>" per probe.
Runs with the system python3: standard library only.
"""

from __future__ import annotations  # annotations unevaluated: a host's older python3 runs this too

import resource
import selectors
import socket
import sys
from typing import cast

addresses, tcp_ports, udp_ports, log_path = sys.argv[1:5]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
log = open(log_path, "w", buffering=1)  # noqa: SIM115 - open for the process's life
selector = selectors.DefaultSelector()
failed: list[str] = []
for address, (proto, ports, kind) in ((a, p) for a in addresses.split(",") for p in (
        ("tcp", tcp_ports, socket.SOCK_STREAM), ("udp", udp_ports, socket.SOCK_DGRAM))):
    for port in filter(None, ports.split(",")):
        sock = socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET, kind)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, int(port)))
            if proto == "tcp":
                sock.listen(128)
        except OSError as exc:
            version = 6 if ":" in address else 4
            failed.append(f"{proto}/{port}/{version}:{(exc.strerror or str(exc.errno)).replace(' ', '_')}")
            sock.close()
            continue
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, (proto, int(port)))
log.write(" ".join(["ready", *failed]) + "\n")
while True:
    for key, _ in selector.select():
        proto, port = key.data
        sock = cast(socket.socket, key.fileobj)
        try:
            if proto == "tcp":
                conn, peer = sock.accept()
                log.write(f"seen tcp {port} {peer[0]}\n")
                conn.close()
            else:
                data, peer = sock.recvfrom(2048)
                log.write(f"seen udp {port} {peer[0]}\n")
                sock.sendto(data, peer)
        except OSError:
            pass
