"""Simulated Cisco IOS and Arista EOS devices under NAPALM's real ``ios`` and ``eos`` drivers.

The way NAPALM tests its drivers (``test/ios/conftest.py``, ``test/eos/conftest.py``): the
driver class is the real one; only its transport is replaced. ``SimulatedIOSDriver`` gets a
netmiko-like connection and an SCP stand-in, ``SimulatedEOSDriver`` a pyeapi-like node. Every
line of NAPALM's code between boothnet and the transport runs: command strings, output
parsing, the commit-confirm and revert commands, its error detection.

What the device says comes from real recordings where one exists (``../recorded``: NAPALM's
and ntc-templates' captures of IOS-XE and EOS devices): show version, show hosts, show ip
interface brief, show archive, the running configs a first deploy replaces, the blocks
``show interfaces`` and ``show ip ospf neighbor`` are built from. What a recording cannot
give, this model renders itself, in the format of the recordings and the vendors' guides:
the contextual (IOS) and unified (EOS) diffs of *this* candidate, the rollback-timer and
session states, ``configure replace`` results, the list of interfaces a config has. A test
that passes here proves boothnet drives the real drivers correctly against these answers;
it does not prove a real switch answers the same way (the notes of issue 16 list which).

What the switch *is* comes from ``floor.yml``, not from boothnet: its ports as its hardware has
them (``show interfaces`` lists those and the logical interfaces its config creates; a config
naming another port is refused, as a real switch refuses it) and the OSPF routers on its
subnets (a neighbour is reported where the running config has an interface in that subnet, not
shut down, covered by a ``network`` statement and not passive).

A device is created on first connection by hostname and kept in :data:`DEVICES`, so a
second session (the health check's) sees what the first one committed. Its clock only moves
when :func:`advance` is called: a test decides when a revert timer runs out.
"""

from __future__ import annotations

import difflib
import ipaddress
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyeapi.eapilib
import yaml
from napalm.eos.eos import EOSDriver
from napalm.ios.ios import IOSDriver

from boothnet.deploy import owned
from boothnet.platforms import platforms
from boothnet.readback import read_config

RECORDED = Path(__file__).resolve().parent.parent / "recorded"


FLOOR = yaml.safe_load((Path(__file__).resolve().parent / "floor.yml").read_text(encoding="utf-8"))
LOGICAL = ("Vlan", "Loopback", "Port-Channel", "Port-channel", "Tunnel")  # created by configuring them


def recorded(*parts: str) -> str:
    return (RECORDED.joinpath(*parts)).read_text(encoding="utf-8")


def expand(names: list[str]) -> list[str]:
    """``Ethernet{1-3}`` -> Ethernet1, Ethernet2, Ethernet3."""
    out = []
    for name in names:
        m = re.fullmatch(r"(.*)\{(\d+)-(\d+)\}", name)
        out += [f"{m.group(1)}{n}" for n in range(int(m.group(2)), int(m.group(3)) + 1)] if m else [name]
    return out


@dataclass
class Device:
    """One simulated switch: its configs, pending commit and faults a test plants."""

    hostname: str
    platform: str  # "ios" or "eos"
    running: str
    user: str = "admin"
    archive: bool = True  # IOS `archive` configured (NAPALM's revert timer needs it)
    flash: dict[str, str] = field(default_factory=dict)
    sessions: dict[str, dict[str, str]] = field(default_factory=dict)  # EOS configure sessions
    pending: dict[str, Any] | None = None  # commit waiting for confirmation
    clock: float = 0.0
    reverted_by_timer: bool = False
    # faults a test plants
    rejects: str = ""  # a config line the device refuses
    ospf_state: str = "FULL"  # adjacency state `show ip ospf neighbor` reports
    ospf_polls: list[str] = field(default_factory=list)  # states for the next polls, one per poll
    eos_version: str = ""  # EOS release it says it runs; "": the recorded device's (4.30)
    ports: list[str] = field(default_factory=list)  # the hardware's (floor.yml)
    ospf_peers: list[dict[str, str]] = field(default_factory=list)  # the floor's OSPF routers
    down: set[str] = field(default_factory=set)  # interfaces with no link
    drop_session_after_commit: bool = False
    unreachable: bool = False
    # the new config cuts management: no new session answers while the commit waits (its own
    # revert timer brings the old config, and management, back)
    unreachable_while_pending: bool = False
    drift_after_commit: str = ""  # a line something else adds to the running config right after a commit
    log: list[str] = field(default_factory=list)

    def commit(self, new: str, seconds: int, session: str = "") -> None:
        self.pending = {"backup": self.running, "expires": self.clock + seconds, "session": session,
                        "user": self.user}
        self.running = new + (f"{self.drift_after_commit}\n" if self.drift_after_commit else "")

    def confirm(self) -> None:
        assert self.pending is not None
        self.sessions.pop(self.pending["session"], None)
        self.pending = None

    def revert(self) -> None:
        assert self.pending is not None
        self.running = self.pending["backup"]
        self.sessions.pop(self.pending["session"], None)
        self.pending = None

    def interfaces(self) -> list[str]:
        """The hardware's ports, then the logical interfaces the running config creates."""
        logical = [n for n in configured_interfaces(self.running) if n.startswith(LOGICAL)]
        return self.ports + logical

    def missing_ports(self, config: str) -> list[str]:
        """Physical interfaces *config* configures that this switch does not have."""
        return [n for n in configured_interfaces(config) if not n.startswith(LOGICAL) and n not in self.ports]

    def ospf_interfaces(self) -> list[tuple[str, dict[str, str]]]:
        """(interface, peer) for every floor OSPF router the running config forms an adjacency with,
        the config read as the switch reads it (boothnet.readback, its defaults included): routing on,
        the interface up, active (not passive) in the peer's area, with the peer's timers and MTU."""
        facts = read_config(self.running, READ_AS[self.platform], self.hostname)
        if not facts.routing:
            return []
        out = []
        for name, iface in facts.interfaces.items():
            on = iface.ospf
            if on is None or on.passive or iface.shutdown or name in self.down or iface.address is None:
                continue
            out += [(name, peer) for peer in self.ospf_peers
                    if ipaddress.ip_network(peer["subnet"]) == iface.address.network
                    and (on.area, on.hello, on.dead, iface.mtu) == (int(peer.get("area", 0)), int(peer["hello"]),
                                                                    int(peer["dead"]), int(peer["mtu"]))]
        return out


def configured_interfaces(config: str) -> list[str]:
    return re.findall(r"^interface (\S+)", config, flags=re.M)


DEVICES: dict[str, Device] = {}
READ_AS = {"ios": "cisco_ios", "eos": "arista_eos"}


SYSTEM_CPP = "control-plane\n service-policy input system-cpp-policy\n"


def without_sections(config: str, patterns: tuple[str, ...]) -> str:
    """*config* without the top-level sections whose line matches one of *patterns*."""
    out, dropping = [], False
    for line in config.splitlines(keepends=True):
        if line[:1].isspace() and dropping:
            continue
        dropping = not line[:1].isspace() and any(re.match(pattern, line.rstrip("\n")) for pattern in patterns)
        if not dropping:
            out.append(line)
    return "".join(out)


def device(hostname: str, platform: str) -> Device:
    if hostname not in DEVICES:
        start = recorded("napalm", "ios", "show_running-config.txt") if platform == "ios" \
            else recorded("napalm", "eos", "show_running_config.text")
        floor = FLOOR.get(hostname.split(".")[0], {})
        # what docs/deploy.md has the crew type at the console before the first deploy
        console = "".join(f"{line}\n" for line in floor.get("console", []))
        if floor.get("switch_owned"):  # a Catalyst's own sections (a recorded C9300's), not the CSR's
            keeps = platforms()["cisco_ios"].switch_owned
            start = without_sections(start, keeps)
            catalyst = owned.sections(recorded(floor["switch_owned"]))
            console += "".join("\n".join(section) + "\n!\n" for section in catalyst
                               if any(re.match(pattern, section[0]) for pattern in keeps))
        start = start.replace("\nend\n", f"\n{console}end\n", 1) if "\nend\n" in start else start + console
        DEVICES[hostname] = Device(hostname, platform, start, ports=expand(floor.get("ports", [])),
                                   ospf_peers=list(floor.get("ospf_peers", [])))
    return DEVICES[hostname]


def advance(seconds: float) -> None:
    """Let time pass on every device: an unconfirmed commit whose timer runs out reverts."""
    for dev in DEVICES.values():
        dev.clock += seconds
        if dev.pending and dev.clock >= dev.pending["expires"]:
            dev.revert()
            dev.reverted_by_timer = True


# What `show running-config` prints above the configuration (not part of the running-config file)
SHOW_HEADER = ("Building configuration", "Current configuration")


def body(config: str) -> list[str]:
    """The lines a device compares: no comments, no blank lines, not the show command's header."""
    return [line.rstrip() for line in config.splitlines()
            if line.strip() and not line.lstrip().startswith(("!", *SHOW_HEADER)) and line.strip() != "end"]


def blocks(lines: list[str]) -> list[list[str]]:
    """Top-level commands, each with the indented lines under it."""
    out: list[list[str]] = []
    for line in lines:
        if line.startswith(" ") and out:
            out[-1].append(line)
        else:
            out.append([line])
    return out


# --- how a switch prints what it was given ----------------------------------------------------
# A switch stores a configuration, not the text it was given: it drops comments, prints its own
# header, orders the sections its own way and shows some defaults. The recorded running configs
# (NAPALM's CSR1000V and vEOS captures) show each: the order below is the recorded IOS one
# (sections the recording lacks where Cisco's configuration guides print them), the EOS defaults
# are the recorded vEOS ones.
IOS_ORDER = ("version", "service", "no service", "platform", "no platform", "hostname", "boot-", "enable",
             "aaa", "no aaa", "ip vrf", "ip domain", "crypto", "archive", "license", "spanning-tree",
             "username", "redundancy", "vlan", "interface", "router", "ip forward-protocol", "ip http",
             "no ip http", "ip route", "ip access-list", "access-list", "control-plane", "line")
EOS_DEFAULTS = ("transceiver qsfp default-mode 4x10G", "spanning-tree mode mstp")


def ios_printed(config: str, user: str, clock: float) -> str:
    """What IOS's `show running-config` prints after *config* was committed."""
    def rank(block: list[str]) -> int:
        first = block[0]
        return next((i for i, key in enumerate(IOS_ORDER) if first.startswith(key)), IOS_ORDER.index("control-plane"))

    sections = sorted(blocks(body(config)), key=rank)  # sorted() is stable: same-kind sections keep their order
    text = "".join("\n".join(b) + "\n!\n" for b in sections)
    return (f"Building configuration...\n\nCurrent configuration : {len(text)} bytes\n!\n"
            f"! Last configuration change at {clock:.0f}s by {user}\n!\n{text}end\n")


def eos_printed(lines: list[str], hostname: str) -> str:
    """What EOS prints for a configure session of *lines* (as the eos driver sends them,
    stripped): its header, its defaults where the session does not set them, a mode's
    commands indented under it, sections apart."""
    given = [line for line in lines if line and not line.startswith("!") and line != "end"]
    defaults = [d for d in EOS_DEFAULTS if not any(g.startswith(d.rsplit(" ", 1)[0]) for g in given)]
    indented: list[str] = []
    mode = False
    for line in defaults + given:
        child = mode and not line.startswith(EOS_MODES + EOS_GLOBAL)
        indented.append(("   " + line) if child else line)
        mode = line.startswith(EOS_MODES) or (mode and child)
    text = "".join("\n".join(b) + "\n!\n" for b in blocks(indented))
    return f"! Command: show running-config\n! device: {hostname} (vEOS, EOS-4.30)\n!\n{text}end\n"


EOS_MODES = ("interface ", "vlan ", "router ", "ip access-list ", "management ", "event-handler ")
EOS_GLOBAL = ("hostname ", "ip routing", "no ip routing", "spanning-tree ", "username ", "ip route ", "transceiver ",
              "aaa ", "ntp ", "logging ", "snmp-server ", "service ")


def flat(config: str) -> list[str]:
    """EOS compares a session's lines as the eos driver sends them: stripped."""
    return [line.strip() for line in body(config)]


# --- Cisco IOS ------------------------------------------------------------------------------

def contextual_diff(running: str, candidate: str) -> str:
    """`show archive config differences`: changed lines under their parent, + and -."""
    def tree(text: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        parent = ""
        for line in body(text):
            if not line.startswith(" "):
                parent = line
                out.setdefault(parent, [])
            else:
                out.setdefault(parent, []).append(line)
        return out

    old, new = tree(running), tree(candidate)
    lines: list[str] = []
    for parent in list(new) + [p for p in old if p not in new]:
        if parent not in old:
            lines += [f"+{parent}"] + [f" +{c.strip()}" for c in new[parent]]
        elif parent not in new:
            lines += [f"-{parent}"] + [f" -{c.strip()}" for c in old[parent]]
        else:
            added = [c for c in new[parent] if c not in old[parent]]
            gone = [c for c in old[parent] if c not in new[parent]]
            if added or gone:
                lines += [parent] + [f" +{c.strip()}" for c in added] + [f" -{c.strip()}" for c in gone]
    if not lines:
        return "!Contextual Config Diffs:\n!No changes were found\n"
    return "!Contextual Config Diffs:\n" + "\n".join(lines) + "\n"


IOS_TIMER_PENDING = """Timed Rollback
Time configured(or reset) : 10:19:46 UTC Mon Nov 23 2026
Timer type: Idle
Timer value: {minutes} min
User: {user}
"""


class IOSConnection:
    """The netmiko ConnectHandler the ios driver talks to."""

    def __init__(self, dev: Device) -> None:
        self.dev = dev
        self.dead = False

    def _check(self, cmd: str) -> None:
        if self.dead:
            raise OSError("Socket is closed")
        self.dev.log.append(cmd)

    def _autodetect_fs(self) -> str:
        return "flash:"

    def find_prompt(self) -> str:
        return f"{self.dev.hostname}#"

    def set_base_prompt(self, *a: Any, **k: Any) -> str:
        return self.find_prompt()

    def send_config_set(self, commands: list[str], **kwargs: Any) -> str:
        for cmd in commands:
            self._check(f"(config) {cmd}")
        return ""

    def save_config(self, *a: Any, **k: Any) -> str:
        self._check("write memory")
        return "Building configuration...\n[OK]"

    def send_command_timing(self, cmd: str, **kwargs: Any) -> str:
        return self.send_command(cmd)

    def send_command(self, cmd: str, **kwargs: Any) -> str:  # noqa: C901 - one branch per command
        self._check(cmd)
        dev = self.dev
        if cmd in ("show version", "show hosts", "show ip interface brief", "show interfaces"):
            return self._show(cmd)
        if cmd == "show running-config":
            return dev.running
        if cmd == "show archive":
            return recorded("ntc-templates", "cisco_ios_show_archive_filelist.raw" if dev.archive
                            else "cisco_ios_show_archive.raw")
        if cmd == "show archive config rollback timer":
            if dev.pending:
                return IOS_TIMER_PENDING.format(minutes=int((dev.pending["expires"] - dev.clock) // 60),
                                                user=dev.pending["user"])
            return "%No Rollback Confirmed Change pending"
        if m := re.fullmatch(r"show archive config differences system:/running-config flash:/(\S+)", cmd):
            return contextual_diff(dev.running, dev.flash.get(m.group(1), ""))
        if m := re.fullmatch(r"dir flash:/(\S+)", cmd):
            name = m.group(1)
            if name in dev.flash:
                size = len(dev.flash[name])
                return f"Directory of flash:/{name}\n\n   33  -rw-   {size}  Nov 23 2026 10:50:22 +00:00  {name}"
            return f"%Error opening flash:/{name} (No such file or directory)"
        if m := re.fullmatch(r"copy running-config flash:/(\S+)", cmd):
            dev.flash[m.group(1)] = dev.running
            return f"{len(dev.running)} bytes copied"
        if m := re.fullmatch(r"copy null: flash:/(\S+)", cmd):
            dev.flash[m.group(1)] = ""
            return ""
        if m := re.fullmatch(r"configure replace flash:/(\S+) force revert trigger error timer (\d+)", cmd):
            return self._replace(dev.flash[m.group(1)], int(m.group(2)))
        if cmd == "configure confirm":
            dev.confirm()
            return ""
        if cmd == "configure revert now":
            dev.revert()
            return "Rollback Done"
        if cmd == "show ip ospf neighbor":
            return ospf_neighbors("ios", dev)
        return f"% Invalid input detected at '^' marker.\n(simulated device: no answer for {cmd!r})"

    def _replace(self, candidate: str, minutes: int) -> str:
        dev = self.dev
        bad = [line for line in body(candidate) if dev.rejects and line.strip() == dev.rejects]
        # Catalyst 9300 (Security Configuration Guide 17.10, CoPP restrictions): "The system-cpp-policy
        # policy-map and the system-defined classes cannot be modified or deleted"
        if SYSTEM_CPP in dev.running and SYSTEM_CPP not in candidate:
            bad.append("no service-policy input system-cpp-policy")
        bad += [f"interface {name}" for name in dev.missing_ports(candidate)]
        if bad:
            # `revert trigger error`: the device restores the original config by itself
            return (f"Total number of passes: 1\nRollback Done\n\n{bad[0].strip()}\n"
                    "                ^\n% Invalid input detected at '^' marker.\n\n"
                    "%Rollback is aborted due to errors. The original configuration has been "
                    "successfully restored.")
        dev.commit(ios_printed(candidate, dev.user, dev.clock), minutes * 60)
        if dev.drop_session_after_commit:
            self.dead = True
        return "Total number of passes: 1\nRollback Done"

    def _show(self, cmd: str) -> str:
        if cmd == "show interfaces":
            return ios_interfaces(self.dev)
        return recorded("napalm", "ios", cmd.replace(" ", "_") + ".txt")

    def disconnect(self) -> None:
        pass


def ios_interfaces(dev: Device) -> str:
    """`show interfaces` for the switch's ports and logical interfaces, each block the recorded
    GigabitEthernet1 block with its name and link state put in."""
    block = recorded("napalm", "ios", "show_interfaces.txt").split("\nGigabitEthernet2 ")[0]
    block = block.split("\n", 1)[1]
    out = []
    for name in dev.interfaces():
        state = "down" if name in dev.down else "up"
        out.append(f"{name} is {state}, line protocol is {state}\n{block}")
    return "\n".join(out)


def refuse_unknown_user(dev: Device, username: str) -> None:
    """A switch logs in only users its running config has (once it has any: the recorded
    starting configs' own users, then what a replace left)."""
    users = re.findall(r"^username (\S+) ", dev.running, flags=re.M)
    if users and username not in users:
        from napalm.base.exceptions import ConnectionException
        raise ConnectionException(f"Authentication failed for {username} on {dev.hostname}: no such user "
                                  f"(the running config has {', '.join(users)})")


class SimulatedIOSDriver(IOSDriver):
    SIMULATED = True  # deploy records say so (boothnet.deploy.steps.Target.identity)
    """NAPALM's IOS driver with the simulated device as its transport."""

    def open(self) -> None:
        dev = device(self.hostname, "ios")
        if dev.unreachable or (dev.unreachable_while_pending and dev.pending):
            from napalm.base.exceptions import ConnectionException
            raise ConnectionException(f"Cannot connect to {self.hostname}")
        refuse_unknown_user(dev, self.username)
        dev.user = self.username
        self.device = self._netmiko_device = IOSConnection(dev)

    def _xfer_file(self, source_file=None, source_config=None, dest_file=None, file_system=None,
                   TransferClass=None):  # the driver's own signature
        text = source_config if source_config is not None else Path(source_file).read_text()
        self.device.dev.flash[dest_file] = text
        return True, "File successfully transferred to remote device"


# --- Arista EOS -----------------------------------------------------------------------------

class EOSNode:
    """The pyeapi Node the eos driver talks to (eAPI)."""

    def __init__(self, dev: Device) -> None:
        self.dev = dev
        self.dead = False
        self.connection = object()

    def run_commands(self, commands: list[str], encoding: str = "json", **kwargs: Any) -> list[Any]:
        if self.dead:
            raise pyeapi.eapilib.ConnectionError(self.dev.hostname, "Socket error during eAPI connection")
        self.dev.log.extend(commands)
        if commands and commands[0].startswith("configure session ") and len(commands[0].split()) == 3:
            return self._session(commands)
        return [self._one(cmd, encoding) for cmd in commands]

    def _session(self, commands: list[str]) -> list[Any]:
        name = commands[0].split()[2]
        lines = [c for c in commands[1:] if c not in ("rollback clean-config", "end")]
        missing = {f"interface {name}" for name in self.dev.missing_ports("\n".join(lines))}
        for i, line in enumerate(lines, start=2):
            if (self.dev.rejects and line.strip() == self.dev.rejects) or line in missing:
                raise pyeapi.eapilib.CommandError(
                    1002, f"CLI command {i} of {len(commands)} '{line}' failed: invalid command",
                    commands=commands)
        self.dev.sessions[name] = {"state": "pending", "config": eos_printed(lines, self.dev.hostname.split(".")[0])}
        return [{} for _ in commands]

    def _one(self, cmd: str, encoding: str) -> Any:  # noqa: C901 - one branch per command
        dev = self.dev
        text = encoding == "text"
        if cmd == "show version":
            return self._version()
        if cmd == "show hostname":
            return json.loads(recorded("napalm", "eos", "show_hostname.json"))
        if cmd == "show interfaces":
            return eos_interfaces(dev)
        if cmd == "show configuration sessions":
            return {"sessions": {k: {"state": v["state"]} for k, v in dev.sessions.items()}}
        if cmd == "show configuration sessions detail":
            return self._sessions_detail()
        if m := re.fullmatch(r"show session-config named (\S+) diffs", cmd):
            return {"output": unified_diff(dev.running, dev.sessions[m.group(1)]["config"], m.group(1))}
        if m := re.fullmatch(r"configure session (\S+) commit timer (\d\d):(\d\d):(\d\d)", cmd):
            h, mi, s = (int(g) for g in m.groups()[1:])
            dev.commit(dev.sessions[m.group(1)]["config"], h * 3600 + mi * 60 + s, session=m.group(1))
            dev.sessions[m.group(1)]["state"] = "pendingCommitTimer"
            if dev.drop_session_after_commit:
                self.dead = True
            return {"output": ""}
        if m := re.fullmatch(r"configure session (\S+) commit", cmd):
            if dev.pending and dev.pending["session"] == m.group(1):
                dev.confirm()
            else:
                dev.running = dev.sessions[m.group(1)]["config"]
            dev.sessions.pop(m.group(1), None)
            return {"output": ""}
        if m := re.fullmatch(r"configure session (\S+) abort", cmd):
            if dev.pending and dev.pending["session"] == m.group(1):
                dev.revert()
            dev.sessions.pop(m.group(1), None)
            return {"output": ""}
        if cmd in ("copy startup-config flash:rollback-0", "write memory"):
            return {"output": "Copy completed successfully."}
        if cmd in ("show running-config", "show startup-config"):
            return {"output": dev.running}
        if cmd == "show ip ospf neighbor":
            return {"output": ospf_neighbors("eos", dev)}
        if text:
            return {"output": f"% Invalid input (simulated device: no answer for {cmd!r})"}
        raise pyeapi.eapilib.CommandError(1002, f"CLI command 1 of 1 '{cmd}' failed: invalid command")

    def _version(self) -> dict[str, Any]:
        version = json.loads(recorded("napalm", "eos", "show_version.json"))
        version["uptime"] += self.dev.clock
        if self.dev.eos_version:
            version["version"] = self.dev.eos_version
        return version

    def _sessions_detail(self) -> dict[str, Any]:
        dev = self.dev
        out: dict[str, Any] = {"sessions": {k: {"state": v["state"]} for k, v in dev.sessions.items()}}
        if not dev.pending:
            return out
        version = self._version()
        commit_by = version["uptime"] + (dev.pending["expires"] - dev.clock)
        if tuple(int(p) for p in version["version"].split(".")[:2]) >= (4, 32):
            # EOS 4.32 and later name the session with a commit timer at the top level
            out["commitTimerSessionName"] = dev.pending["session"]
            out["commitTimerExpireTime"] = commit_by
        elif dev.pending["session"] in out["sessions"]:
            # before 4.32 (the recorded 4.30): the session itself carries its commitBy time
            out["sessions"][dev.pending["session"]]["commitBy"] = commit_by
        return out


def unified_diff(running: str, candidate: str, session: str) -> str:
    """`show session-config named <s> diffs`: a unified diff, as in NAPALM's recorded new_good.diff."""
    diff = difflib.unified_diff(flat(running), flat(candidate), "system:/running-config",
                                f"session:/{session}-session-config", lineterm="")
    return "\n".join(diff) + "\n"


def eos_interfaces(dev: Device) -> dict[str, Any]:
    """`show interfaces` (JSON) for the switch's ports and logical interfaces, each the recorded
    Management1 entry with its name and link state put in."""
    template = json.loads(recorded("napalm", "eos", "show_interfaces.json"))["interfaces"]["Management1"]
    out = {}
    for name in dev.interfaces():
        entry = json.loads(json.dumps(template))
        entry["name"] = name
        if name in dev.down:
            entry["lineProtocolStatus"], entry["interfaceStatus"] = "down", "notconnect"
        out[name] = entry
    return {"interfaces": out}


class SimulatedEOSDriver(EOSDriver):
    SIMULATED = True
    """NAPALM's EOS driver with the simulated device as its eAPI transport."""

    def open(self) -> None:
        dev = device(self.hostname, "eos")
        if dev.unreachable or (dev.unreachable_while_pending and dev.pending):
            from napalm.base.exceptions import ConnectionException
            raise ConnectionException(f"Cannot connect to {self.hostname}")
        refuse_unknown_user(dev, self.username)
        self.device = EOSNode(dev)
        super().open()  # keeps the node it finds, asks `show version` like on a real switch


# --- both -----------------------------------------------------------------------------------

OSPF_HEADER = {
    "ios": "Neighbor ID     Pri   State           Dead Time   Address         Interface",
    "eos": "Neighbor ID     Instance VRF      Pri State                  Dead Time   Address         Interface",
}


def ospf_neighbors(platform: str, dev: Device) -> str:
    """`show ip ospf neighbor` in the recorded layout: the floor's OSPF routers the running
    config forms an adjacency with (Device.ospf_interfaces)."""
    rows = [OSPF_HEADER[platform]]
    if dev.ospf_polls:
        dev.ospf_state = dev.ospf_polls.pop(0)
    for ifname, peer in dev.ospf_interfaces():
        rid, address = peer["router_id"], peer["address"]
        if platform == "ios":
            state = f"{dev.ospf_state}/DR" if dev.ospf_state == "FULL" else f"{dev.ospf_state}/DROTHER"
            rows.append(f"{rid:<15} 1   {state:<15} 00:00:35    {address:<15} {ifname}")
        else:
            rows.append(f"{rid:<15} 1        default  1   {dev.ospf_state:<22} 00:00:35    {address:<15} {ifname}")
    return "\n".join(rows) + "\n"
