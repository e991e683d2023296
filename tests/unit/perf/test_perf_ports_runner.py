from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from boothnet.poll import poll
from boothnet.validate.perf import iperf3, nuttcp
from boothnet.validate.perf.ports import PortAllocator, PortBlock
from boothnet.validate.perf.run import TOOLS, ToolRequest
from boothnet.validate.perf.runner import (
    Background,
    CommandResult,
    detached_argv,
    listening_ports,
    local_runner,
    pidfile_for,
    start_background,
    stop_background,
)


def test_same_test_id_same_block_across_allocators() -> None:
    a, b = PortAllocator(), PortAllocator()
    assert a.allocate("r110 node1->fs1", "fs1").first == b.allocate("r110 node1->fs1", "fs1").first


def test_many_tests_on_one_server_never_overlap() -> None:
    alloc = PortAllocator(slots=64)
    blocks = [alloc.allocate(f"test-{i}", "fs1") for i in range(64)]
    ports = [p for blk in blocks for p in blk.ports]
    assert len(ports) == len(set(ports))
    with pytest.raises(RuntimeError, match="no free block"):
        alloc.allocate("one too many", "fs1")
    # another server node has its own ports
    assert alloc.allocate("test-0", "fs2").first == blocks[0].first


def test_ports_already_listening_are_skipped() -> None:
    alloc = PortAllocator()
    natural = PortAllocator().allocate("t", "n")
    got = alloc.allocate("t", "n", in_use={natural.first + 3})
    assert got.first != natural.first
    assert natural.first + 3 not in got.ports


def test_release_frees_block() -> None:
    alloc = PortAllocator(slots=1)
    blk = alloc.allocate("a", "n")
    alloc.release(blk)
    assert alloc.allocate("b", "n").first == blk.first


def test_listening_ports_parses_ss() -> None:
    ss = ("LISTEN 0 4096 0.0.0.0:5201 0.0.0.0:*\n"
          "LISTEN 0 128 [::]:22 [::]:*\n"
          "LISTEN 0 1 198.18.0.5%eth0:8462 0.0.0.0:*\n")

    def fake(node: str, argv, timeout=None) -> CommandResult:  # type: ignore[no-untyped-def]
        assert argv[0] == "ss"
        return CommandResult(node, tuple(argv), 0, ss, "")

    assert listening_ports(fake, "n") == {5201, 22, 8462}


def test_detached_argv_writes_pid_and_bounds_time(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pidfile = tmp_path / "x.pid"
    res = local_runner("local", detached_argv(["sleep", "30"], str(pidfile), 1), 10)
    assert res.ok
    import time

    for _ in range(50):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.05)
    pid = int(pidfile.read_text())
    import os

    os.kill(pid, 0)  # running now
    for _ in range(80):  # timeout kills it at 1 s
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 15)
        pytest.fail("detached process outlived its time limit")


def test_command_lines() -> None:
    block = PortBlock("t", "n", 5301, 1)
    argv = iperf3.client_argv(ToolRequest("iperf3", "n", "c", "10.0.0.2", block, streams=4, duration=20,
                                          window=4 << 20, mss=8948))
    assert argv[:4] == ["iperf3", "-c", "10.0.0.2", "-p"] and "-J" in argv
    assert argv[argv.index("-P") + 1] == "4" and argv[argv.index("-w") + 1] == str(4 << 20)
    assert argv[argv.index("-M") + 1] == "8948"
    assert iperf3.server_argv(5301) == ["iperf3", "-s", "-1", "-p", "5301"]
    n = nuttcp.client_argv("10.0.0.2", 5310, streams=2, duration=5, window=4 << 20, mss=1400)
    assert {"-fparse", "-N2", "-T5", "-P5310", "-p5311", "-w4096", "-M1400"} <= set(n)
    assert n[-1] == "10.0.0.2"
    with pytest.raises(ValueError):
        iperf3.client_argv(ToolRequest("iperf3", "n", "c", "x", block, streams=0))


def test_a_floor_runs_pid_files_carry_its_network_and_a_lab_nodes_its_namespace() -> None:
    """Two intents (or two labs reached as floors) sharing a host never stop each other's
    listener by a pid file of the same name."""

    class FloorRunner:
        def __init__(self, network: str) -> None:
            self.network = network

    assert pidfile_for(FloorRunner("booth-a"), "h2", "iperf3", 5201) == "/tmp/boothnet-booth-a-h2-iperf3-5201.pid"
    assert pidfile_for(FloorRunner("booth-a"), "h2", "iperf3", 5201) != pidfile_for(FloorRunner("booth-b"), "h2",
                                                                                     "iperf3", 5201)
    assert pidfile_for(local_runner, "lab-mini-h2", "responder", 0) == "/tmp/boothnet-lab-mini-h2-responder-0.pid"


SLOW_TO_EXIT = """
import signal, socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
signal.signal(signal.SIGTERM, lambda *_: (time.sleep(0.5), sys.exit(0)))
time.sleep(30)
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_stopped_server_has_let_go_of_its_port_when_stop_returns(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The WAN runs reuse one port back to back: a server still closing when the next one starts
    made that one fail to bind while the old listener answered the readiness check (the refused
    connection seen once in test_wan_lab)."""
    port = _free_port()
    handle = start_background(local_runner, "local", ["python3", "-c", SLOW_TO_EXIT, str(port)],
                              str(tmp_path / "slow.pid"), limit_s=30, port=port)
    stop_background(local_runner, handle)
    assert port not in listening_ports(local_runner, "local")


ZOMBIE_PARENT = """
import os, sys, time
child = os.fork()
if child == 0:
    os._exit(0)
with open(sys.argv[1], "w") as pidfile:
    pidfile.write(str(child))
print("zombie", flush=True)
time.sleep(30)
"""


def test_a_stopped_server_left_a_zombie_is_gone_at_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A detached server that exited is a zombie until the node's init reaps it (1.5 s per stop
    on a machine whose init reaps slowly): it holds no port any more, so the stop does not wait."""
    pidfile = tmp_path / "zombie.pid"
    parent = subprocess.Popen([sys.executable, "-c", ZOMBIE_PARENT, str(pidfile)], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == "zombie"
        child = pidfile.read_text()
        assert poll(lambda: local_runner("local", ["ps", "-o", "stat=", "-p", child]).stdout.strip(),
                    lambda stat: stat.startswith("Z"), 5, 0.05).startswith("Z")
        started = time.monotonic()
        stop_background(local_runner, Background("local", ("server",), str(pidfile)), timeout=5)
        assert time.monotonic() - started < 2.5  # not the 5 s a zombie "still running" would take
        assert not pidfile.exists()
    finally:
        parent.kill()
        parent.wait()


def test_a_port_still_held_is_waited_for_then_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import socket

    port = _free_port()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        with pytest.raises(RuntimeError, match=rf"local: TCP port {port} is still held by another listener after "
                                               r"0.5 s, so python3 cannot take it: ") as caught:
            start_background(local_runner, "local", ["python3", "-c", SLOW_TO_EXIT, str(port)],
                             str(tmp_path / "x.pid"), port=port, ready_timeout=0.5)
    # the holder named: its socket's process, then that process's state, age and command line
    holder_socket, holder_process = str(caught.value).split(": ", 2)[2].split("; ")
    assert f"pid={os.getpid()}," in holder_socket
    pid, ppid, _state, _age, *command = holder_process.split()
    assert (pid, ppid) == (str(os.getpid()), str(os.getppid())) and "python" in command[0]


def test_one_request_gives_each_tool_its_command_lines_and_names_the_flow_as_the_data_went() -> None:
    request = ToolRequest("iperf3", "ns-h4", "ns-h1", "10.0.0.2", PortBlock("t", "h4", 5310, 2), duration=4, omit=1,
                          window=4 << 20, reverse=True, source="h1", destination_label="h4")
    server, client, timeout, grace = TOOLS["iperf3"].commands(request)
    assert server == iperf3.server_argv(5310) and {"-R", "-O", "-w"} <= set(client) and (timeout, grace) == (25, 5)
    # stopped at its bound with SIGINT, iperf3 prints what it had (hung_at)
    assert client[:7] == ["timeout", "-s", "INT", "-k", "5", "25", "iperf3"]
    # nuttcp has no -O: it runs the omitted second longer, and -r -F for the reverse
    server, client, timeout, grace = TOOLS["nuttcp"].commands(replace(request, tool="nuttcp"))
    assert server == nuttcp.server_argv(5310) and {"-T5", "-r", "-F", "-w4096"} <= set(client) and timeout == 25
    assert client[0] == "nuttcp" and grace == 0
    assert request.ends == ("h4", "h1")  # the server sent
    with pytest.raises(ValueError, match="nuttcp with 2 streams needs 3 ports, the block has 2"):
        TOOLS["nuttcp"].commands(replace(request, tool="nuttcp", streams=2))
