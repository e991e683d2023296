"""Start and stop a Batfish service for this machine: `boothnet batfish up|down|status`.

The ways to get one, in order: `BATFISH_HOST` already answering (or a service already answering
on localhost); `BATFISH_JAR` (Batfish's
allinone jar, run with `java` in the background, state under build/batfish/); a Docker daemon
(`batfish/allinone`). `down` stops only what `up` started, recorded in build/batfish/service.json.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from boothnet.errors import Refusal
from boothnet.process import alive
from boothnet.verify.batfish import service
from boothnet.verify.batfish.service import (
    BATFISH_PORT,
    HOST_ENV,
    HOW_TO_START,
    JAR_ENV,
    QUESTIONS_ENV,
    Started,
    probe,
    read_started,
    state_file,
)

HEAP_ENV = "BATFISH_HEAP"
BIND_ENV = "BATFISH_BIND"
# Batfish's own default, 0.0.0.0, would let anyone who reaches a booth laptop read every uploaded
# config and upload snapshots: loopback unless the user widens it on purpose.
DEFAULT_BIND = "127.0.0.1"
SERVICE_PORTS = (BATFISH_PORT, 9997)
# Batfish keeps every loaded snapshot in the heap: 6 GB holds floors up to 200 devices and leaves
# room for the lab on a 24 GB machine; the 500-device floor needs 12g (docs/benchmarks.md).
DEFAULT_HEAP = "6g"
DOCKER_IMAGE = "batfish/allinone"
CONTAINER = "boothnet-batfish"


class BatfishStartError(Refusal, RuntimeError):
    """No way to start a service, or the one started did not answer."""


def _docker_answers() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _wait_until_answering(host: str, timeout: float, is_running: Callable[[], bool],
                          log: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe(host, timeout=1.0).reachable:
            return
        if not is_running():
            raise BatfishStartError(f"Batfish exited while starting; see {log}")
        time.sleep(0.5)
    raise BatfishStartError(f"Batfish did not answer on {host}:{BATFISH_PORT} within {timeout:.0f} s; "
                            f"see {log}")


def _start_java(jar: Path, state_dir: Path, timeout: float) -> Started:
    if not jar.is_file():
        raise BatfishStartError(f"{JAR_ENV}={jar}: no such file")
    questions = Path(os.environ.get(QUESTIONS_ENV) or jar.parent / "questions")
    if not questions.is_dir():
        raise BatfishStartError(f"Batfish questions not found at {questions}: put questions/ beside "
                                f"the jar or set {QUESTIONS_ENV}")
    java = shutil.which("java")
    if not java:
        raise BatfishStartError(f"{JAR_ENV} is set but java is not installed "
                                "(Debian: openjdk-17-jre-headless; `make setup` installs it)")
    containers = (state_dir / "containers").resolve()
    containers.mkdir(parents=True, exist_ok=True)
    log = state_dir / "batfish.log"
    heap = os.environ.get(HEAP_ENV) or DEFAULT_HEAP
    with log.open("w") as out:
        proc = subprocess.Popen(
            [java, f"-Xmx{heap}", "-cp", str(jar.resolve()), "org.batfish.allinone.Main",
             "-runclient", "false", "-loglevel", "warn", "-coordinatorargs",
             f"-templatedirs {questions.resolve()} -periodassignworkms=5 "
             f"-containerslocation {containers} -workbindhost {bind_address()} -poolbindhost {bind_address()}"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    started = Started("java", "localhost", pid=proc.pid, log=str(log))
    state_file(state_dir).write_text(json.dumps(asdict(started)))
    try:
        _wait_until_answering("localhost", timeout, lambda: proc.poll() is None, str(log))
    except BatfishStartError:
        stop(state_dir)
        raise
    return started


def _start_docker(state_dir: Path, timeout: float) -> Started:
    subprocess.run(["docker", "rm", "-f", CONTAINER], capture_output=True)
    published = [arg for port in SERVICE_PORTS for arg in ("-p", f"{bind_address()}:{port}:{port}")]
    run = subprocess.run(["docker", "run", "-d", "--name", CONTAINER, *published, DOCKER_IMAGE],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise BatfishStartError(f"docker run {DOCKER_IMAGE} failed: {run.stderr.strip()}")
    started = Started("docker", "localhost", container=CONTAINER, log=f"docker logs {CONTAINER}")
    state_file(state_dir).write_text(json.dumps(asdict(started)))
    _wait_until_answering("localhost", timeout, lambda: True, started.log or "")
    return started


def bind_address() -> str:
    return (os.environ.get(BIND_ENV) or "").strip() or DEFAULT_BIND


def listening_addresses(ports: tuple[int, ...] = SERVICE_PORTS) -> list[str]:
    """The local addresses the service's ports listen on, as ``ss`` reads them from the kernel."""
    try:
        out = subprocess.run(["ss", "-Hltn"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3].rsplit(":", 1)[-1] in {str(p) for p in ports}:
            found.append(fields[3])
    return sorted(set(found))


def listening_note() -> str:
    where = listening_addresses()
    if not where:
        return ""
    wide = [a for a in where if a.rsplit(":", 1)[0] not in ("127.0.0.1", "[::1]", "[::ffff:127.0.0.1]")]
    warning = "; reachable from other machines" if wide else ""
    return f"; listening on {', '.join(where)}{warning}"


def up(state_dir: Path | None = None, timeout: float = 180.0) -> tuple[str, Started | None]:
    """A service answering on return: (host, what was started or None when one was found)."""
    state_dir = state_dir or service.STATE_DIR
    state_dir.mkdir(parents=True, exist_ok=True)
    env_host = (os.environ.get(HOST_ENV) or "").strip()
    if env_host and probe(env_host).reachable:
        return env_host, None
    running = read_started(state_dir)
    if running and probe(running.host).reachable:
        return running.host, None
    if probe("localhost", timeout=1.0).reachable:
        # one answers here already, started another way: recorded so that every command uses
        # it, never stopped by `down`
        state_file(state_dir).write_text(json.dumps(asdict(Started("found", "localhost"))))
        return "localhost", None
    jar = (os.environ.get(JAR_ENV) or "").strip()
    if jar:
        started = _start_java(Path(jar), state_dir, timeout)
    elif _docker_answers():
        started = _start_docker(state_dir, timeout)
    else:
        why = f"{HOST_ENV}={env_host} does not answer; " if env_host else ""
        raise BatfishStartError(f"no Batfish service: {why}{HOW_TO_START}")
    return started.host, started


def stop(state_dir: Path | None = None) -> str:
    """Stop what `up` started (nothing else); says what it did."""
    state_dir = state_dir or service.STATE_DIR
    path = state_file(state_dir)
    try:
        started = Started(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return "no Batfish service started by boothnet"
    if started.kind == "java" and started.pid and alive(started.pid):
        os.killpg(started.pid, signal.SIGTERM)
        for _ in range(40):
            if not alive(started.pid):
                break
            time.sleep(0.25)
        else:
            os.killpg(started.pid, signal.SIGKILL)
    elif started.kind == "docker" and started.container:
        subprocess.run(["docker", "rm", "-f", started.container], capture_output=True)
    elif started.kind == "found":
        path.unlink(missing_ok=True)
        return f"Batfish at {started.host} left running: boothnet did not start it"
    path.unlink(missing_ok=True)
    return f"Batfish stopped ({started.kind}{f' pid {started.pid}' if started.pid else ''})"


def status(state_dir: Path | None = None) -> tuple[bool, str]:
    """(answering, a line for the user)."""
    state_dir = state_dir or service.STATE_DIR
    env_host = (os.environ.get(HOST_ENV) or "").strip()
    if env_host:
        st = probe(env_host)
        return st.reachable, st.reason + listening_note()
    running = read_started(state_dir)
    if running:
        st = probe(running.host)
        how = ("found running, used by boothnet, never stopped by it" if running.kind == "found"
               else f"started by boothnet: {running.kind}, log {running.log}")
        return st.reachable, f"{st.reason} ({how}){listening_note()}"
    if probe("localhost", timeout=1.0).reachable:
        return False, ("a Batfish service answers on localhost but boothnet was not told to use it: "
                       "`boothnet batfish up` takes it (or set BATFISH_HOST=localhost)")
    return False, f"no Batfish service: {HOW_TO_START}"
