"""Scale-bench helpers: growth fit, process-tree memory, the naive playbook's model input."""

from __future__ import annotations

import json
import os
import sys

from boothnet.derive import derive_network
from boothnet.intent import load_network
from boothnet.render.build import write_model
from boothnet.tools.scalebench import growth_exponent, naive_host, run_measured, tree_rss_kb, write_naive_inputs


def test_growth_exponent_reads_linear_and_quadratic():
    sizes = [50, 200, 500]
    assert growth_exponent(sizes, [0.02 * n for n in sizes]) == 1.0
    assert growth_exponent(sizes, [0.001 * n * n for n in sizes]) == 2.0


def test_tree_rss_counts_this_process():
    assert tree_rss_kb(os.getpid()) > 1000


def test_run_measured_reports_exit_status_and_output():
    measured = run_measured([sys.executable, "-c", "print('hello'); raise SystemExit(3)"])
    assert measured.returncode == 3 and "hello" in measured.output_tail and measured.wall_s > 0


def test_naive_input_gives_back_the_derived_model(tmp_path):
    models = derive_network(load_network("inventories/sc-booth"))
    write_model(tmp_path / "configs.model.json", models)
    assert write_naive_inputs(tmp_path / "configs.model.json", "sc-booth", tmp_path / "naive") == len(models)
    host = naive_host((tmp_path / "naive" / "models" / "core1.json").read_text())
    assert host["model"] == models["core1"]
    assert host["features"][0] == "header" and host["network"] == "sc-booth"
    assert json.loads((tmp_path / "naive" / "models" / "bgw1.json").read_text())["features"][0] == "interfaces"
