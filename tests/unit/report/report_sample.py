"""A realistic results set (sc-booth-like zones) built from recorded perf outputs."""

from __future__ import annotations

from pathlib import Path

from boothnet.validate.perf import iperf3, nuttcp
from boothnet.validate.perf.formula import expected_goodput
from boothnet.validate.results import IsolationRow, MtuRow, Stage, ValidationResults, VpnTunnel

CASES = Path(__file__).parents[1] / "perf" / "cases"
PRODUCTION = ["booth-lan", "theater", "wireless-mon", "mgmt", "uplink"]
RESEARCH = [f"r{n}" for n in range(110, 116)]
FAILING_PATH = "r112: node1 -> fs1"
FAILING_LINK = "core1:Gi1/0/49 -- rsw1:Ethernet49 vlan 113"


def sample(*, plant_failures: bool = True, skip_batfish: bool = False) -> ValidationResults:
    zones = PRODUCTION + RESEARCH + ["home"]
    rows: list[IsolationRow] = []
    for src in zones:
        for dst in zones:
            if src == dst:
                continue
            same_side = (src in RESEARCH) == (dst in RESEARCH)
            expected = "permit" if same_side and "home" not in (src, dst) else "deny"
            observed = expected
            if plant_failures and (src, dst) == ("r110", "mgmt"):
                observed = "permit"  # planted: a deny rule removed
            rows.append(IsolationRow(src=f"{src}-h1", dst=f"{dst}-h1", src_zone=src,
                                     dst_zone=dst, flow="icmp", expected=expected,
                                     observed=observed, rule=f"{src}->{dst}", device="core1"))
    # the booth LAN reaches the file service of r110 only
    rows.append(IsolationRow(src="booth-lan-h1", dst="r110-fs1", src_zone="booth-lan",
                             dst_zone="r110", flow="tcp/445", expected="permit",
                             observed="permit", device="core1"))
    rows.append(IsolationRow(src="booth-lan-h2", dst="home-h1", src_zone="booth-lan",
                             dst_zone="home", flow="tcp/22", expected="deny", observed=None))

    single = iperf3.parse((CASES / "iperf3/single_stream_1500/output.json").read_text())
    multi = nuttcp.parse((CASES / "nuttcp/multi_stream_9000/output.txt").read_text())
    refused = iperf3.parse((CASES / "iperf3/error_connection_refused/output.json").read_text())
    from boothnet.validate.perf.schema import judge

    throughput = [
        judge(single, expected_goodput(1e9, 1500), path="r110: node1 -> fs1"),
        judge(multi, expected_goodput(1e9, 9000), path="r111: node1+node2 -> fs1"),
    ]
    if plant_failures:
        # planted: the path is 10G in the intent, so 990 Mb/s is far below its limit
        throughput.append(judge(multi, expected_goodput(10e9, 9000), path=FAILING_PATH))
        throughput.append(judge(refused, expected_goodput(1e9, 1500), path="r113: node2 -> fs1"))
    mtu = [MtuRow(path=f"vlan {110 + i} r{110 + i}", mtu=9000, source="node1", destination="fs1",
                  verdict="PASS") for i in range(4)]
    if plant_failures:
        mtu.append(MtuRow(path=FAILING_LINK, mtu=9000, source="r113-node1",
                          destination="r113-fs1", verdict="FAIL", device="rsw1",
                          cause="DF ping of 9000 bytes failed: timeout, black hole"))
    stages = [Stage(name="build", status="PASS"), Stage(name="verify-offline", status="PASS"),
              Stage(name="batfish", status="SKIPPED" if skip_batfish else "PASS",
                    reason="BATFISH_HOST not set" if skip_batfish else None),
              Stage(name="deploy", status="PASS"), Stage(name="validate", status="PASS")]
    vpn = [VpnTunnel(name="booth-gw <-> home-gw", state="ESTABLISHED", recovery_time_s=4.2,
                     max_recovery_s=30, devices=["booth-gw", "home-gw"])]
    return ValidationResults(network="sc-booth", generated="2000-11-04T21:30:00Z",
                             stages=stages, zones=zones, isolation=rows, mtu=mtu,
                             throughput=throughput, vpn=vpn)
