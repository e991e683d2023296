"""Find the Batfish service and decide whether the stage runs or is SKIPPED."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

BATFISH_PORT = 9996
DOCKER_COMMAND = "docker run -d -p 9996:9996 batfish/allinone"
HOST_ENV = "BATFISH_HOST"


class BatfishUnavailable(RuntimeError):
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
        return f"{self.reason}. Start one with `{DOCKER_COMMAND}` and set {HOST_ENV}=<host>."

    def __str__(self) -> str:
        return "reachable" if self.reachable else "unreachable"


def find_host(host: str | None = None) -> str | None:
    """Explicit host first, then BATFISH_HOST; empty strings count as unset."""
    return (host or os.environ.get(HOST_ENV) or "").strip() or None


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


def service_status(
    host: str | None = None, require: bool = False, timeout: float = 2.0
) -> ServiceStatus:
    """Probe the service; with `require`, an unreachable service is a fatal error."""
    status = probe(host, timeout)
    if not status.reachable and require:
        raise BatfishUnavailable(f"require_batfish is set: {status.skip_reason}")
    return status


def open_session(status: ServiceStatus, network: str = "boothnet"):  # -> pybatfish Session
    """A pybatfish Session on a reachable service, with its network set."""
    from pybatfish.client.session import Session  # imported late: heavy, and only live

    assert status.host is not None and status.reachable, status.reason
    name, port = _split_port(status.host)
    bf = Session(host=name, port=port)
    bf.set_network(network)
    return bf
