"""The Ansible filters the iperf3/nuttcp roles use (plugins/filter/boothnet_perf.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from ansible.utils.collection_loader._collection_finder import _AnsibleCollectionFinder

from tests.helpers import ROOT

CASES = Path(__file__).parent / "cases"
# the plugin imports the collection's plugin_utils by FQCN, as Ansible loads it
_AnsibleCollectionFinder(paths=[str(ROOT / ".collections")])._install()
_spec = importlib.util.spec_from_file_location(
    "boothnet_perf_filters", ROOT / "plugins" / "filter" / "boothnet_perf.py")
assert _spec and _spec.loader
flt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(flt)
FILTERS = flt.FilterModule().filters()


def test_sizes() -> None:
    size = FILTERS["boothnet_size_bytes"]
    assert size("4M") == 4 * 1024 * 1024 and size("512K") == 524288 and size(1000) == 1000
    assert size("") is None and size(None) is None
    with pytest.raises(ValueError):
        size("four megs")


def test_registered_result_is_parsed_and_judged() -> None:
    case = CASES / "nuttcp" / "single_stream_1500"
    registered = {"stdout": (case / "output.txt").read_text(), "stderr": "", "rc": 0}
    expected_1g = FILTERS["boothnet_goodput"](1000, 1500)
    res = FILTERS["boothnet_nuttcp_result"](registered, source="n1", destination="10.0.0.2",
                                           path="p1", expected_bps=expected_1g)
    assert res["verdict"] == "PASS" and res["path"] == "p1" and res["mss"] == 1448
    json.dumps(res)  # plain data, fit for set_fact and a results file
    res10 = FILTERS["boothnet_nuttcp_result"](registered, path="p1",
                                             expected_bps=FILTERS["boothnet_goodput"](10000, 1500))
    assert res10["verdict"] == "FAIL"
    err = CASES / "iperf3" / "error_connection_refused" / "output.json"
    bad = FILTERS["boothnet_iperf3_result"]({"stdout": err.read_text(), "rc": 0},
                                            expected_bps=expected_1g)
    assert bad["verdict"] == "FAIL" and "refused" in bad["error"]


def test_argv_filters() -> None:
    argv = FILTERS["boothnet_nuttcp_client_argv"]("10.0.0.2", "5216", "2", "5", "1M", "")
    assert "-N2" in argv and "-P5216" in argv and "-p5217" in argv and "-w1024" in argv
    wrapped = FILTERS["boothnet_detached_argv"](["iperf3", "-s"], "/tmp/x.pid", 70)
    assert wrapped[0] == "setsid" and wrapped[-2:] == ["iperf3", "-s"] and "70" in wrapped
    assert FILTERS["boothnet_listening_ports"]("LISTEN 0 5 0.0.0.0:5201 0.0.0.0:*") == [5201]


def test_a_filter_used_where_boothnet_does_not_import_fails_naming_itself_and_why() -> None:
    """The plugin files load without boothnet (ansible-doc lists them on any controller)."""
    from ansible.errors import AnsibleFilterError
    from ansible_collections.boothnet.boothnet.plugins.plugin_utils.boothnet_filters import needing_boothnet

    missing = ModuleNotFoundError("No module named 'boothnet'")
    assert needing_boothnet(FILTERS, None) is FILTERS
    stand_ins = needing_boothnet(FILTERS, missing)
    assert set(stand_ins) == set(FILTERS)
    with pytest.raises(AnsibleFilterError, match=r"^boothnet_size_bytes: boothnet is not importable by the "
                       r"controller's Python \(No module named 'boothnet'\): run `make setup`"):
        stand_ins["boothnet_size_bytes"]("4M")
