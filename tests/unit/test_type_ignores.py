"""Every `# type: ignore` in src/ names the error it silences and says why, on its own line:
`# type: ignore[code]  # why` (mypy's warn_unused_ignores catches one no longer needed)."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from tests.helpers import ROOT

_IGNORE = re.compile(r"type:\s*ignore\b")
_EXPLAINED = re.compile(r"#\s*type:\s*ignore\[[\w-]+(?:\s*,\s*[\w-]+)*\]\s+#\s*\S")


def unexplained_ignores(path: Path, root: Path = ROOT) -> list[str]:
    """`file:line: comment` of each `type: ignore` in ``path`` without its error code and reason."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type == tokenize.COMMENT and _IGNORE.search(token.string) and not _EXPLAINED.search(token.string):
            found.append(f"{path.relative_to(root)}:{token.start[0]}: {token.string}")
    return found


def test_every_type_ignore_in_src_says_its_code_and_why() -> None:
    found = [line for path in sorted((ROOT / "src").rglob("*.py")) for line in unexplained_ignores(path)]
    assert not found, "a `# type: ignore` without `[code]  # why`:\n" + "\n".join(found)


def test_a_bare_or_unexplained_ignore_is_named(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("a = 1  # type: ignore\n"
                      "b = 2  # type: ignore[assignment]\n"
                      "c = 3  # type: ignore[assignment]  # the reason\n"
                      "d = '# type: ignore'\n")
    assert unexplained_ignores(source, tmp_path) == ["m.py:1: # type: ignore", "m.py:2: # type: ignore[assignment]"]
