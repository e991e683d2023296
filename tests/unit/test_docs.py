"""The guide builds as a site (mkdocs, strict), the README stays a short map of it, and a broken
link fails the build."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

MKDOCS = str(Path(sys.executable).parent / "mkdocs")


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MKDOCS, "build", "--strict", "-f", str(root / "mkdocs.yml"), "-d", str(site)],
                          capture_output=True, text=True, cwd=root)


def test_the_site_builds_strict_with_a_page_per_topic(tmp_path: Path) -> None:
    done = build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    for page in ("intent", "deploy", "validate", "watch", "tests", "benchmarks"):
        assert (tmp_path / "site" / page / "index.html").is_file(), page


def test_a_broken_link_fails_the_build_naming_it(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    with open(tmp_path / "docs" / "deploy.md", "a") as page:
        page.write("\nSee [the rollback](rollbacks.md).\n")
    done = build(tmp_path, tmp_path / "site")
    assert done.returncode != 0
    assert "rollbacks.md" in done.stderr


def test_the_readme_is_a_short_map_whose_links_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    linked = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(linked) >= 15 and all((ROOT / link).is_file() for link in linked), linked
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(Path(link).name in nav for link in linked)


def test_the_intent_reference_page_is_the_models_own_and_lists_every_part_of_the_intent() -> None:
    """docs/intent-reference.md as `boothnet intent-reference` prints it (`make docs` writes it);
    every model the intent is made of has its table."""
    from pydantic import BaseModel

    from boothnet.intent import model
    from boothnet.intent.reference import WHERE, intent_reference

    assert (ROOT / "docs" / "intent-reference.md").read_text() == intent_reference() + "\n"
    parts = {cls for cls in vars(model).values() if isinstance(cls, type) and issubclass(cls, BaseModel)
             and cls.__module__ == model.__name__} - {model.Strict, model.Network}
    assert parts == {cls for _, cls in WHERE}
    page = intent_reference()
    assert "| `loss_pct` | number | `0` | >= 0, < 50 |" in page
    assert "| `zone` | one of `production`, `research`, `secure`, `outside` | required |" in page
