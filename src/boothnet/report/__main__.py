"""python -m boothnet.report RESULTS_JSON OUT_DIR: write the report, print its path."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boothnet.report.render import write_report
from boothnet.report.summary import summarize
from boothnet.validate.results import ValidationResults


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m boothnet.report")
    ap.add_argument("results", help="validation results JSON (boothnet.report.ValidationResults)")
    ap.add_argument("out_dir", help="folder for report.json/.md/.html and PNGs")
    args = ap.parse_args(argv)
    results = ValidationResults.model_validate_json(Path(args.results).read_text())
    paths = write_report(results, args.out_dir)
    print(summarize(results).headline)
    print(paths.html)
    return 1 if summarize(results).overall == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
