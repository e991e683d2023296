"""VPN: the tunnel up, the show network carrying only IKE/ESP, the inner MTU (DF probe and a
large transfer), the cleartext guard, and recovery after an IKE restart and a link cut (the lab
only: a floor is never broken on purpose). A watch round: the tunnel's state and inner MTU.

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
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

from boothnet.intent import Network
from boothnet.lab import (
    RETRANSMIT_GIVE_UP_S,
    child_installed,
    child_sa_installed,
    ike_sa_ids,
    restart_charon,
)
from boothnet.progress import Progress
from boothnet.status import Status
from boothnet.validate.access import Access
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.checks.mtu import CHECK as MTU
from boothnet.validate.perf.probes import mtu_probe, ping, start_listener, stop_listener, tcp_transfer
from boothnet.validate.results import Failure, MtuRow, Stage, VpnTunnel
from boothnet.validate.verdicts import guarded
from boothnet.validate.vpn import LabVpn


class Vpn(LiveCheck):
    name = section = field = "vpn"
    row_type = VpnTunnel
    order = 70
    title = "VPN"
    rows_first = None
    header = ("verdict", "tunnel", "state", "expected", "recovery s", "max s", "note")
    alarm = "effect"
    alarm_rank = 50

    def applies(self, ctx: Context) -> bool:
        return ctx.vpn is not None

    def execute(self, ctx: Context) -> None:
        if self.applies(ctx):
            guarded(ctx.stages, self.name, lambda: self._run(ctx), None)

    def _run(self, ctx: Context) -> None:
        """Its tunnels' rows, and its inner-MTU rows among the MTU check's."""
        assert ctx.vpn is not None
        started = time.monotonic()
        tunnels, mtu = run_vpn(ctx.net, ctx.vpn, ctx.access, ctx.progress, resilience=ctx.profile.vpn_resilience,
                               light=ctx.profile.share is not None)
        verdicts = [row.verdict for row in tunnels] + [row.verdict for row in mtu]
        failed = any(verdict not in (Status.PASS, Status.NOT_RUN) for verdict in verdicts)
        ctx.stages.append(Stage(name=self.name, status=Status.of(not failed),
                                duration_s=round(time.monotonic() - started, 1)))
        self.store(ctx.results, tunnels)
        MTU.store(ctx.results, mtu)  # the MTU check keeps them, as its own

    def verdict(self, row: VpnTunnel) -> Status:
        return Status(row.verdict or Status.SKIPPED)

    def subject(self, row: VpnTunnel) -> str:
        return f"tunnel {row.name}" + (f" [{', '.join(row.devices)}]" if row.devices else "")

    def message(self, row: VpnTunnel) -> str:
        rec = "" if row.recovery_time_s is None else \
            f", recovered in {row.recovery_time_s:g} s (max {row.max_recovery_s:g} s)" \
            if row.max_recovery_s is not None else f", recovered in {row.recovery_time_s:g} s"
        return f"state {row.state} (expected {row.expected_state}){rec}"

    def action(self, row: VpnTunnel) -> str:
        return (f"on {', '.join(row.devices) or 'the gateways'}: `swanctl --list-sas`; check the PSK, the proposals "
                "and that UDP 500/4500 pass")

    def failure(self, row: VpnTunnel) -> Failure | None:
        return super().failure(row) if row.verdict == "FAIL" else None

    def key(self, row: VpnTunnel) -> str:
        return f"vpn {row.name}"

    def cells(self, row: VpnTunnel) -> list[str]:
        return [row.verdict or "SKIPPED", row.name, row.state, row.expected_state,
                "-" if row.recovery_time_s is None else f"{row.recovery_time_s:g}",
                "-" if row.max_recovery_s is None else f"{row.max_recovery_s:g}", row.detail or ""]



CHECK = Vpn()


IKE_PORTS = {"500", "4500"}
MARKER = "b007c1ea7e570000"  # ping -p payload: would show up in a capture of cleartext
MAX_RECOVERY_S = 60.0  # the bound the report holds the tunnel to after an outage
MISROUTE_TABLE = "100"


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
