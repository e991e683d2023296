"""validate's verdicts, alone: a row where Batfish and the live lab disagree fails, and so does
the isolation (Batfish) stage, naming the first such row."""

from __future__ import annotations

from boothnet.validate.checks.isolation import judge_batfish_agreement
from boothnet.validate.results import IsolationRow, Stage


def row(observed, batfish, expected="deny"):
    return IsolationRow(src="h3", dst="h1", src_zone="lab", dst_zone="users", flow="tcp/22", expected=expected,
                        observed=observed, batfish=batfish, batfish_detail="DENIED_IN; denied by r2 LAB_IN")


def test_agreement_passes_and_disagreement_fails_naming_both():
    agree = [row("deny", "deny"), row("permit", "permit", expected="permit")]
    assert [r.verdict for r in agree] == ["PASS", "PASS"]
    assert judge_batfish_agreement(Stage(name="isolation (Batfish)", status="PASS"), agree).status == "PASS"
    drift = row("permit", "deny")
    assert drift.verdict == "FAIL"
    stage = judge_batfish_agreement(Stage(name="isolation (Batfish)", status="PASS"), [*agree, drift])
    assert stage.status == "FAIL"
    assert stage.reason == ("1 flow(s) where the configs and the live lab disagree, first: h3 -> h1 tcp/22: "
                            "lab permit, Batfish deny (DENIED_IN; denied by r2 LAB_IN)")


def test_a_row_batfish_was_not_asked_about_is_judged_on_the_intent_alone():
    assert row("deny", None).verdict == "PASS" and row("permit", None).verdict == "FAIL"


def test_isolation_judges_a_refusal_as_reached_and_a_missing_responder_as_an_error():
    from boothnet.intent import load_network
    from boothnet.validate.checks.isolation import Responder, judge
    from boothnet.validate.plan import Flow

    net = load_network("inventories/lab-mini")
    h1, h3 = net.endpoints["h1"], net.endpoints["h3"]
    ready = Responder("h3", "lab-mini-h3", "/tmp/x")
    deny = Flow(h3, h1, "tcp", 22, "deny", "research-not-to-users")
    assert judge(deny, ["refused"], ready)[:1] == ("permit",)  # a RST got back: the SYN got through
    assert judge(deny, ["timeout"], ready) == ("deny", "no answer (dropped)", None)
    udp = Flow(h1, h3, "udp", 123, "permit", "admins-ntp-to-lab")
    assert judge(udp, ["timeout"], ready)[0] == "deny"  # silence is not a delivery
    ready.seen.add(("udp", 123, "10.0.10.11"))
    # a permit whose reply is lost does not work (issue 66): the row fails; on a deny row it is a leak
    assert judge(udp, ["timeout"], ready) == ("deny", "seen by the responder, its reply lost", None)
    leak = Flow(h1, h3, "udp", 123, "deny", "research-not-to-users")
    assert judge(leak, ["timeout"], ready) == ("permit", "seen by the responder, its reply lost", None)
    broken = Responder("h3", "lab-mini-h3", "/tmp/x", error="the responder on h3 did not become ready within 10 s")
    assert judge(udp, ["timeout"], broken) == (None, "", "the responder on h3 did not become ready within 10 s")
    sample = Flow(h3, h1, "tcp", None, "deny", "research-not-to-users", sample=(3306, 8080))
    observed, detail, _ = judge(sample, ["timeout", "open"], ready)
    assert observed == "permit" and detail == "1 of 2 sampled ports reached: tcp/8080 open"


def test_a_stage_with_no_rows_is_not_run_and_errors_are_apart():
    from boothnet.validate.results import MtuRow
    from boothnet.validate.verdicts import timed_stage

    stages: list[Stage] = []
    timed_stage(stages, "mtu", lambda: [], "no endpoints")
    assert (stages[0].status, stages[0].reason) == ("NOT RUN", "no endpoints")
    row = MtuRow(path="p", mtu=1500, verdict="ERROR")
    timed_stage(stages, "mtu", lambda: [row])
    assert (stages[1].status, stages[1].reason) == ("ERROR", "1 of 1 checks could not be made")


def test_the_headline_counts_errors_apart_from_failures():
    from boothnet.report.summary import summarize
    from boothnet.validate.results import IsolationRow, Stage, ValidationResults

    row = IsolationRow(src="h1", dst="h3", src_zone="users", dst_zone="lab", flow="tcp/22", expected="permit",
                       error="the responder on h3 could not listen on tcp/22: Address already in use")
    stage = Stage(name="isolation", status="ERROR", reason="1 of 1 checks could not be made")
    results = ValidationResults(network="lab-mini", isolation=[row], stages=[stage])
    summary = summarize(results)
    assert row.verdict == "ERROR" and summary.overall == "FAIL" and summary.errors == 2
    assert summary.headline == "FAIL: 2 errors (checks that could not be made)"
    assert summary.counts["isolation"]["ERROR"] == 1 and summary.counts["isolation"]["PASS"] == 0


def test_a_row_not_judged_here_neither_passes_nor_fails_its_stage():
    """A hidden booth printed `FAIL stage: stage wan: 1 of 11 checks did not pass` with no failing
    row: its one row that was not a PASS was SKIPPED (UDP beside TCP filling the lab's tunnel)."""
    from boothnet.validate.results import MtuRow
    from boothnet.validate.verdicts import timed_stage

    stages: list[Stage] = []
    passed, skipped, failed = (MtuRow(path="p", mtu=1500, verdict=v) for v in ("PASS", "SKIPPED", "FAIL"))
    timed_stage(stages, "wan", lambda: [passed] * 10 + [skipped])
    timed_stage(stages, "wan", lambda: [skipped])
    timed_stage(stages, "wan", lambda: [passed, skipped, failed])
    assert [(s.status, s.reason) for s in stages] == [
        ("PASS", None), ("SKIPPED", "none of 1 checks judged here"),
        ("FAIL", "1 of 3 checks failed (1 not judged here)")]


def test_convergence_with_no_ping_to_make_is_not_run_never_a_pass() -> None:
    """A watch round's share of lab-mini may hold no permitted ping between VLANs (and lab-mini has
    no uplink): its first round said convergence PASS having pinged nothing."""
    from boothnet.intent import load_network
    from boothnet.validate.access import Access
    from boothnet.validate.checks.convergence import wait_converged
    from tests.helpers import INVENTORIES

    def no_host(*_args: object) -> None:
        raise AssertionError("nothing to ping: no host is asked")

    stage = wait_converged(load_network(INVENTORIES / "lab-mini"), Access("lab", no_host, str), [], timeout_s=5)
    assert stage.status == "NOT RUN"
    assert stage.reason == "no permitted ping between VLANs, and none north-south, in this sample"


def test_convergence_that_fails_says_how_many_pings_still_fail_and_names_them() -> None:
    """One dead adjacency fails a few of the sample's pings, routing down nearly all: the reason
    says which, as a share, before naming them."""
    from boothnet.intent import load_network
    from boothnet.validate.access import Access
    from boothnet.validate.checks.convergence import wait_converged
    from boothnet.validate.perf.runner import CommandResult
    from boothnet.validate.plan import isolation_plan
    from tests.helpers import INVENTORIES

    net = load_network(INVENTORIES / "lab-mini")
    flows = isolation_plan(net, 1).flows
    pings = [f for f in flows if f.proto == "icmp" and f.expected == "permit"]
    dead = pings[0].src.name  # every ping this host sends is lost

    def runner(node: str, argv: list[str], timeout: float) -> CommandResult:
        received = 0 if node == dead else 1
        return CommandResult(node, tuple(argv), 1 - received, f"1 packets transmitted, {received} received", "")

    stage = wait_converged(net, Access("lab", runner, str), flows, timeout_s=0.1)
    lost = [f for f in pings if f.src.name == dead]
    assert stage.status == "FAIL" and 0 < len(lost) < len(pings), stage
    assert stage.reason == (f"not converged after 0.1 s: {len(lost)} of {len(pings)} pings still fail: "
                            + ", ".join(f"{f.src.name} -> {f.dst.name}" for f in lost)), stage.reason
