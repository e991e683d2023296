"""Regenerate the golden configs: `make golden`, then review `git diff tests/golden`."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from boothnet.render.build import build  # noqa: E402

NETWORKS = ("lab-mini", "sc-booth", "fw-booth", "eos-core", "sc-booth-ds", "eos-core-ds")


def main() -> None:
    for network in NETWORKS:
        with tempfile.TemporaryDirectory() as scratch:
            result = build(ROOT / "inventories" / network, Path(scratch), run_tools=False)
            target = ROOT / "tests" / "golden" / network
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(result.out_dir, target)
            print(f"{network}: {len(result.files)} files -> {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
