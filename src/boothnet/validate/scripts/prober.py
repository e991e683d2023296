"""Isolation prober: from one host, every probe of the matrix at once (non-blocking sockets and
ping processes), each classified by what came back within the timeout.

argv: a JSON list of [destination, proto, port] and the timeout in seconds. Prints one JSON list of
states, in order: tcp open / refused / timeout / unreachable / error:<name>; udp echo / refused /
timeout / unreachable / error:<name>; icmp reply / timeout / unreachable.
Runs with the system python3: standard library only.
"""

from __future__ import annotations  # annotations unevaluated: a host's older python3 runs this too

import contextlib
import errno
import json
import resource
import selectors
import socket
import subprocess
import sys
import time
from typing import cast

targets = json.loads(sys.argv[1])
timeout = float(sys.argv[2])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
UNREACHABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH}


def failure(code):
    if code == errno.ECONNREFUSED:
        return "refused"
    if code in UNREACHABLE:
        return "unreachable"
    return f"error:{errno.errorcode.get(code, code)}"


states: list[str | None] = [None] * len(targets)
selector = selectors.DefaultSelector()
pings: dict[int, subprocess.Popen[str]] = {}
datagrams: dict[int, tuple[socket.socket, bytes]] = {}
for index, (destination, proto, port) in enumerate(targets):
    if proto == "icmp":
        pings[index] = subprocess.Popen(
            ["ping", "-n", "-c", "3", "-i", "0.5", "-w", str(max(1, int(timeout))), destination],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        continue
    family = socket.AF_INET6 if ":" in destination else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM)
    sock.setblocking(False)
    if proto == "tcp":
        code = sock.connect_ex((destination, port))
        if code not in (0, errno.EINPROGRESS):
            states[index] = failure(code)
            sock.close()
            continue
        selector.register(sock, selectors.EVENT_WRITE, index)
    else:
        token = f"boothnet probe {index}".encode()
        datagrams[index] = (sock, token)
        try:  # a host without a route to the destination's family refuses the connect itself
            sock.connect((destination, port))
            sock.send(token)
        except OSError as exc:
            states[index] = failure(exc.errno)
            sock.close()
            continue
        selector.register(sock, selectors.EVENT_READ, index)

deadline = time.monotonic() + timeout
resend = time.monotonic() + 0.5  # UDP is allowed to lose a datagram: each is sent up to 3 times
while selector.get_map() and time.monotonic() < deadline:
    for key, _ in selector.select(timeout=0.1):
        index, sock = key.data, cast(socket.socket, key.fileobj)
        if targets[index][1] == "tcp":
            code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            states[index] = "open" if code == 0 else failure(code)
        else:
            try:
                states[index] = "echo" if sock.recv(2048) == datagrams[index][1] else "answered"
            except OSError as exc:
                states[index] = failure(exc.errno)
        selector.unregister(sock)
        sock.close()
    if time.monotonic() >= resend and resend < deadline - 1:
        resend += 0.5
        for index, (sock, token) in datagrams.items():
            if states[index] is None:
                with contextlib.suppress(OSError):
                    sock.send(token)
for key in list(selector.get_map().values()):
    states[key.data] = "timeout"
    cast(socket.socket, key.fileobj).close()
for index, process in pings.items():
    output = process.communicate()[0]
    states[index] = ("reply" if process.returncode == 0
                     else "unreachable" if "nreachable" in output else "timeout")
print(json.dumps(states))
