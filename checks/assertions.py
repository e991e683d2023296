"""The `assert_*` library for checks: each returns True or raises with the offending rows.

The logic lives in `boothnet.verify.batfish.asserts` (unit-tested there); this is the name checks
and playbooks import.
"""

from boothnet.verify.batfish import asserts
from boothnet.verify.batfish.asserts import *  # noqa: F403 - this module is the public name of that library

__all__ = asserts.__all__
