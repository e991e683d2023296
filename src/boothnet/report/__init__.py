"""Stage 8, report: validation results in (`boothnet.validate.results`), report.json/.md/.html and
PNG plots out; the last stage.

    from boothnet.report import ValidationResults, write_report
    paths = write_report(ValidationResults.model_validate_json(text), "build/sc-booth/report")
"""

from boothnet.report.render import ReportPaths, write_report
from boothnet.report.summary import summarize
from boothnet.validate.results import (
    Failure,
    IsolationRow,
    MtuRow,
    Stage,
    Summary,
    ValidationResults,
    VpnTunnel,
)

__all__ = [
    "Failure",
    "IsolationRow",
    "MtuRow",
    "ReportPaths",
    "Stage",
    "Summary",
    "ValidationResults",
    "VpnTunnel",
    "summarize",
    "write_report",
]
