"""The floor's reach stage names what a host lacks, with its Debian package, from a real shell's
`command -v` on a host whose PATH holds only some of the tools."""

from __future__ import annotations

import shutil
from pathlib import Path

from boothnet.validate.access import TOOLS, Access
from boothnet.validate.floor.reach import reach_stage
from boothnet.validate.perf.runner import CommandResult, prefix_runner


def test_a_host_lacking_tools_is_named_with_their_packages_and_one_unreachable_with_why(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", *(t for t in TOOLS if t not in ("iperf3", "nuttcp"))):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    local = prefix_runner(["env", f"PATH={bin_dir}"])

    def runner(node: str, argv, timeout=None) -> CommandResult:  # the Runner protocol
        if node == "h9":
            return CommandResult(node, tuple(argv), 255, "", "unreachable over SSH: Permission denied (publickey)")
        return local(node, argv, timeout)

    access = Access("floor", runner, str)
    stage = reach_stage(["h1", "h9"], access, lambda _: None)
    assert stage.status == "ERROR"
    assert access.missing == {"h1": {"iperf3", "nuttcp"}}
    assert access.why_not("h1", "ping", "python3") is None
    assert access.why_not("h1", "iperf3") == "h1 lacks iperf3 (Debian package iperf3)"
    assert access.why_not("h9", "ping") == "h9: unreachable over SSH: Permission denied (publickey)"
    assert stage.reason == ("h1 lacks iperf3 (Debian package iperf3), nuttcp (Debian package nuttcp); "
                            "h9: unreachable over SSH: Permission denied (publickey)")
