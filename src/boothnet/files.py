"""Writing a stage's artifacts so that a failure (a kill, a full disk) leaves the previous good
set in place, never a mix: a folder is filled under a temporary name and swapped in whole; a single
file is written to a temporary name and renamed over the old one."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path


def write_text_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def recover(out_dir: Path) -> None:
    """A swap cut short between its two renames leaves the previous folder under its old-name:
    put it back; drop any half-filled new one."""
    old, new = _names(out_dir)
    if old.exists() and not out_dir.exists():
        old.rename(out_dir)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(new, ignore_errors=True)


def _names(out_dir: Path) -> tuple[Path, Path]:
    return out_dir.with_name(f".{out_dir.name}.old"), out_dir.with_name(f".{out_dir.name}.new")


@contextlib.contextmanager
def staged_dir(out_dir: Path) -> Iterator[Path]:
    """A fresh folder to fill; on success it replaces ``out_dir`` whole, on any error it is removed
    and ``out_dir`` stays as it was."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    recover(out_dir)
    old, new = _names(out_dir)
    new.mkdir()
    try:
        yield new
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    if out_dir.exists():
        out_dir.rename(old)
    new.rename(out_dir)
    shutil.rmtree(old, ignore_errors=True)
