"""Issue 34: the conditions a validate run measured under go into report.json; in the lab a
machine loaded beyond its cores is said to be busy (its throughput figures are suspect)."""

from __future__ import annotations

import os

from boothnet.intent import load_network
from boothnet.validate.access import Access
from boothnet.validate.checks.conditions import measured_conditions
from boothnet.validate.perf.runner import local_runner
from tests.helpers import INVENTORIES


def test_load_above_the_cores_is_busy_in_the_lab_and_the_tools_versions_are_the_hosts(monkeypatch) -> None:
    net = load_network(INVENTORIES / "lab-mini")
    cpus = os.cpu_count() or 1
    monkeypatch.setattr(os, "getloadavg", lambda: (cpus + 1.5, 1.0, 1.0))
    lab = measured_conditions(Access("lab", local_runner, str), net, (0.2, 0.1, 0.1))
    assert lab.busy and lab.load_after[0] == round(cpus + 1.5, 2) and lab.cpus == cpus
    assert lab.tools["iperf3"].startswith("iperf 3") and lab.tools["nuttcp"].startswith("nuttcp")
    floor = measured_conditions(Access("floor", local_runner, str), net, (0.2, 0.1, 0.1))
    assert floor.reached == "floor" and not floor.busy  # the controller's load is not the hosts'
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 1.0, 1.0))
    assert not measured_conditions(Access("lab", local_runner, str), net, (0.2, 0.1, 0.1)).busy
