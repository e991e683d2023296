"""The VPN extension of the secured network, checked in the running lab.

Everything comes from the intent and the lab's derived model: the tunnel is up; a capture on
the booth gateway's outside link carries only IKE and ESP between the two gateways while a
listed client talks to the secured network; a DF ping at the tunnel's inner MTU passes and
one byte more fails; a large TCP transfer completes; after the home gateway's IKE daemon is
restarted, and after its outside link is cut and restored, the tunnel comes back by itself
(time measured), with no cleartext on the show network meanwhile; and a route that points
protected traffic outside the tunnel meets the firewall's cleartext guard.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

from boothnet.derive.policy import compiler_of
from boothnet.intent import Network
from boothnet.intent.model import Endpoint
from boothnet.lab import (
    RETRANSMIT_GIVE_UP_S,
    child_installed,
    child_sa_installed,
    ike_sa_ids,
    lab_models,
    read_state,
    restart_charon,
)
from boothnet.progress import Progress
from boothnet.run import Run
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.perf.probes import mtu_probe, ping, start_listener, stop_listener, tcp_transfer
from boothnet.validate.results import MtuRow, VpnTunnel

IKE_PORTS = {"500", "4500"}
MARKER = "b007c1ea7e570000"  # ping -p payload: would show up in a capture of cleartext
MAX_RECOVERY_S = 60.0  # the bound the report holds the tunnel to after an outage
MISROUTE_TABLE = "100"


@dataclass(frozen=True)
class LabVpn:
    name: str
    booth_gw: str
    home_gw: str
    booth_outside: IPv4Address
    home_outside: IPv4Address
    booth_outside_if: str
    home_outside_if: str
    inner_mtu: int  # what the lab's tunnel carries
    intent_inner_mtu: int
    client: Endpoint  # a listed client
    secured: Endpoint  # a host in the secured network
    service_port: int  # a TCP port the policy opens from the clients to the secured network
    protected: list[IPv4Network]  # both sides' protected subnets
    dpd_delay_s: int


def lab_vpn(run: Run, lab_dir: Path) -> LabVpn | None:
    """The tunnel as the running lab has it (lab port names, backend-capped MTU)."""
    state = read_state(lab_dir)
    return None if state is None else network_vpn(run, state.vlan_mode)


def network_vpn(run: Run, stand_in_vlan_mode: str | None) -> LabVpn | None:
    """The tunnel as the network runs it: the lab's stand-ins (``stand_in_vlan_mode``: their
    port names, the backend-capped MTU) or the booth's own gateways (the intent's)."""
    net = run.net
    if net.vpn is None:
        return None
    models = lab_models(run, stand_in_vlan_mode) if stand_in_vlan_mode else run.models("hardware")  # type: ignore[arg-type]  # a VLAN mode
    booth, home = models[net.vpn.booth_gateway].vpn, models[net.vpn.home_gateway].vpn
    if booth is None or home is None:
        return None
    clients = compiler_of(net).prefixes(net.vpn.clients)
    listed = sorted((e for e in net.endpoints.values() if any(p is not None and e.address in p for p in clients)),
                    key=lambda e: e.name)
    secured = sorted(
        (e for e in net.endpoints.values() if any(e.address in p for p in booth.remote_subnets)), key=lambda e: e.name
    )
    # sshd holds 22 on every node: a port of the policy's own for the transfer
    rules = [r for r in net.policy.rules if r.source == net.vpn.clients and r.proto == "tcp"]
    ports = [p for r in rules for p in r.ports if p != 22]
    if not listed or not secured or not ports:
        return None
    return LabVpn(
        name=net.vpn.name,
        booth_gw=net.vpn.booth_gateway,
        home_gw=net.vpn.home_gateway,
        booth_outside=booth.local_address,
        home_outside=home.local_address,
        booth_outside_if=booth.outside_interface,
        home_outside_if=home.outside_interface,
        inner_mtu=booth.inner_mtu,
        intent_inner_mtu=booth.intent_inner_mtu,
        client=listed[0],
        secured=secured[0],
        service_port=ports[0],
        protected=booth.local_subnets + booth.remote_subnets,
        dpd_delay_s=booth.dpd_delay_s,
    )


# --- capture on the show network -------------------------------------------------------


class Capture:
    """tcpdump on one interface of one namespace, for the length of a ``with`` block."""

    def __init__(self, ns: str, ifname: str) -> None:
        self.ns, self.ifname = ns, ifname
        self.pcap = Path(tempfile.mkdtemp(prefix="boothnet-cap-")) / "cap.pcap"

    def __enter__(self) -> Capture:
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, "tcpdump", "-i", self.ifname, "-nn", "-U", "-w", str(self.pcap)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 5  # tcpdump says "listening on" once it captures
        while self.proc.poll() is None and time.monotonic() < deadline:
            if self.pcap.exists():
                break
            time.sleep(0.05)
        time.sleep(0.3)
        return self

    def __exit__(self, *exc: object) -> None:
        time.sleep(0.3)
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=10)

    def lines(self) -> list[str]:
        res = subprocess.run(["tcpdump", "-r", str(self.pcap), "-nn"], capture_output=True, text=True, check=False)
        return res.stdout.splitlines()

    def raw(self) -> bytes:
        return self.pcap.read_bytes() if self.pcap.exists() else b""

    def cleanup(self) -> None:
        self.pcap.unlink(missing_ok=True)
        os.rmdir(self.pcap.parent)


_IP_LINE = re.compile(r" IP (\d+\.\d+\.\d+\.\d+)(?:\.(\d+))? > (\d+\.\d+\.\d+\.\d+)(?:\.(\d+))?:")


def classify_capture(
    lines: list[str], raw: bytes, gateways: set[str], protected: list[IPv4Network]
) -> tuple[dict[str, int], list[str]]:
    """Counts of IKE/ESP packets between ``gateways`` and of other packets; the findings are
    packets to or from a protected subnet, and the ping marker anywhere in the raw capture
    (cleartext payload)."""
    counts = {"ike": 0, "esp": 0, "other": 0}
    findings: list[str] = []
    for line in lines:
        m = _IP_LINE.search(line)
        if not m:
            continue  # ARP and the like: no payload of the protected flows
        src, sport, dst, dport = m.groups()
        if {src, dst} == gateways and sport in IKE_PORTS and dport in IKE_PORTS:
            counts["esp" if "ESP" in line and "NONESP" not in line else "ike"] += 1
        elif any(IPv4Address(a) in net for a in (src, dst) for net in protected):
            findings.append(line.strip())
        else:
            counts["other"] += 1  # e.g. the show network's ICMP errors about the gateways' own IKE
    if bytes.fromhex(MARKER) in raw:
        findings.append(f"the protected flow's payload (ping pattern {MARKER}) is visible in clear")
    return counts, findings


# --- the checks -----------------------------------------------------------------------


def _wait(condition: Callable[[], bool], timeout_s: float, interval_s: float = 0.5) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if condition():
            return round(time.monotonic() - started, 1)
        time.sleep(interval_s)
    return None


class VpnChecks:
    """The checks in the lab; FloorVpnChecks overrides what reads the gateways."""

    def __init__(self, net: Network, access: Access, vpn: LabVpn, progress: Progress) -> None:
        self.net, self.access, self.runner, self.vpn, self.progress = net, access, access.runner, vpn, progress
        self.lab_dir = access.lab_dir or Path()
        self._ns = access.node
        self.client_ns = access.node(vpn.client.name)
        self.gateways = {str(vpn.booth_outside), str(vpn.home_outside)}
        self.protected = vpn.protected

    def _through(self) -> bool:
        return ping(self.runner, self.client_ns, str(self.vpn.secured.address), count=1, wait_s=1).ok

    def _child_up(self) -> bool:
        booth = self.vpn.booth_gw
        return child_sa_installed(self._ns(booth), self.lab_dir / "nodes" / booth, self.vpn.name,
                                             (str(self.vpn.booth_outside), str(self.vpn.home_outside)))

    def _capture(self, action: Callable[[], object]) -> tuple[dict[str, int], list[str]]:
        cap = Capture(self._ns(self.vpn.booth_gw), self.vpn.booth_outside_if)
        try:
            with cap:
                action()
            return classify_capture(cap.lines(), cap.raw(), self.gateways, self.protected)
        finally:
            cap.cleanup()

    def _marked_pings(self, count: int = 5) -> None:
        self.runner(self.client_ns, ["ping", "-c", str(count), "-i", "0.2", "-W", "1", "-p", MARKER,
                                     str(self.vpn.secured.address)], 30)

    def tunnel(self) -> VpnTunnel:
        waited = _wait(lambda: self._child_up() and self._through(), 30)
        name = f"{self.vpn.name}: {self.vpn.booth_gw} <-> {self.vpn.home_gw}"
        mtu_note = f"inner MTU {self.vpn.inner_mtu}"
        if self.vpn.inner_mtu != self.vpn.intent_inner_mtu:
            mtu_note += f" in the lab (kernel-libipsec carries at most that; intent {self.vpn.intent_inner_mtu})"
        detail = f"CHILD_SA installed, {self.vpn.client.name} reaches {self.vpn.secured.name}; {mtu_note}"
        if waited is None:
            detail = f"no CHILD_SA with traffic through it within 30 s ({self._where_logs()})"
        return VpnTunnel(name=name, state="ESTABLISHED" if waited is not None else "down",
                         devices=[self.vpn.booth_gw, self.vpn.home_gw], detail=detail)

    def _where_logs(self) -> str:
        return f"{self.lab_dir}/nodes/*/strongswan/charon.log"

    def capture(self) -> VpnTunnel:
        counts, findings = self._capture(self._marked_pings)
        return self._capture_row("show network carries only IKE/ESP", counts, findings, strict=True)

    def _capture_row(self, name: str, counts: dict[str, int], findings: list[str], strict: bool) -> VpnTunnel:
        """strict: while the tunnel is up nothing but IKE/ESP may cross; during an outage the
        show network's own ICMP errors may, the protected flows never."""
        where = f"capture on {self.vpn.booth_gw}:{self.vpn.booth_outside_if}"
        seen = f"{counts['ike']} IKE, {counts['esp']} ESP-in-UDP, {counts['other']} other"
        if findings:
            state, detail = "CLEARTEXT", f"{where}: {seen}; {len(findings)} in clear, e.g. {findings[0]}"
        elif strict and counts["other"]:
            state, detail = "NOT ONLY IKE/ESP", f"{where}: {seen}"
        elif strict and not counts["esp"]:
            # the flow got through, but not here: the tunnel runs over some other path
            state, detail = "NOT ON THIS LINK", f"{where}: {seen}; the protected flow did not cross it as ESP"
        else:
            state, detail = "clean", f"{where}: {seen}; none of the protected flows in clear"
        return VpnTunnel(name=name, state=state, expected_state="clean", devices=[self.vpn.booth_gw], detail=detail)

    def mtu(self, transfer: bool = True) -> list[MtuRow]:
        """A DF probe at the inner MTU; ``transfer``: then an 8 MiB TCP transfer through the tunnel."""
        v = self.vpn
        path = f"{v.name}: {v.client.name} -> {v.secured.name} (through the tunnel)"
        probe = mtu_probe(self.runner, self.client_ns, str(v.secured.address), v.inner_mtu, link=path, count=2)
        rows = [MtuRow(path=path, mtu=v.inner_mtu, source=v.client.name, destination=v.secured.name,
                       verdict=probe.verdict, cause=probe.cause, device=v.booth_gw)]
        if not transfer:
            return rows
        listener = start_listener(self.runner, self._ns(v.secured.name), v.service_port, bind=str(v.secured.address),
                                  limit_s=60)
        try:
            for _ in range(10):  # a refusal means our listener is not accepting yet
                sent = tcp_transfer(self.runner, self.client_ns, str(v.secured.address), v.service_port,
                                    nbytes=8 * 1024 * 1024, timeout_s=20)
                if sent.state != "refused":
                    break
                time.sleep(0.3)
        finally:
            stop_listener(self.runner, listener)
        rows.append(MtuRow(path=f"{v.name}: 8 MiB TCP {v.client.name} -> {v.secured.name}:{v.service_port}",
                           mtu=v.inner_mtu, source=v.client.name, destination=v.secured.name,
                           verdict=Status.of(sent.ok),
                           cause=None if sent.ok else sent.describe(), device=v.booth_gw))
        return rows

    def _ike_ids(self) -> set[str]:
        return ike_sa_ids(self._ns(self.vpn.booth_gw), self.lab_dir / "nodes" / self.vpn.booth_gw)

    def _recovery_row(self, name: str, outage: Callable[[], object]) -> list[VpnTunnel]:
        """Cause an outage (with marked pings during it, captured), then time the recovery."""
        started: list[float] = []
        ids_before = self._ike_ids()

        def during() -> None:
            outage()
            started.append(time.monotonic())
            self._marked_pings(3)

        counts, findings = self._capture(during)
        back = _wait(self._through, MAX_RECOVERY_S)
        recovery = None if back is None else round(time.monotonic() - started[0], 1)
        state = "ESTABLISHED" if back is not None and self._child_up() else "down"
        how = "a new IKE SA" if self._ike_ids() - ids_before else "the same IKE SA"
        tunnel = VpnTunnel(name=f"{self.vpn.name} after {name}", state=state, recovery_time_s=recovery,
                           max_recovery_s=MAX_RECOVERY_S, devices=[self.vpn.booth_gw, self.vpn.home_gw],
                           detail=f"traffic through the tunnel again {recovery} s after the {name} ({how})"
                           if recovery is not None else f"not back within {MAX_RECOVERY_S:g} s of the {name}")
        return [tunnel, self._capture_row(f"no cleartext during the {name}", counts, findings, strict=False)]

    def restart_home_ike(self) -> list[VpnTunnel]:
        return self._recovery_row("home gateway IKE restart",
                                  lambda: restart_charon(self.lab_dir, self.vpn.home_gw))

    def cut_home_link(self) -> list[VpnTunnel]:
        """Cut for longer than dead peer detection takes, so the booth side must restart the
        tunnel, not just resume an SA that outlived a blip."""
        ns, ifname = self._ns(self.vpn.home_gw), self.vpn.home_outside_if
        cut_s = round(self.vpn.dpd_delay_s + RETRANSMIT_GIVE_UP_S + 3)

        def cut() -> None:
            subprocess.run(["ip", "-n", ns, "link", "set", ifname, "down"], check=True)
            try:
                self._marked_pings(3)
                time.sleep(cut_s)
            finally:
                subprocess.run(["ip", "-n", ns, "link", "set", ifname, "up"], check=True)

        return self._recovery_row(f"outside link cut ({cut_s} s)", cut)

    def cleartext_guard(self) -> VpnTunnel:
        """Point the secured host's route on the booth gateway outside the tunnel: the
        firewall must drop what would now leave in clear."""
        v = self.vpn
        ns = self._ns(v.booth_gw)
        via = subprocess.run(["ip", "-n", ns, "route", "get", str(v.home_outside)], capture_output=True, text=True,
                             check=True).stdout.split()
        next_hop = via[via.index("via") + 1]
        host_route = f"{v.secured.address}/32"
        # a rule ahead of every table (charon's 220 included) makes the mistake stick
        misroute = (["route", "add", host_route, "via", next_hop, "table", MISROUTE_TABLE],
                    ["rule", "add", "to", host_route, "lookup", MISROUTE_TABLE, "pref", MISROUTE_TABLE])
        before = _guard_count(ns)
        try:
            for argv in misroute:
                subprocess.run(["ip", "-n", ns, *argv], check=True)
            counts, findings = self._capture(self._marked_pings)
        finally:
            for argv in misroute:
                subprocess.run(["ip", "-n", ns, argv[0], "del", *argv[2:]], check=False)
        dropped = _guard_count(ns) - before
        ok = dropped > 0 and not findings
        detail = (f"{dropped} packets dropped by the cleartext guard on {v.booth_gw} while {host_route} "
                  f"pointed at {next_hop}; " + (f"leaked: {findings[0]}" if findings else "none on the show network"))
        return VpnTunnel(name="cleartext guard (route outside the tunnel)", state="dropped" if ok else "LEAK",
                         expected_state="dropped", devices=[v.booth_gw], detail=detail)


def _guard_count(ns: str) -> int:
    """Packets the cleartext guard dropped so far (0 without the ruleset: nothing guards)."""
    listing = subprocess.run(["ip", "netns", "exec", ns, "nft", "list", "chain", "inet", "boothnet", "forward"],
                             capture_output=True, text=True, check=False).stdout
    return sum(int(m) for m in re.findall(r'cleartext-guard " counter packets (\d+)', listing))


class FloorVpnChecks(VpnChecks):
    """On a floor: the tunnel's state read from the booth gateway's driver, the clients' probes
    over their connections; nothing that breaks the live network on purpose."""

    def _child_up(self) -> bool:
        assert self.access.devices is not None
        driver, _ = self.access.devices.driver(self.vpn.booth_gw)
        read = getattr(driver, "get_ipsec_sas", None)
        if read is None:
            return False
        try:
            return child_installed(read(), self.vpn.name,
                                              (str(self.vpn.booth_outside), str(self.vpn.home_outside)))
        except Exception:  # a getter that fails leaves the tunnel unproven: the row says down
            return False

    def _where_logs(self) -> str:
        return f"`swanctl --list-sas` on {self.vpn.booth_gw}"


def not_run(name: str, devices: list[str], why: str) -> VpnTunnel:
    return VpnTunnel(name=name, state="not run", expected_state="not run", devices=devices, detail=why,
                     verdict=Status.NOT_RUN)


FLOOR_NOT_RUN = "not run on a live floor: it breaks the network on purpose"


def run_vpn(
    net: Network, vpn: LabVpn, access: Access, progress: Progress, resilience: bool = True, light: bool = False
) -> tuple[list[VpnTunnel], list[MtuRow]]:
    """``light`` (watch's rounds): the tunnel's state and a DF probe at its inner MTU only."""
    floor = access.on_floor
    checks = (FloorVpnChecks if floor else VpnChecks)(net, access, vpn, progress)
    tunnels = [checks.tunnel()]
    progress(f"[vpn] tunnel {tunnels[0].name}: {tunnels[0].state}")
    if tunnels[0].state != "ESTABLISHED":
        return tunnels, []
    if light:
        return tunnels, checks.mtu(transfer=False)
    tunnels.append(not_run("show network carries only IKE/ESP", [vpn.booth_gw],
                           "not run on a floor: it captures on the show uplink (run it in the lab)") if floor
                   else checks.capture())
    progress(f"[vpn] {tunnels[-1].name}: {tunnels[-1].state}")
    mtu = checks.mtu()
    progress(f"[vpn] inner MTU {vpn.inner_mtu} and large transfer: {', '.join(r.verdict for r in mtu)}")
    tunnels.append(not_run("cleartext guard (route outside the tunnel)", [vpn.booth_gw],
                           f"{FLOOR_NOT_RUN} (routes protected traffic outside the tunnel)") if floor
                   else checks.cleartext_guard())
    progress(f"[vpn] {tunnels[-1].name}: {tunnels[-1].state}")
    if floor:
        tunnels += [not_run(f"recovery after {what}", [vpn.home_gw], f"{FLOOR_NOT_RUN} ({what})")
                    for what in ("an IKE restart on the home gateway", "a cut of the home gateway's outside link")]
    elif resilience:
        for outage in (checks.restart_home_ike, checks.cut_home_link):
            rows = outage()
            tunnels += rows
            progress(f"[vpn] {rows[0].name}: {rows[0].state}, back in {rows[0].recovery_time_s} s")
    return tunnels, mtu
