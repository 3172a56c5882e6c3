"""What the front door and the docs cite exists: every relative link resolves, and every
file the text names in backticks (``tests/…``, ``core/secrets.py``) is in the tree, so a
moved or deleted file cannot leave a doc pointing at nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", ROOT / "deploy" / "README.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A path in backticks: has a slash and ends in a file name with an extension, or a slash.
CITED = re.compile(r"`([\w.\-]+(?:/[\w.\-*]+)+/?)`")
# Where a path in the text may be relative to: the repository, the package (Python or
# TypeScript), the doc itself.
BASES = (ROOT, ROOT / "services" / "ai_memory", ROOT / "services", ROOT / "services" / "sdk-ts")


def _exists(path: str, doc: Path) -> bool:
    if "*" in path:
        return any(list(base.glob(path)) for base in (*BASES, doc.parent))
    return any((base / path).exists() for base in (*BASES, doc.parent))


def broken(doc: Path) -> list[str]:
    text = doc.read_text(encoding="utf-8")
    found = []
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "#", "mailto:")):
            continue
        path = target.split("#", 1)[0]
        if not (doc.parent / path).exists():
            found.append(f"link {target}")
    for cited in CITED.findall(text):
        if "." not in cited.rsplit("/", 1)[-1] and not cited.endswith("/"):
            continue  # a URL path, a scope (`user:alice`), a media type: not a file
        if cited.startswith(("/", "http")) or ":" in cited:
            continue
        if not _exists(cited, doc):
            found.append(f"cited {cited}")
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_what_a_doc_cites_exists(doc: Path) -> None:
    assert broken(doc) == []


def test_the_check_finds_a_broken_link_and_a_missing_file(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text("See [there](missing.md) and `tests/unit/no_such_test.py`.\n")
    assert broken(doc) == ["link missing.md", "cited tests/unit/no_such_test.py"]


def test_the_readme_is_a_front_door() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200
