"""Isolation prober: from one host, every probe of the matrix at once (non-blocking sockets and
ping processes), each classified by what came back within the timeout.

argv: a JSON list of [destination, proto, port], the timeout in seconds, and optionally a
reference address that answers pings (the host's gateway). Prints one JSON list of
states, in order: tcp open / refused / timeout / unreachable / error:<name>; udp echo / refused /
timeout / unreachable / error:<name>; icmp reply / timeout / unreachable.

A probe still unanswered is a drop once the timeout has passed, or sooner once the answers that
did come (the reference's among them) show how fast this host's paths answer: ANSWERED_WAITS
times the slowest answer, never under QUICKEST_S (a SYN or datagram lost once is sent again at
1 s), never over the timeout. With no answer at all the whole timeout is waited. The
destinations' responders log every arrival until validate stops them, after every prober has
ended, so a probe that got through after its prober stopped waiting still counts as reached.
Runs with the system python3: standard library only.
"""

from __future__ import annotations  # annotations unevaluated: a host's older python3 runs this too

import contextlib
import errno
import json
import re
import resource
import selectors
import signal
import socket
import subprocess
import sys
import time
from typing import cast

targets = json.loads(sys.argv[1])
timeout = float(sys.argv[2])
ping_wait = str(max(1, int(timeout)))  # ping's -w and -W take whole seconds
reference = sys.argv[3] if len(sys.argv) > 3 else None
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
UNREACHABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH}
QUICKEST_S = 1.5
ANSWERED_WAITS = 4  # as a TCP retransmission timeout is a smoothed round trip plus four deviations
RESENDS_S = (0.5, 1.0)  # UDP is allowed to lose a datagram: each is sent up to 3 times


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
            ["ping", "-n", "-c", "3", "-i", "0.5", "-w", ping_wait, destination],
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

start = time.monotonic()
deadline = start + timeout
resends = list(RESENDS_S)
referee = subprocess.Popen(["ping", "-n", "-c", "1", "-W", ping_wait, reference],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if reference else None


def wait_after(answer: float) -> float:
    """The deadline once an answer came at ``answer``: the slowest yet, as answers come in order."""
    return start + min(timeout, max(QUICKEST_S, ANSWERED_WAITS * (answer - start)))


while (selector.get_map() or any(p.poll() is None for p in pings.values())) and time.monotonic() < deadline:
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
        deadline = wait_after(time.monotonic())
        selector.unregister(sock)
        sock.close()
    if referee is not None and referee.poll() is not None:
        if referee.returncode == 0:
            deadline = wait_after(time.monotonic())
        referee = None
    if resends and time.monotonic() >= start + resends[0]:
        resends.pop(0)
        for index, (sock, token) in datagrams.items():
            if states[index] is None:
                with contextlib.suppress(OSError):
                    sock.send(token)
if referee is not None:
    referee.kill()
    referee.wait()
for key in list(selector.get_map().values()):
    states[key.data] = "timeout"
    cast(socket.socket, key.fileobj).close()
for index, process in pings.items():
    if process.poll() is None:
        process.send_signal(signal.SIGINT)  # ping prints what it received, then exits
    output = process.communicate()[0]
    received = re.search(r"(\d+) (packets )?received", output)
    states[index] = ("reply" if received and int(received.group(1)) > 0
                     else "unreachable" if "nreachable" in output else "timeout")
print(json.dumps(states))
