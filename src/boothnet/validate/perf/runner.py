"""How perf code runs a command on a node, and background servers/listeners on top of it.

A ``Runner`` is any callable ``(node, argv, timeout) -> CommandResult``. The default runs
``ip netns exec <node> argv`` locally; an SSH runner only needs the same signature.
Background processes are started through the same runner (``setsid -f``) and record
their pid in a per-node pidfile, so they are stopped by id, never by name.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from boothnet.poll import poll


@dataclass(frozen=True)
class CommandResult:
    node: str
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """stdout and stderr together, as a person would have seen them."""
        return self.stdout + (("\n" + self.stderr) if self.stderr else "")


class Runner(Protocol):
    def __call__(
        self, node: str, argv: Sequence[str], timeout: float | None = None
    ) -> CommandResult: ...


def _run(
    node: str, full: Sequence[str], argv: Sequence[str], timeout: float | None
) -> CommandResult:
    try:
        done = subprocess.run(
            list(full), capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        def _text(b: bytes | str | None) -> str:
            return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")

        return CommandResult(node, tuple(argv), 124, _text(exc.stdout), _text(exc.stderr), True)
    return CommandResult(node, tuple(argv), done.returncode, done.stdout, done.stderr)


def json_list(runner: Runner, node: str, argv: list[str], timeout: float = 10) -> list[dict[str, Any]]:
    """A `-j` command's JSON list (iproute2, bridge); [] when it failed or printed no list."""
    result = runner(node, argv, timeout)
    try:
        data = json.loads(result.stdout or "[]")
    except ValueError:
        return []
    return data if isinstance(data, list) else []


def netns_runner(node: str, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
    """Run ``argv`` inside network namespace ``node`` (needs root)."""
    return _run(node, ["ip", "netns", "exec", node, *argv], argv, timeout)


def local_runner(node: str, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
    """Run ``argv`` on this host, ignoring ``node`` (tests, or the lead's own wrappers)."""
    return _run(node, argv, argv, timeout)


def prefix_runner(prefix: Sequence[str]) -> Runner:
    """A runner that puts ``prefix`` (with ``{node}`` substituted) before argv,
    e.g. ``["ssh", "{node}"]`` or ``["sudo", "ip", "netns", "exec", "{node}"]``."""

    def run(node: str, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
        full = [part.replace("{node}", node) for part in prefix] + list(argv)
        return _run(node, full, argv, timeout)

    return run


# ---------------------------------------------------------------- background processes


@dataclass(frozen=True)
class Background:
    """A detached process on ``node`` whose pid is in ``pidfile`` on that node."""

    node: str
    argv: tuple[str, ...]
    pidfile: str
    port: int | None = None


def scratch_name(runner: Runner | None, node: str) -> str:
    """The part of a pid or log file's name (in /tmp) that tells its run from others: a lab
    node's namespace name already holds its network's; a floor host's gets the network's name
    from its runner, since two intents (or two labs reached as floors) may share a host."""
    scope = getattr(runner, "network", "")
    return f"{scope}-{node}" if scope else node


def pidfile_for(runner: Runner | None, node: str, tool: str, port: int) -> str:
    return f"/tmp/boothnet-{scratch_name(runner, node)}-{tool}-{port}.pid"


def detached_argv(argv: Sequence[str], pidfile: str, limit_s: float) -> list[str]:
    """argv that starts ``argv`` detached, bounded by ``timeout``, pid written to pidfile.

    ``sh`` writes its own pid then execs ``timeout``, so the pid is the one to signal;
    ``timeout`` passes SIGTERM on to the server and kills it at ``limit_s`` regardless.
    """
    script = 'echo $$ >"$0"; exec "$@" </dev/null >/dev/null 2>&1'
    return ["setsid", "-f", "sh", "-c", script, pidfile,
            "timeout", "-k", "5", f"{int(limit_s)}", *argv]


def start_background(
    runner: Runner, node: str, argv: Sequence[str], pidfile: str, *,
    limit_s: float = 300, port: int | None = None, ready_timeout: float = 5.0,
) -> Background:
    """Start ``argv`` detached on ``node``; when ``port`` is given, wait until it listens. A port
    still held (the last run's server closing) is waited for first: a listener seen then would be
    that one, and ours would have failed to bind."""
    if port is not None and not poll(lambda: port not in listening_ports(runner, node), bool, ready_timeout, 0.1):
        raise RuntimeError(f"{node}: TCP port {port} is still held by another listener after "
                           f"{ready_timeout:g} s, so {argv[0]} cannot take it: {_holder(runner, node, port)}")
    started = runner(node, detached_argv(argv, pidfile, limit_s), 10)
    if not started.ok:
        raise RuntimeError(
            f"{node}: could not start {' '.join(argv)}: rc={started.returncode} {started.output}"
        )
    handle = Background(node, tuple(argv), pidfile, port)
    if port is not None and not wait_listening(runner, node, port, ready_timeout):
        stop_background(runner, handle)
        raise RuntimeError(f"{node}: {argv[0]} did not listen on TCP port {port} "
                           f"within {ready_timeout:g} s")
    return handle


def stop_background(runner: Runner, handle: Background, timeout: float = 5.0) -> None:
    """Stop the process by the pid in its pidfile (it may have exited already), and wait until it
    is gone: ``timeout`` exits only after the server it bounds, so its port is free again. A
    zombie is gone: it closed its sockets when it exited, and a detached process is reaped by the
    node's init, which may take its time (1.5 s per stop on a machine whose init reaps slowly)."""
    runner(handle.node, ["pkill", "-F", handle.pidfile], 10)
    pid = runner(handle.node, ["cat", handle.pidfile], 10).stdout.strip()
    if pid.isdigit():
        poll(lambda: _running(runner, handle.node, pid), lambda running: not running, timeout, 0.1)
    runner(handle.node, ["rm", "-f", handle.pidfile], 10)


def _running(runner: Runner, node: str, pid: str) -> bool:
    state = runner(node, ["ps", "-o", "stat=", "-p", pid], 10)
    return state.returncode == 0 and not state.stdout.strip().startswith("Z")


def _holder(runner: Runner, node: str, port: int) -> str:
    """Who listens on ``port`` (``ss -Hltnp``), and that process's state and command line."""
    held = [line.split()[-1] for line in runner(node, ["ss", "-Hltnp", f"sport = :{port}"], 10).stdout.splitlines()]
    pids = sorted(set(re.findall(r"pid=(\d+)", " ".join(held))))
    ps = runner(node, ["ps", "-o", "pid=,ppid=,stat=,etimes=,args=", "-p", ",".join(pids)], 10).stdout if pids else ""
    return "; ".join([*held, *(" ".join(line.split()) for line in ps.splitlines())]) or "no holder seen any more"


def listening_ports(runner: Runner, node: str) -> set[int]:
    """TCP ports with a listener on ``node`` (``ss -Hltn``)."""
    res = runner(node, ["ss", "-Hltn"], 10)
    ports: set[int] = set()
    for line in res.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 4:
            local = fields[3]
            _, _, port = local.rpartition(":")
            if port.isdigit():
                ports.add(int(port))
    return ports


def wait_listening(runner: Runner, node: str, port: int, timeout: float = 5.0) -> bool:
    return poll(lambda: port in listening_ports(runner, node), bool, timeout, 0.1)
