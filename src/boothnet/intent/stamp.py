"""The stamp of an intent: which version of an inventory a build was made from.

A build records the stamp in its summary (``build/<network>/configs.summary.json``); a
deploy recomputes it and refuses configs built from another version of the intent.

The stamp covers the files the intent is read from: ``hosts.yml`` (or ``hosts.yaml``) and
every file under ``group_vars/`` and ``host_vars/``, byte for byte. Hidden files (editor
droppings) and vault-encrypted files (secrets, never intent: the loader skips them, so a
rotated password does not make the configs stale) are left out.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOSTS_FILES = ("hosts.yml", "hosts.yaml")
VAR_DIRS = ("group_vars", "host_vars")
VAULT_HEADER = b"$ANSIBLE_VAULT"


@dataclass(frozen=True)
class IntentStamp:
    directory: str  # the inventory folder, absolute
    digest: str  # sha256 over the sorted (relative path, file digest) lines
    files: dict[str, str] = field(default_factory=dict)  # relative path -> sha256 of its bytes

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IntentStamp:
        return cls(str(data["directory"]), str(data["digest"]), {str(k): str(v) for k, v in data["files"].items()})


def intent_files(root: Path) -> list[Path]:
    """The files of the inventory at *root* that the stamp covers, sorted by relative path."""
    found = [root / name for name in HOSTS_FILES if (root / name).is_file()]
    for name in VAR_DIRS:
        found += [p for p in (root / name).rglob("*") if p.is_file()]
    files = [p for p in found if not any(part.startswith(".") for part in p.relative_to(root).parts)]
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def stamp_intent(root: Path) -> IntentStamp:
    root = Path(root).resolve()
    digests: dict[str, str] = {}
    for path in intent_files(root):
        data = path.read_bytes()
        if not data.startswith(VAULT_HEADER):
            digests[path.relative_to(root).as_posix()] = hashlib.sha256(data).hexdigest()
    manifest = "".join(f"{digest}  {rel}\n" for rel, digest in digests.items())
    return IntentStamp(str(root), hashlib.sha256(manifest.encode()).hexdigest(), digests)


def changed_files(built: IntentStamp, now: IntentStamp) -> list[str]:
    """The files that differ between two stamps, sorted: ``a.yml``, ``b.yml (new)``, ``c.yml (removed)``."""
    changes = {rel: rel for rel in built.files.keys() & now.files.keys() if built.files[rel] != now.files[rel]}
    changes |= {rel: f"{rel} (new)" for rel in now.files.keys() - built.files.keys()}
    changes |= {rel: f"{rel} (removed)" for rel in built.files.keys() - now.files.keys()}
    return [changes[rel] for rel in sorted(changes)]
