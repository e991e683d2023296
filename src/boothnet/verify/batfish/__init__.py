"""Batfish stage: snapshot assembly, answer interpretation, verify report, ACL review."""

from boothnet.verify.batfish.intent import (
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
from boothnet.verify.batfish.report import CheckResult, Finding, Severity, Status, VerifyReport
from boothnet.verify.batfish.service import DOCKER_COMMAND, BatfishUnavailable, ServiceStatus

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
