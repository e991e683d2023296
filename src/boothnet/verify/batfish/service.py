"""Find the Batfish service and decide whether the stage runs or is SKIPPED."""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from boothnet.errors import Refusal
from boothnet.process import alive

BATFISH_PORT = 9996
DOCKER_COMMAND = "docker run -d -p 127.0.0.1:9996:9996 -p 127.0.0.1:9997:9997 batfish/allinone"
HOST_ENV = "BATFISH_HOST"
STATE_DIR = Path("build/batfish")  # where `boothnet batfish up` records what it started
JAR_ENV = "BATFISH_JAR"
QUESTIONS_ENV = "BATFISH_QUESTIONS"
HOW_TO_START = (
    f"it uses {HOST_ENV}=<host> when that answers, else {JAR_ENV}=<path>/allinone-bundle.jar "
    f"with java 17 (questions/ beside the jar or {QUESTIONS_ENV}), else a Docker daemon "
    "running batfish/allinone"
)


@dataclass
class Started:
    """What `up` started, so that `down` stops exactly that."""

    kind: str  # "java" | "docker" | "found" (one answered already: used, never stopped)
    host: str
    pid: int | None = None
    container: str | None = None
    log: str | None = None


def state_file(state_dir: Path) -> Path:
    return state_dir / "service.json"


def read_started(state_dir: Path | None = None) -> Started | None:
    """The service `up` started and that is still running, or None."""
    path = state_file(state_dir or STATE_DIR)
    try:
        started = Started(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    if started.kind == "java" and (started.pid is None or not alive(started.pid)):
        return None
    return started


class BatfishUnavailable(Refusal, RuntimeError):
    """Raised when Batfish is required (`require_batfish: true`) but not reachable."""


@dataclass(frozen=True)
class ServiceStatus:
    host: str | None
    port: int
    reachable: bool
    reason: str

    @property
    def skip_reason(self) -> str:
        """Why the stage is SKIPPED, and the command that starts a service."""
        return (f"{self.reason}. Start one with `boothnet batfish up` ({HOW_TO_START}), or run "
                f"`{DOCKER_COMMAND}` and set {HOST_ENV}=<host>.")

    def __str__(self) -> str:
        return "reachable" if self.reachable else "unreachable"


def find_host(host: str | None = None, state_dir: Path | None = None) -> str | None:
    """Explicit host first, then BATFISH_HOST, then the service `boothnet batfish up` started
    (recorded in `state_dir`, default build/batfish); empty strings count as unset."""
    found = (host or os.environ.get(HOST_ENV) or "").strip()
    if found:
        return found
    started = read_started(state_dir)
    return started.host if started else None


def _split_port(host: str) -> tuple[str, int]:
    # "host:port" is accepted for tunnels; bare IPv6 literals keep the default port.
    if host.count(":") == 1:
        name, port = host.split(":")
        return name, int(port)
    return host, BATFISH_PORT


def probe(host: str | None = None, timeout: float = 2.0) -> ServiceStatus:
    """TCP-connect to the coordinator port with a short timeout; never hangs a run."""
    found = find_host(host)
    if not found:
        return ServiceStatus(None, BATFISH_PORT, False, f"no Batfish host ({HOST_ENV} unset)")
    name, port = _split_port(found)
    try:
        with socket.create_connection((name, port), timeout=timeout):
            pass
    except OSError as exc:
        return ServiceStatus(found, port, False, f"Batfish at {name}:{port} unreachable ({exc})")
    return ServiceStatus(found, port, True, f"Batfish at {name}:{port} reachable")


@dataclass(frozen=True)
class BatfishAsk:
    """Which Batfish service a review asks and how: its host (None: found as every command finds
    it), whether one that does not answer is fatal, and the Batfish network the snapshots go in."""

    host: str | None = None
    require: bool = False
    network: str = "boothnet-review"

    def status(self) -> ServiceStatus:
        return service_status(self.host, self.require)


ANY_SERVICE = BatfishAsk()  # the service every command finds, not required


def service_status(
    host: str | None = None, require: bool = False, timeout: float = 2.0
) -> ServiceStatus:
    """Probe the service; with `require`, an unreachable service is a fatal error."""
    status = probe(host, timeout)
    if not status.reachable and require:
        raise BatfishUnavailable(f"require_batfish is set: {status.skip_reason}")
    return status


# A service that dies or stops answering mid-run must end the run within about a minute: pybatfish
# waits 30 s per request and retries ten times with a backoff up to two minutes (several minutes
# in all). Its questions answer through short polls, so these bounds cost a healthy service nothing;
# snapshot uploads keep pybatfish's own (no) timeout.
REQUEST_TIMEOUT_S = 15
REQUEST_RETRIES = 2


def _bounded_retries() -> None:
    from pybatfish.client import restv2helper
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    retry = Retry(total=REQUEST_RETRIES, connect=REQUEST_RETRIES, read=REQUEST_RETRIES, backoff_factor=0.5,
                  status_forcelist=[429, 500, 502, 503, 504])
    for session in (restv2helper._requests_session, restv2helper._requests_session_fail_fast):
        for scheme in ("http://", "https://"):
            session.mount(scheme, HTTPAdapter(max_retries=retry))


def open_session(status: ServiceStatus, network: str = "boothnet"):  # -> pybatfish Session
    """A pybatfish Session on a reachable service, with its network set."""
    from pybatfish.client.session import Session  # imported late: heavy, and only live

    assert status.host is not None and status.reachable, status.reason
    _bounded_retries()
    name, port = _split_port(status.host)
    bf = Session(host=name, port=port, timeout=REQUEST_TIMEOUT_S)
    bf.set_network(network)
    return bf
