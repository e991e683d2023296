"""The validation report: results JSON in, report.json/.md/.html and PNG plots out.

    from boothnet.report import ValidationResults, write_report
    paths = write_report(ValidationResults.model_validate_json(text), "build/sc-booth/report")
"""

from boothnet.report.render import ReportPaths, write_report
from boothnet.report.schema import (
    Failure,
    IsolationRow,
    MtuRow,
    Stage,
    Summary,
    ValidationResults,
    VpnTunnel,
)
from boothnet.report.summary import summarize

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
