"""Batfish stage: snapshot assembly, answer interpretation, verify report, ACL review."""

from boothnet.batfish.intent import (
    AclBinding,
    IfaceRef,
    L1Link,
    PathFlow,
    SecureNetwork,
    Service,
    ServiceRule,
    SwitchVlans,
    VerifyIntent,
    Zone,
)
from boothnet.batfish.report import CheckResult, Finding, Severity, Status, VerifyReport
from boothnet.batfish.service import DOCKER_COMMAND, BatfishUnavailable, ServiceStatus

__all__ = [
    "DOCKER_COMMAND",
    "AclBinding",
    "BatfishUnavailable",
    "CheckResult",
    "Finding",
    "IfaceRef",
    "L1Link",
    "PathFlow",
    "SecureNetwork",
    "Service",
    "ServiceRule",
    "ServiceStatus",
    "Severity",
    "Status",
    "SwitchVlans",
    "VerifyIntent",
    "VerifyReport",
    "Zone",
]
