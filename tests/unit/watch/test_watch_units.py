"""watch's parts on recorded and constructed data: the kernel's counters, rates between rounds,
the link checks, alarms and clears, the store's all-or-nothing rounds, the Prometheus export as
Prometheus' own parser reads it, the page, and the command's errors."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from boothnet.deploy.counters import kernel_counters
from boothnet.watch.alarms import changes, line
from boothnet.watch.links import link_checks, with_rates
from boothnet.watch.metrics import exposition
from boothnet.watch.model import Check, PathRtt, RoundRecord, WireSample
from boothnet.watch.page import render_page
from boothnet.watch.store import Store
from tests.helpers import ROOT

RECORDED = Path(__file__).parent / "recorded"
TRUNK = "C01 r1 eth3 <-> r2 eth3"


def test_the_kernels_counters_as_napalm_names_them_and_a_port_without_carrier_is_down() -> None:
    # sc-booth's rsw1 in the lab, eth9 (r09-fs's port) shut
    ports = kernel_counters((RECORDED / "ip_s_link_rsw1.json").read_text())
    assert ports["eth1"].rx_octets == 4690589 and ports["eth1"].up is True
    assert ports["eth9"].up is False and ports["br110"].up is True
    assert set(ports) == {"lo", "eth1", "eth2", "eth9", "br110"}


def wire(**changes: object) -> WireSample:
    return replace(WireSample("C01", TRUNK, TRUNK, 1e9, a_to_b_octets=1000, b_to_a_octets=2000, errors=0,
                              discards=0, up=True, read_at=100.0), **changes)


def test_rates_between_rounds_and_none_across_a_counter_reset() -> None:
    before = {TRUNK: wire()}
    (now,) = with_rates([wire(a_to_b_octets=1000 + 12_500_000, b_to_a_octets=2000, read_at=110.0, errors=3)], before)
    assert now.a_to_b_bps == pytest.approx(10e6) and now.b_to_a_bps == 0 and now.new_errors == 3
    (reset,) = with_rates([wire(a_to_b_octets=10, read_at=110.0)], before)  # the device rebooted
    assert reset.a_to_b_bps is None
    (first,) = with_rates([wire()], {})
    assert first.a_to_b_bps is None


def test_link_checks_name_the_cable_and_the_end_that_is_down() -> None:
    down = link_checks([wire(up=False, down_at="r1 eth3")])
    assert [(c.key, c.status, c.message) for c in down] == [
        (f"link: cable {TRUNK}", "FAIL", "link down at r1 eth3")]
    assert down[0].action.startswith("plug C01 back in as its label says (r1 eth3 <-> r2 eth3)")
    errors = link_checks([wire(new_errors=7)])
    assert [(c.section, c.message) for c in errors] == [("errors", "7 frame errors since the previous round")]
    unread = link_checks([wire(error="ip -s link on r1: exit 1")])
    assert [(c.status, c.message) for c in unread] == [("ERROR", "counters not read: ip -s link on r1: exit 1")]
    assert link_checks([wire()]) == []


def check(key: str, section: str = "link") -> Check:
    return Check(key, section, key.partition(": ")[2], "FAIL", "broken", "fix it")


def record(number: int, failing: list[Check], checked: set[str]) -> RoundRecord:
    return RoundRecord(number=number, started=number * 10.0, finished=number * 10.0 + 5, seed=number, verdict="",
                       headline="", checks=10, failing=failing, checked=checked)


def test_alarms_only_on_change_and_a_check_not_made_this_round_stays_open() -> None:
    link, flow = check("link: cable C01"), check("isolation: flow a -> b icmp", "isolation")
    first = record(1, [link, flow], {"link"})
    assert [(e.state, e.key) for e in changes([], first, lambda _: None)] == [
        ("ALARM", link.key), ("ALARM", flow.key)]
    still = record(2, [link], {"link"})  # the flow was not in this round's sample
    assert changes(first.failing, still, lambda _: None) == []
    assert flow in still.failing  # carried as open
    cleared = record(3, [], {"link", flow.key})
    events = changes(still.failing, cleared, lambda _: 15.0)
    assert [(e.state, e.key, e.since) for e in events] == [("CLEAR", link.key, 15.0), ("CLEAR", flow.key, 15.0)]
    assert line(events[0]).endswith("passes again, 20 s after its alarm at " + line(events[0]).rsplit(" at ", 1)[1])
    alarm = changes([], record(4, [link], {"link"}), lambda _: None)[0]
    assert line(alarm).split(" ", 2)[2] == "ALARM link: cable C01: broken. Do: fix it"


def test_a_round_is_kept_whole_or_not_at_all_and_a_reopened_store_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "watch.sqlite"
    store = Store(db)
    one = record(1, [check("link: cable C01")], {"link"})
    one.wires = [wire()]
    one.rtt = [PathRtt("path home", 50.3, 0.0, 50.0, "PASS")]
    store.append(one, changes([], one, store.since))
    torn = record(2, [], {"link"})
    torn.wires = [wire(), wire()]  # the same wire twice: the insert fails half way
    with pytest.raises(Exception, match="UNIQUE"):
        store.append(torn, [])
    store.close()
    again = Store(db)
    assert again.last_round() == 1 and again.failing(1) == one.failing
    assert [w for _, w in again.wires()] == [wire()] and again.since("link: cable C01") == 15.0
    assert [e.state for e in again.events()] == ["ALARM"]


def test_the_export_reads_as_prometheus_reads_it_with_each_cables_rate(tmp_path: Path) -> None:
    store = Store(tmp_path / "watch.sqlite")
    for number, octets in ((1, 1000), (2, 1000 + 125_000_000)):
        r = record(number, [], {"link"})
        r.wires = with_rates([wire(a_to_b_octets=octets, read_at=number * 10.0)],
                             {w.wire: w for _, w in store.wires()} if number > 1 else {})
        store.append(r, [])
    families = {f.name: f for f in text_string_to_metric_families(exposition(store, "wt").decode())}
    rate = {s.labels["direction"]: s.value for s in families["boothnet_cable_bits_per_second"].samples}
    assert rate == {"a_to_b": pytest.approx(100e6), "b_to_a": 0.0}
    (sample,) = [s for s in families["boothnet_cable_bits_per_second"].samples if s.labels["direction"] == "a_to_b"]
    assert sample.labels == {"network": "wt", "cable": "C01", "label": TRUNK, "direction": "a_to_b",
                             "from": "r1 eth3", "to": "r2 eth3"}
    assert families["boothnet_cable_utilisation_ratio"].samples[0].value == pytest.approx(0.1)
    assert families["boothnet_cable_up"].samples[0].value == 1
    assert families["boothnet_watch_round"].samples[0].value == 2
    page = render_page(store, "wt", 300)
    assert "wt: PASS: all 10 checks passed (round 2)" in page
    assert "r1 eth3 -&gt; r2 eth3</td><td>100.0 Mb/s (10.0%)</td><td>100.0 Mb/s (10.0%)</td><td>100.0 Mb/s (10.0%)" \
        in page.replace("\n", "")


def boothnet(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "boothnet"), *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)


def test_the_commands_errors_are_sentences_not_tracebacks(tmp_path: Path) -> None:
    done = boothnet("watch", "-n", "lab-mini", "--build-dir", str(tmp_path), "--report")
    assert done.returncode == 2 and done.stderr.startswith("boothnet watch --report: no history at ")
    done = boothnet("watch", "-n", "lab-mini", "--build-dir", str(tmp_path), "--every", "0")
    assert done.returncode == 2 and "--every: wants a number of seconds above 0, got 0" in done.stderr
    for flag, value, said in (("--rounds", "x", "wants a whole number of rounds, 1 or more, got x"),
                              ("--rounds", "0", "wants a whole number of rounds, 1 or more, got 0"),
                              ("--port", "70000", "wants a TCP port 1-65535, or 0 for none, got 70000"),
                              ("--spot-check", "-3", "wants a number of seconds above 0, got -3")):
        done = boothnet("watch", "-n", "lab-mini", "--build-dir", str(tmp_path), f"{flag}={value}")
        assert done.returncode == 2 and f"{flag}: {said}" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_the_command_line_parser_loads_no_round_machinery() -> None:
    # every `boothnet` command builds the whole parser: the watch loop's imports (validate,
    # matplotlib, NAPALM) cost seconds per command, and the suite runs hundreds
    code = ("import sys; from boothnet.cli import _parser; _parser(); "
            "print(sorted(m for m in ('boothnet.watch.loop', 'boothnet.validate.access', 'matplotlib', 'napalm') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_page_puts_a_cable_that_is_down_first_then_the_busiest(tmp_path: Path) -> None:
    store = Store(tmp_path / "watch.sqlite")
    quiet, busy, down = (wire(cable=c, text=f"{c} a x <-> b y", wire=f"{c} a x <-> b y", **kw) for c, kw in (
        ("C01", {}), ("C02", {"a_to_b_bps": 5e8}), ("C03", {"up": False, "down_at": "a x"})))
    r = record(1, [], {"link"})
    r.wires = [quiet, busy, down]
    store.append(r, [])
    page = render_page(store, "wt", 300)
    assert page.index('id="C03"') < page.index('id="C02"') < page.index('id="C01"')
    assert "LINK DOWN" in page.split('id="C02"')[0]


def test_a_rotating_shares_failure_clears_only_when_its_own_probe_ran_again() -> None:
    from boothnet.validate.results import MtuRow, Stage, ValidationResults
    from boothnet.watch.round import checked_this_round

    probed = MtuRow(path="h1 -- r1:eth1", mtu=1500, verdict="PASS", device="r1")
    results = ValidationResults(network="wt", stages=[Stage(name="mtu", status="PASS"),
                                                      Stage(name="drift", status="PASS"),
                                                      Stage(name="cabling", status="ERROR")], mtu=[probed])
    checked = checked_this_round(results)
    assert "mtu: link h1 -- r1:eth1 [r1]" in checked and "mtu" not in checked  # h2's MTU alarm stays open
    assert "drift" in checked and "cabling" not in checked  # a stage that could not run clears nothing
    assert "stage: stage drift" in checked and "stage: stage cabling" not in checked


def test_a_stage_alarm_stays_open_through_a_round_that_did_not_run_that_stage() -> None:
    from boothnet.validate.results import Stage, ValidationResults
    from boothnet.watch.round import checked_this_round

    key = "stage: stage convergence"
    open_alarm = [check(key, "stage")]
    not_run = ValidationResults(network="wt", stages=[Stage(name="convergence", status="NOT RUN")])
    r = record(2, [], checked_this_round(not_run))
    assert changes(open_alarm, r, lambda _: None) == [] and [c.key for c in r.failing] == [key]
    ran = ValidationResults(network="wt", stages=[Stage(name="convergence", status="PASS")])
    cleared = changes(open_alarm, record(3, [], checked_this_round(ran)), lambda _: None)
    assert [(e.state, e.key) for e in cleared] == [("CLEAR", key)]


def test_one_fault_that_fails_many_checks_prints_its_cause_first_and_counts_the_rest() -> None:
    from boothnet.watch.alarms import announced

    behind = [check(f"isolation: flow users -> lab tcp/{port} (h1 -> h3)", "isolation") for port in range(20, 27)]
    cause = [check(f"link: cable {TRUNK}"), check("drift: device r1", "drift")]
    events = changes([], record(1, [*behind, *cause], {"link"}), lambda _: None)
    said = [line(e).split(" ", 2)[2] for e in announced(events)]
    assert said[:2] == [f"ALARM link: cable {TRUNK}: broken. Do: fix it", "ALARM drift: device r1: broken. Do: fix it"]
    assert len(said) == 6
    assert said[-1] == "ALARM more: 4 more checks fail (isolation 4): see the open alarms on the page"


def test_the_frr_linux_driver_answers_napalms_counters_and_link_state_from_the_kernel() -> None:
    """On a floor, watch reads every device through its NAPALM session; the frr_linux driver
    answers get_interfaces_counters and get_interfaces from the kernel (here rsw1's recorded output,
    eth9 shut)."""
    from types import SimpleNamespace

    from boothnet.deploy.frr_linux.driver import FrrLinuxDriver

    recorded = (RECORDED / "ip_s_link_rsw1.json").read_text()
    driver = FrrLinuxDriver("rsw1", "boothnet")
    asked = []
    driver._sh = lambda command, **_: asked.append(command) or SimpleNamespace(exit_code=0, stdout=recorded, stderr="")
    counters, interfaces = driver.get_interfaces_counters(), driver.get_interfaces()
    assert asked == ["ip -j -s link show", "ip -j link show"]
    assert counters["eth1"] == {"rx_octets": 4690589, "tx_octets": counters["eth1"]["tx_octets"], "rx_errors": 0,
                                "tx_errors": 0, "rx_discards": counters["eth1"]["rx_discards"], "tx_discards": 0}
    assert (interfaces["eth1"]["is_up"], interfaces["eth9"]["is_up"], interfaces["eth9"]["is_enabled"]) == (
        True, False, False)


def test_a_port_whose_cable_is_out_is_down_though_it_is_enabled() -> None:
    """r2's eth3 as the lab recorded it with its far end shut: admin up, no carrier. napalm-linux's
    own get_interfaces counts it up ("UP" in its flags); the kernel's carrier says down."""
    from types import SimpleNamespace

    from boothnet.deploy.frr_linux.driver import FrrLinuxDriver

    recorded = (RECORDED / "ip_s_link_r2_peer_unplugged.json").read_text()
    assert kernel_counters(recorded)["eth3"].up is False and kernel_counters(recorded)["eth1"].up is True
    driver = FrrLinuxDriver("r2", "boothnet")
    driver._sh = lambda command, **_: SimpleNamespace(exit_code=0, stdout=recorded, stderr="")
    eth3 = driver.get_interfaces()["eth3"]
    assert (eth3["is_enabled"], eth3["is_up"]) == (True, False)


def test_a_check_failing_behind_a_pulled_cable_is_said_as_its_effect_and_probed_again_once_it_clears() -> None:
    """Round 6 of a pulled h1 cable: the MTU probe through it fails too. It is the cable's effect,
    not an MTU black hole; r1's own MTU fault on another host's link stays its own diagnosis."""
    from boothnet.intent import load_network
    from boothnet.watch.alarms import attributed, cause_cleared, causes, still_behind
    from boothnet.watch.round import nodes_of

    net = load_network(ROOT / "inventories" / "lab-mini")
    cable = Check("link: cable C02 h1 eth0 <-> r1 eth1", "link", "cable C02 h1 eth0 <-> r1 eth1", "FAIL",
                  "link down at h1 eth0, r1 eth1", "plug C02 back in")
    behind = check("mtu: link h1 -- r1:eth1 [r1]", "mtu")
    own = check("mtu: link h2 -- r1:eth2 [r1]", "mtu")
    said = {c.key: c for c in attributed([cable, behind, own], nodes_of(net, []))}
    assert said[behind.key].message == f"behind the open alarm {cable.key} (broken)"
    assert said[behind.key].action.startswith(f"clear {cable.key} first")
    assert said[own.key] == own and said[cable.key] == cable
    cleared = changes([cable, behind], record(7, [], {"link"}), lambda _: None)
    assert cause_cleared(cleared) and [e.section for e in cleared if e.state == "CLEAR"] == ["link"]
    assert "link" in causes() and not cause_cleared(changes([behind], record(8, [], {behind.key}), lambda _: None))
    # probed again while a check behind it, or routing's convergence (ci121), still fails; not for a check of its own
    assert still_behind([behind]) and still_behind([check("stage: stage convergence", "stage")])
    assert not still_behind([check("drift: device r1", "drift")])


def test_a_scraper_that_hangs_up_is_no_traceback_and_another_error_is_one_line(capsys) -> None:
    """ci105: Prometheus gave up on /metrics while a round kept the machine busy, and every hang-up
    printed socketserver's traceback into watch's output."""
    from http.server import BaseHTTPRequestHandler

    from boothnet.watch.loop import _Server

    server = _Server(("127.0.0.1", 0), BaseHTTPRequestHandler)
    try:
        for error in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "Connection reset by peer"),
                      sqlite3.OperationalError("database is locked")):
            try:
                raise error
            except Exception:  # handle_error reads the exception being handled
                server.handle_error(None, ("127.0.0.1", 47228))
    finally:
        server.server_close()
    assert capsys.readouterr().err == ("watch: a request from 127.0.0.1 failed: OperationalError: "
                                       "database is locked\n")
