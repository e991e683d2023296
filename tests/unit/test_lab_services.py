"""Which FRR daemons a lab node starts (no namespaces, no root: the commands are captured)."""

from __future__ import annotations

from pathlib import Path

import pytest

from boothnet.lab import names, services
from boothnet.lab.plan import plan_lab
from boothnet.lab.runner import day0_frr_conf
from boothnet.lab.services import frr_daemons
from tests.helpers import ROOT

L2_ONLY = "frr defaults traditional\nhostname rsw1\n!\ninterface eth1\n mtu 9000\n!\nline vty\n!\n"
OSPF = "hostname r1\n!\ninterface eth1\n ip ospf area 0\n!\nrouter ospf\n ospf router-id 10.0.0.1\n!\n"
BGP = "hostname r1\n!\nrouter bgp 65001\n neighbor 10.0.0.2 remote-as 65002\n!\n"


@pytest.mark.parametrize(
    ("conf", "daemons"),
    [
        ("", ["zebra", "staticd"]),
        (L2_ONLY, ["zebra", "staticd"]),
        (day0_frr_conf("r1"), ["zebra", "staticd"]),
        (OSPF, ["zebra", "staticd", "ospfd"]),
        (BGP, ["zebra", "staticd", "bgpd"]),
        (OSPF + BGP, ["zebra", "staticd", "ospfd", "bgpd"]),
        ("router ospf6\n ospf6 router-id 10.0.0.1\n!\n", ["zebra", "staticd", "ospf6d"]),  # not ospfd
        ("! router ospf\n", ["zebra", "staticd"]),  # a comment
    ],
)
def test_frr_daemons(conf: str, daemons: list[str]) -> None:
    assert frr_daemons(conf) == daemons


def test_lab_rendering_of_sc_booth_runs_ospfd_only_where_configured(tmp_path: Path) -> None:
    spec, result = plan_lab(ROOT / "inventories" / "sc-booth", "segment", tmp_path)
    assert result.ok
    wanted = {
        n.name: frr_daemons((Path(n.config_dir) / "frr.conf").read_text()) for n in spec.nodes if n.kind == "router"
    }
    assert wanted["rsw1"] == ["zebra", "staticd"]  # the research switch: L2 only
    assert wanted["core1"] == ["zebra", "staticd", "ospfd"]


@pytest.fixture
def captured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    commands: list[list[str]] = []
    monkeypatch.setattr(names, "FRR_ETC", tmp_path / "etc")
    monkeypatch.setattr(names, "FRR_RUN", tmp_path / "run")
    monkeypatch.setattr(services, "_chown_frr", lambda paths: None)
    monkeypatch.setattr(services, "_read_pid", lambda path, timeout=5.0: 4242)
    monkeypatch.setattr(services, "run", lambda cmd, what, timeout=30: commands.append(cmd) or "")
    return commands


def started(commands: list[list[str]]) -> list[str]:
    return [Path(c[c.index("-N") - 1]).name for c in commands if "-d" in c]


def test_start_frr_day0_takes_the_daemons_from_the_rendered_config(tmp_path: Path, captured) -> None:
    day0, rendered = tmp_path / "frr.day0.conf", tmp_path / "frr.conf"
    day0.write_text(day0_frr_conf("r1"))
    rendered.write_text(OSPF)

    pids = services.start_frr("ns", "net", "net-r1", day0, "r1", rendered)

    assert started(captured) == ["zebra", "staticd", "ospfd"]
    assert sorted(pids) == ["ospfd", "staticd", "zebra"]
    # the node boots from the day-0 file; the rendered one only chose the daemons
    assert (tmp_path / "etc" / "net-r1" / "frr.conf").read_text() == day0_frr_conf("r1")


def test_start_frr_l2_only_node_runs_no_ospfd(tmp_path: Path, captured) -> None:
    conf = tmp_path / "frr.conf"
    conf.write_text(L2_ONLY)
    assert sorted(services.start_frr("ns", "net", "net-rsw1", conf, "rsw1")) == ["staticd", "zebra"]
    assert started(captured) == ["zebra", "staticd"]
