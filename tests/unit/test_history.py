"""Show day against rehearsal: what a comparison of two kept runs says, and what it does not."""

from __future__ import annotations

from pathlib import Path

from boothnet.report.history import compare, keep_run
from boothnet.report.render import write_report
from boothnet.validate.perf.schema import Interval, ThroughputResult
from boothnet.validate.results import IsolationRow, Stage, ValidationResults


def throughput(mbps: list[float], expected: float = 990e6) -> ThroughputResult:
    return ThroughputResult(tool="iperf3", succeeded=True, path="lab: h3 -> h4", source="h3", destination="h4",
                            throughput=sum(mbps) / len(mbps) * 1e6, expected=expected, pass_ratio=0.9,
                            intervals=[Interval(start=i, end=i + 1, throughput=m * 1e6) for i, m in enumerate(mbps)],
                            verdict="PASS" if sum(mbps) / len(mbps) * 1e6 >= 0.9 * expected else "FAIL",
                            limit="physical")


def results(mbps: list[float], leak: bool = False) -> ValidationResults:
    row = IsolationRow(src="h3", dst="h1", src_zone="lab", dst_zone="users", flow="tcp/22", expected="deny",
                       observed="permit" if leak else "deny")
    return ValidationResults(network="lab-mini", stages=[Stage(name="throughput", status="PASS")],
                             isolation=[row], throughput=[throughput(mbps)])


def kept(tmp_path: Path, res: ValidationResults, configs: dict[str, str]) -> Path:
    conf = tmp_path / "configs-before"
    for name, text in configs.items():
        (conf / name).parent.mkdir(parents=True, exist_ok=True)
        (conf / name).write_text(text)
    write_report(res, tmp_path / "report")
    return keep_run(tmp_path / "runs", tmp_path / "report", conf)


def configs_now(tmp_path: Path, configs: dict[str, str]) -> Path:
    conf = tmp_path / "configs-now"
    for name, text in configs.items():
        (conf / name).parent.mkdir(parents=True, exist_ok=True)
        (conf / name).write_text(text)
    return conf


def test_the_same_network_measured_again_is_no_change(tmp_path: Path) -> None:
    before = kept(tmp_path, results([990, 985, 992]), {"r1/frr.conf": "hostname r1\n"})
    cmp = compare(before, results([988, 991, 986]), configs_now(tmp_path, {"r1/frr.conf": "hostname r1\n"}))
    assert cmp.unchanged and cmp.lines() == [f"no change since the run of {before.name}"]


def test_a_throughput_regression_is_listed_with_its_size_and_limit(tmp_path: Path) -> None:
    before = kept(tmp_path, results([990, 985, 992]), {})
    cmp = compare(before, results([600, 590, 595]), configs_now(tmp_path, {}))
    assert cmp.newly_failing == ["throughput lab: h3 -> h4 (path, iperf3, 1 stream)"]
    (moved,) = cmp.moved
    assert moved.line.startswith("lab: h3 -> h4 (path, iperf3, 1 stream): 989.0 -> 595.0 Mb/s, -394.0 Mb/s (-40%), "
                                 "beyond its noise of ")
    assert moved.line.endswith("; expected 990.0 Mb/s (physical)")


def test_a_change_within_the_rows_own_noise_is_not_listed(tmp_path: Path) -> None:
    before = kept(tmp_path, results([990, 900, 960, 940]), {})  # a noisy path
    cmp = compare(before, results([930, 985, 905, 950]), configs_now(tmp_path, {}))
    assert cmp.moved == [] and cmp.unchanged


def test_two_steady_runs_a_few_percent_apart_are_no_change_but_a_larger_move_is_listed(tmp_path: Path) -> None:
    # CI's two clean runs: 987.9 then 953.4 Mb/s, each steady within its seconds
    before = kept(tmp_path, results([988, 988, 988]), {})
    assert compare(before, results([953, 953, 953]), configs_now(tmp_path, {})).moved == []
    (moved,) = compare(before, results([920, 920, 920]), configs_now(tmp_path, {})).moved
    assert moved.line.startswith("lab: h3 -> h4 (path, iperf3, 1 stream): 988.0 -> 920.0 Mb/s, -68.0 Mb/s (-7%), "
                                 "beyond its noise of 49.5 Mb/s")


def test_newly_passing_checks_and_changed_configs_are_listed(tmp_path: Path) -> None:
    before = kept(tmp_path, results([990], leak=True), {"r1/frr.conf": "hostname r1\nrouter ospf\n"})
    now = configs_now(tmp_path, {"r1/frr.conf": "hostname r1\nrouter ospf\n ospf router-id 1.1.1.1\n"})
    cmp = compare(before, results([990]), now)
    assert cmp.newly_passing == ["isolation h3 -> h1 tcp/22"]
    assert list(cmp.configs) == ["r1/frr.conf"] and "+ ospf router-id 1.1.1.1" in cmp.configs["r1/frr.conf"]
