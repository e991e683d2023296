"""The intent at a git ref: `git archive <ref> -- <inventory>` into a scratch folder under build/.

Only the inventory is taken from the ref; templates and code stay the working tree's, so the
review compares intents, not renderers. The scratch folder is removed whatever happens.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from boothnet.verify.acl_review.model import ReviewError


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, check=False)


def repo_path(inventory: Path) -> tuple[Path, str]:
    """(repository top, inventory path inside it); a ReviewError when it is not under git."""
    inv = inventory.resolve()
    top = _git(inv, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise ReviewError(
            f"{inventory}: not inside a git repository ({top.stderr.decode().strip()}); "
            "--base/--head need the intent's git history"
        )
    root = Path(top.stdout.decode().strip()).resolve()
    return root, inv.relative_to(root).as_posix()


@contextmanager
def inventory_at(inventory: Path, ref: str, scratch_parent: Path) -> Iterator[Path]:
    """The inventory as committed at `ref`, extracted under `scratch_parent`; removed on exit."""
    root, rel = repo_path(inventory)
    commit = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if commit.returncode != 0:
        raise ReviewError(f"git ref {ref!r} not found in {root}: give a commit, branch or tag (e.g. HEAD~1, main)")
    archive = _git(root, "archive", "--format=tar", commit.stdout.decode().strip(), "--", rel)
    if archive.returncode != 0:
        raise ReviewError(
            f"{rel} does not exist at {ref!r} ({archive.stderr.decode().strip()}); "
            "an ACL review needs the inventory in both base and head"
        )
    scratch_parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="intent-", dir=scratch_parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(scratch, filter="data")
        yield scratch / rel
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
