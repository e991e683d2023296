"""Open sessions a new policy denies (boothnet.deploy.sessions): conntrack's recorded output read,
each entry judged by the offline end-to-end evaluator against lab-mini's policy as it was and with
a rule taken away, and the cut (or the list) recorded.

The recordings (recorded/conntrack/) are conntrack-tools 1.4.7 on Debian 12, in a router namespace
forwarding between 10.0.10.0/24 and 10.0.20.0/24 (lab-mini's users and lab VLANs; h1 is 10.0.10.11,
h3 10.0.20.11): a TCP session to port 22 open, one in CLOSE_WAIT, one in TIME_WAIT, NTP, a ping, an
IPv6 TCP session, raw protocols 89 and 47; ``conntrack -D`` of an entry there and of one gone; the
errors as a non-root user (``setpriv --reuid=nobody``) and without the tool.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from ipaddress import ip_address
from pathlib import Path

import pytest

from boothnet.deploy import batch, results, sessions
from boothnet.deploy.steps import DeployRun, Job, Target
from boothnet.lab.plan import lab_models
from boothnet.run import Run
from tests.helpers import INVENTORIES

RECORDED = Path(__file__).parent / "recorded" / "conntrack"


def recorded(name: str) -> str:
    return (RECORDED / name).read_text()


TABLE = recorded("list_extended.txt")
ADDRS = recorded("ip_addr.json")


def lab_mini(tmp_path: Path, without: str | None = None) -> sessions.PolicyJudge:
    """lab-mini's new policy as the lab runs it; *without*: that rule taken out of it."""
    inventory = tmp_path / "lab-mini"
    shutil.copytree(INVENTORIES / "lab-mini", inventory)
    policy = inventory / "group_vars" / "all" / "policy.yml"
    if without:
        lines = policy.read_text().splitlines(keepends=True)
        kept = [line for line in lines if f"name: {without}," not in line]
        assert len(kept) == len(lines) - 1, without
        policy.write_text("".join(kept))
    run = Run(inventory, tmp_path / "build")
    return sessions.PolicyJudge(run.net, lab_models(run, "dot1q"))


class RecordedRouter:
    """A router that answers as the recorded one did: its table (as it is after each cut, entries
    deleted gone, *picked_up* entries appearing after the first cut) and conntrack -D's answers."""

    def __init__(self, table: str = TABLE, picked_up: str = "", read_error: tuple[int, str] | None = None):
        self.lines = [line for line in table.splitlines() if line.strip()]
        self.picked_up = [line for line in picked_up.splitlines() if line.strip()]
        self.read_error = read_error
        self.deleted: list[str] = []

    def read_conntrack(self) -> tuple[str, str]:
        if self.read_error:
            raise sessions.read_error("r1", *self.read_error, "boothnet")
        return "\n".join(self.lines) + "\n", ADDRS

    def delete_conntrack(self, commands: Mapping[str, str]) -> dict[str, tuple[int, str]]:
        out = {}
        for name, command in commands.items():
            self.deleted.append(command)
            hit = [line for line in self.lines if sessions.parse_entry(line).delete_command() == command]  # type: ignore[union-attr]  # recorded lines are entries
            self.lines = [line for line in self.lines if line not in hit]
            out[name] = (0, recorded("delete_found.stderr")) if hit else (1, recorded("delete_gone.stderr"))
        self.lines += self.picked_up
        self.picked_up = []
        return out


def test_the_recorded_table_reads_entry_by_entry_in_its_original_direction() -> None:
    entries = sessions.parse_table(TABLE + recorded("list_extended.stderr"))
    assert len(entries) == 8  # the tally line conntrack prints is no entry
    by_proto = {(e.proto, e.state, e.dport): e for e in entries}
    ssh = by_proto[("tcp", "ESTABLISHED", 22)]
    assert (ssh.family, ssh.src, ssh.dst, ssh.sport) == (4, ip_address("10.0.10.11"), ip_address("10.0.20.11"), 49348)
    assert ssh.probe == sessions.Probe(ip_address("10.0.10.11"), ip_address("10.0.20.11"), "tcp", 22)
    assert by_proto[("tcp", "TIME_WAIT", 22)].sport == 49352
    ntp = by_proto[("udp", "", 123)]
    assert (ntp.src, ntp.sport, ntp.state) == (ip_address("10.0.10.11"), 54868, "")
    ping = by_proto[("icmp", "", None)]
    assert ping.icmp == ("8", "0", "16429") and ping.probe == sessions.Probe(ping.src, ping.dst, "icmp", None)
    v6 = by_proto[("tcp", "ESTABLISHED", 2222)]
    assert v6.family == 6 and v6.dst == ip_address("fd00:20::11")
    assert by_proto[("unknown", "", None)].proto_number == 89
    assert by_proto[("gre", "", None)].probe is None  # not a flow the evaluator models


def test_an_entry_is_deleted_by_exactly_its_own_tuple() -> None:
    entries = {(e.proto, e.state, e.family): e for e in sessions.parse_table(TABLE)}
    assert entries[("tcp", "ESTABLISHED", 4)].delete_command() == (
        "conntrack -D -f ipv4 -p tcp -s 10.0.10.11 -d 10.0.20.11 --sport 49348 --dport 22")
    assert entries[("icmp", "", 4)].delete_command() == (
        "conntrack -D -f ipv4 -p icmp -s 10.0.10.11 -d 10.0.20.11 --icmp-type 8 --icmp-code 0 --icmp-id 16429")
    assert entries[("unknown", "", 4)].delete_command() == "conntrack -D -f ipv4 -p 89 -s 10.0.10.11 -d 10.0.20.11"
    v6ping = sessions.parse_entry(
        "ipv6     10 icmpv6   58 29 src=fd00:10::11 dst=fd00:20::11 type=128 code=0 id=15931 src=fd00:20::11 "
        "dst=fd00:10::11 type=129 code=0 id=15931 mark=0 use=1")
    assert v6ping is not None and v6ping.probe is not None and v6ping.probe.proto == "icmp"
    assert v6ping.delete_command().endswith("--icmpv6-type 128 --icmpv6-code 0 --icmpv6-id 15931")


def test_a_line_without_addresses_is_an_error_not_a_guess() -> None:
    with pytest.raises(sessions.ConntrackError, match="without its addresses"):
        sessions.parse_entry("ipv4     2 tcp      6 431998 ESTABLISHED sport=1 dport=2")


def test_the_policy_as_it_was_denies_none_of_the_open_sessions(tmp_path: Path) -> None:
    judge = lab_mini(tmp_path)
    verdicts = sessions.judged(sessions.parse_table(TABLE), judge, sessions.local_addresses(ADDRS))
    # TIME_WAIT (closed), gre and protocol 89 (not modelled) and IPv6 (neither end in a lab-mini VLAN) are left out
    assert sorted((v.entry.proto, v.entry.dport, v.entry.state) for v in verdicts) == [
        ("icmp", None, ""), ("tcp", 22, "CLOSE_WAIT"), ("tcp", 22, "ESTABLISHED"), ("udp", 123, "")]
    assert sessions.denied(verdicts) == []


def test_a_rule_taken_away_selects_exactly_the_sessions_it_admitted(tmp_path: Path) -> None:
    judge = lab_mini(tmp_path, without="admins-ssh-to-lab")
    chosen = sessions.denied(sessions.judged(sessions.parse_table(TABLE), judge, sessions.local_addresses(ADDRS)))
    assert sorted((v.entry.sport, v.entry.state) for v in chosen) == [(47988, "CLOSE_WAIT"), (49348, "ESTABLISHED")]
    assert all("r1 USERS_IN" in v.why for v in chosen), [v.why for v in chosen]


def test_a_session_with_the_device_itself_is_never_judged(tmp_path: Path) -> None:
    judge = lab_mini(tmp_path, without="admins-ssh-to-lab")
    # the router's own address in the users VLAN (10.0.10.1, in the recorded `ip -j addr show`)
    own = ("ipv4     2 tcp      6 431998 ESTABLISHED src=10.0.10.11 dst=10.0.10.1 sport=40000 dport=22 "
           "src=10.0.10.1 dst=10.0.10.11 sport=22 dport=40000 [ASSURED] mark=0 use=1")
    assert sessions.judged(sessions.parse_table(own), judge, sessions.local_addresses(ADDRS)) == []
    assert len(sessions.judged(sessions.parse_table(own), judge, set())) == 1  # planted: without its addresses


def test_cut_deletes_the_denied_entries_and_counts_a_picked_up_session_once(tmp_path: Path) -> None:
    judge = lab_mini(tmp_path, without="admins-ssh-to-lab")
    # after the first cut, h3's next segment re-created the session the other way round (nf_conntrack_tcp_loose)
    picked_up = ("ipv4     2 tcp      6 431999 ESTABLISHED src=10.0.20.11 dst=10.0.10.11 sport=22 dport=49348 "
                 "src=10.0.10.11 dst=10.0.20.11 sport=49348 dport=22 [ASSURED] mark=0 use=1")
    router = RecordedRouter(picked_up=picked_up)
    record = sessions.Cutter(judge, "cut", sleep=lambda _: None).run("r1", router)
    assert record.checked and record.judged == 4
    assert [s["flow"] for s in record.ended] == ["10.0.10.11:47988 -> 10.0.20.11:22 tcp/22",  # table order
                                                 "10.0.10.11:49348 -> 10.0.20.11:22 tcp/22"]
    assert record.left == []
    assert router.deleted == [
        "conntrack -D -f ipv4 -p tcp -s 10.0.10.11 -d 10.0.20.11 --sport 47988 --dport 22",
        "conntrack -D -f ipv4 -p tcp -s 10.0.10.11 -d 10.0.20.11 --sport 49348 --dport 22",
        "conntrack -D -f ipv4 -p tcp -s 10.0.20.11 -d 10.0.10.11 --sport 22 --dport 49348"]  # the pick-up, cut too
    assert sum(" 22 " in line or "dport=22 " in line for line in router.lines) == 1  # only the TIME_WAIT one stays
    assert sessions.SessionRecord(**{k: v for k, v in record.as_dict().items()
                                     if k in sessions.SessionRecord.__dataclass_fields__}).summary() == "2 ended"


def test_list_leaves_every_session_open_and_names_it(tmp_path: Path) -> None:
    router = RecordedRouter()
    record = sessions.Cutter(lab_mini(tmp_path, without="admins-ssh-to-lab"), "list").run("r1", router)
    assert router.deleted == [] and record.ended == []
    assert [(s["src"], s["dst"], s["service"], s["outcome"]) for s in record.left] == [
        ("10.0.10.11", "10.0.20.11", "tcp/22", "left open")] * 2
    assert record.summary() == "2 left"


def test_a_session_gone_before_the_cut_is_not_counted_as_ended(tmp_path: Path) -> None:
    judge = lab_mini(tmp_path, without="admins-ssh-to-lab")
    router = RecordedRouter()
    real_delete = router.delete_conntrack

    def closes_first(commands: Mapping[str, str]) -> dict[str, tuple[int, str]]:
        router.lines = [line for line in router.lines if "sport=47988" not in line]  # it closed meanwhile
        return real_delete(commands)

    router.delete_conntrack = closes_first  # type: ignore[method-assign]  # the session closes between list and cut
    record = sessions.Cutter(judge, "cut", rounds=1).run("r1", router)
    assert [s["sport"] for s in record.ended] == [49348]
    assert "10.0.10.11:47988 -> 10.0.20.11:22 tcp/22 closed by itself before the cut" in record.why


@pytest.mark.parametrize(("error", "said"), [
    ((127, recorded("list_missing.stderr")), "r1 has no conntrack tool (/bin/sh: 1: conntrack: not found): install "
                                             "Debian's conntrack package"),
    ((1, recorded("list_not_root.stderr")), "r1: reading conntrack needs root (CAP_NET_ADMIN), the deploy runs as "
                                            "'boothnet'"),
])
def test_a_table_that_cannot_be_read_is_said_not_counted(tmp_path: Path, error: tuple[int, str], said: str) -> None:
    record = sessions.Cutter(lab_mini(tmp_path), "cut").run("r1", RecordedRouter(read_error=error))
    assert not record.checked and record.ended == [] and record.left == []
    assert record.why.startswith("sessions not checked: " + said), record.why
    assert record.summary() == "not checked"


def _deployed(device: str, outcome: results.Outcome, committed: bool) -> batch.Deployed:
    return batch.Deployed(DeployRun(commit={"committed": committed}), results.DeviceResult(device, outcome))


def _jobs(*devices: str) -> list[Job]:
    return [Job(d, Target(hostname=d, username="root"), Path("unused")) for d in devices]


def test_the_batch_checks_every_device_running_the_new_policy(tmp_path: Path) -> None:
    judge = lab_mini(tmp_path, without="admins-ssh-to-lab")
    routers = {"r1": RecordedRouter(), "r2": RecordedRouter()}
    opened = {name: batch.Session(driver=router) for name, router in routers.items()}
    cutter = sessions.Cutter(judge, "cut", rounds=1)
    # r2 unchanged: it holds the session too, and a pick-up there would bring it back on r1
    done = {"r1": _deployed("r1", "new-confirmed", True), "r2": _deployed("r2", "unchanged", False)}
    batch.end_sessions(done, _jobs("r1", "r2"), opened, cutter)
    assert [done[d].record.sessions_said for d in ("r1", "r2")] == ["2 ended", "2 ended"]
    totals = results.summarize([d.record for d in done.values()])["sessions"]
    # each session is held by r1 and r2: counted once
    assert totals == {"ended": 2, "left": 0, "not_checked": [], "flows_left": [],
                      "flows_ended": ["10.0.10.11:47988 -> 10.0.20.11:22 tcp/22",
                                      "10.0.10.11:49348 -> 10.0.20.11:22 tcp/22"]}
    table = results.summary_table([d.record for d in done.values()])
    assert "r1: session 10.0.10.11:49348 -> 10.0.20.11:22 tcp/22 ended (the new policy: denied at r1 USERS_IN" in table
    # nothing committed in this run (a list run before it left them): the policy in force still decides
    quiet = {"r1": _deployed("r1", "unchanged", False)}
    batch.end_sessions(quiet, _jobs("r1"), {"r1": batch.Session(driver=RecordedRouter())}, cutter)
    assert quiet["r1"].record.sessions_said == "2 ended"
    # a reverted device runs the previous policy: left alone
    reverted = {"r1": _deployed("r1", "reverted", True)}
    batch.end_sessions(reverted, _jobs("r1"), opened, cutter)
    assert reverted["r1"].record.sessions is None


def test_without_an_evaluated_policy_the_record_says_not_checked() -> None:
    done = {"r1": _deployed("r1", "new-confirmed", True)}
    batch.end_sessions(done, _jobs("r1"), {}, None, "no intent inventory to judge them against (option inventory)")
    assert done["r1"].record.sessions == {
        **sessions.not_checked("no intent inventory to judge them against (option inventory)").as_dict()}
    assert "r1: sessions not checked: no intent inventory" in results.summary_table([done["r1"].record])
