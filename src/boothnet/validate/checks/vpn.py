"""VPN: the tunnel up, the show network carrying only IKE/ESP, the inner MTU (DF probe and a
large transfer), the cleartext guard, and recovery after an IKE restart and a link cut (the lab
only: a floor is never broken on purpose). A watch round: the tunnel's state and inner MTU."""

from __future__ import annotations

import time

from boothnet.status import Status
from boothnet.validate.checks.base import Context, LiveCheck
from boothnet.validate.results import Failure, Stage, VpnTunnel
from boothnet.validate.verdicts import guarded
from boothnet.validate.vpn import run_vpn


class Vpn(LiveCheck):
    name = section = field = "vpn"
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
        ctx.results.mtu.extend(mtu)

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
