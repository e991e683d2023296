"""How validate reaches the network it judges: the lab through its namespaces, or a booth's floor
(the booth's own hosts and switches, or the lab reached only through its management network)
over Ansible's connections and NAPALM. Every stage asks the same questions of either."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from boothnet.booth.cables import Cable, CableEnd
from boothnet.deploy.batch import Session, in_parallel
from boothnet.intent.model import Network
from boothnet.lab import detect_vlan_mode, ns_name
from boothnet.validate.drift import DriftTarget
from boothnet.validate.perf.runner import Runner, netns_runner

# what validate runs on a floor host -> the Debian package that provides it
TOOLS = {"python3": "python3", "ping": "iputils-ping", "ip": "iproute2", "ss": "iproute2", "timeout": "coreutils",
         "setsid": "util-linux", "pkill": "procps", "iperf3": "iperf3", "nuttcp": "nuttcp",
         "arp-scan": "arp-scan"}


def missing_line(host: str, tools: Iterable[str]) -> str:
    return f"{host} lacks " + ", ".join(f"{t} (Debian package {TOOLS[t]})" for t in sorted(tools))


@dataclass
class FloorDevices:
    """The floor's switches and routers as deploy-hw reaches them: an open NAPALM session each
    (or why it could not be opened) and what each was deployed with, for drift."""

    sessions: Mapping[str, Session]
    drift: list[DriftTarget]
    # what a device calls a cable's ports: the intent's own names on hardware, eth<N> on a lab stand-in
    port_names: Callable[[CableEnd, Cable], list[str]]
    # a lab stand-in's port names by device and intent port (lab.plan.port_map); none on hardware
    stand_in_ports: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    stand_in_vlan_mode: str | None = None  # the lab's VLAN mode when the floor is the lab; None on hardware

    def port_of(self, device: str, port: str) -> str:
        """What ``device`` calls the intent's ``port``."""
        return self.stand_in_ports.get(device, {}).get(port, port)

    def intent_port(self, device: str, name: str) -> str:
        """The intent's name for what ``device`` calls ``name``."""
        return next((port for port, own in self.stand_in_ports.get(device, {}).items() if own == name), name)

    def read(self, devices: Iterable[str], getter: str) -> dict[str, Any]:
        """``getter`` of every device in ``devices`` at once (one call each: a NAPALM session is
        not shared between threads): device -> its result, or a str saying why there is none."""
        def one(device: str) -> Any:
            driver, why = self.driver(device)
            if driver is None:
                return why
            try:
                return getattr(driver, getter)()
            except Exception as exc:  # every driver has its own errors
                return f"{getter} failed: {type(exc).__name__}: {exc}"

        wanted = sorted(set(devices))
        return dict(zip(wanted, in_parallel(wanted, one), strict=True))

    def ospf_down(self) -> list[str]:
        """Every OSPF adjacency the intent implies that a device does not have now, by device and
        interface (NAPALM get_ospf_neighbors where the driver has it): why routes are missing."""
        from boothnet.deploy.health import adjacency_failures, intended_neighbors
        from boothnet.deploy.steps import model_or_empty

        intended = {t.device: found for t in self.drift if (found := intended_neighbors(model_or_empty(t.config_dir)))}
        read = self.read(intended, "get_ospf_neighbors")
        return [f"{device}: {line}" for device, neighbors in read.items() if not isinstance(neighbors, str)
                for line in adjacency_failures(set(), neighbors, intended[device])]

    def driver(self, device: str) -> tuple[Any, str]:
        """(the device's open driver, "") or (None, why it has none)."""
        session = self.sessions.get(device)
        if session is None:
            return None, f"{device} is not in the inventory's network_devices"
        return session.driver, session.error


@dataclass
class Access:
    kind: Literal["lab", "floor"]
    runner: Runner
    node: Callable[[str], str]  # an endpoint's or device's name -> the runner's node
    lab_dir: Path | None = None  # the lab's state folder (lab only)
    devices: FloorDevices | None = None  # floor only
    unreachable: dict[str, str] = field(default_factory=dict)  # floor host -> why it could not be reached
    missing: dict[str, set[str]] = field(default_factory=dict)  # floor host -> the tools it lacks

    def routers(self) -> Path | list[DriftTarget]:
        """The routers a run reads, as deploy reaches them: the lab's state folder (its inventory
        names them), or a floor's devices."""
        if self.devices is not None:
            return self.devices.drift
        if self.lab_dir is None:
            raise ValueError("the lab's state folder is not known: its routers cannot be read")
        return self.lab_dir

    def why_not(self, host: str, *tools: str) -> str | None:
        """Why ``host`` cannot run ``tools`` (unreachable, or lacking one), or None when it can."""
        if host in self.unreachable:
            return f"{host}: {self.unreachable[host]}"
        if lacking := self.missing.get(host, set()) & set(tools):
            return missing_line(host, lacking)
        return None

    @property
    def on_floor(self) -> bool:
        return self.kind == "floor"

    @property
    def forwards_here(self) -> bool:
        """Whether the network under test forwards on this machine's cores, beside the tools: the
        lab, or the lab reached as a floor (validate-hw --lab); a measurement slowed while they were
        saturated is then this machine's ceiling (lab_cpu_bound). Never a real floor."""
        return not self.on_floor or (self.devices is not None and self.devices.stand_in_vlan_mode is not None)

    def trunk_per_vlan(self) -> bool:
        """Whether a trunk is one wire per VLAN (a lab on a kernel without 802.1Q), so that its
        VLANs do not share its speed."""
        if self.on_floor:
            return self.devices is not None and self.devices.stand_in_vlan_mode == "segment"
        return detect_vlan_mode() == "segment"

    def has_shell(self, device: str) -> bool:
        """Whether commands run on ``device`` (a lab node, or a floor host Ansible reaches);
        an IOS or EOS switch answers NAPALM only."""
        hosts = getattr(self.runner, "hosts", None)  # an AnsibleRunner's: the hosts it has a connection for
        return not self.on_floor or hosts is None or self.node(device) in hosts


def lab_access(net: Network, lab_dir: Path | None = None, runner: Runner = netns_runner) -> Access:
    return Access("lab", runner, partial(ns_name, net.name), lab_dir=lab_dir)


def floor_access(runner: Runner, devices: FloorDevices) -> Access:
    """Hosts found unreachable are the runner's too: it answers for them at once from then on."""
    return Access("floor", runner, str, devices=devices, unreachable=getattr(runner, "unreachable", {}))
