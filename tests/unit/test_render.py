"""Template lookup: `host/<device>/<feature>.j2` before `<platform>/<feature>.j2`; a missing one is loud."""

from __future__ import annotations

import shutil

import pytest

from boothnet.derive import derive_network
from boothnet.errors import RenderError
from boothnet.intent import load_network
from boothnet.render.build import build, render_all
from boothnet.render.templates import Renderer
from tests.helpers import ROOT


@pytest.fixture(scope="module")
def models():
    return derive_network(load_network(ROOT / "inventories" / "lab-mini"))


@pytest.fixture
def templates(tmp_path):
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    return tmp_path / "templates"


def test_a_host_template_comes_before_the_platform_one(models, templates):
    (templates / "host" / "r1").mkdir(parents=True)
    (templates / "host" / "r1" / "frr.j2").write_text("! {{ d.name }}: host override\n")
    files = {f.path: f.text for f in render_all(models, "lab-mini", Renderer(templates))}
    assert files["r1/frr.conf"].startswith("! r1: host override\n")
    assert not files["r2/frr.conf"].startswith("! r2: host override")


def test_a_missing_template_names_every_place_searched(models, templates):
    (templates / "frr_linux" / "firewall.j2").unlink()
    with pytest.raises(RenderError) as caught:
        render_all(models, "lab-mini", Renderer(templates))
    assert str(caught.value) == "\n".join(
        f"{device}: no template for feature 'firewall' on platform 'frr_linux'; searched "
        f"{templates}/host/{device}/firewall.j2, {templates}/frr_linux/firewall.j2"
        for device in ("r1", "r2")
    )


def test_a_missing_template_writes_nothing(templates, tmp_path, monkeypatch):
    (templates / "frr_linux" / "firewall.j2").unlink()
    monkeypatch.setenv("BOOTHNET_TEMPLATES", str(templates))
    with pytest.raises(RenderError):
        build(ROOT / "inventories" / "lab-mini", tmp_path / "build", run_tools=False)
    assert not (tmp_path / "build").exists()
