"""Recognise a source's format from its path and its first bytes.

``detect(path)`` returns one of :data:`FORMATS` minus ``auto`` and says why, or raises
:class:`~ai_memory.migration.importers.RowError` when nothing fits. It reads at most the
first 64 KiB of a file (and SQLite's schema), never the whole source.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ai_memory.migration import Converted

from . import ImportOptions, RowError, cognee, langmem, letta, mem0, zep

FORMATS = ("auto", "mem0", "letta", "zep", "langmem", "cognee", "generic", "bundle")
Importer = Callable[[Path, ImportOptions], Iterator[Converted]]
IMPORTERS: dict[str, Importer] = {
    "mem0": mem0.convert,
    "letta": letta.convert,
    "zep": zep.convert,
    "langmem": langmem.convert,
    "cognee": cognee.convert,
}
_HEAD = 65536


def _head(path: Path) -> str:
    with path.open("rb") as raw:
        return raw.read(_HEAD).decode("utf-8", errors="replace")


def _json_head(path: Path) -> Any:
    """The parsed file when it is small enough to parse from its head, else None."""
    if path.stat().st_size > _HEAD:
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return None


def _has_history_table(path: Path) -> bool:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = con.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='history'"
            ).fetchone()
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return False
    return row is not None


def _from_object(data: Any, head: str) -> tuple[str, str] | None:
    if isinstance(data, dict):
        if ("agents" in data and "blocks" in data) or "core_memory" in data:
            return "letta", "an agent file (agents/blocks or core_memory)"
        if any(k in data for k in ("episodes", "episodic_nodes", "entity_edges")) or (
            "edges" in data and "fact" in head
        ):
            return "zep", "a graph dump with episodes / entity edges"
        inner = next(
            (data[k] for k in ("results", "memories", "items") if isinstance(data.get(k), list)),
            None,
        )
        if inner is not None:
            data = inner
    if isinstance(data, list) and data and isinstance(data[0], dict):
        first = data[0]
        if "memory" in first:
            return "mem0", "memories with a 'memory' text field"
        if "namespace" in first and "key" in first:
            return "langmem", "LangGraph store items (namespace, key, value)"
    return None


def _from_head(head: str) -> tuple[str, str] | None:
    """Heuristics on the first bytes of a large JSON file."""
    start = head.lstrip()[:1]
    if (
        '"agents"' in head and ('"block_ids"' in head or '"blocks"' in head)
    ) or '"core_memory"' in head:
        return "letta", "an agent file (agents/blocks or core_memory)"
    if '"episodes"' in head or '"entity_edges"' in head or '"source_node_uuid"' in head:
        return "zep", "a graph dump with episodes / entity edges"
    if start in ("{", "[") and '"memory"' in head and '"hash"' in head:
        return "mem0", "memories with 'memory' and 'hash' fields"
    if '"namespace"' in head and '"key"' in head and '"value"' in head:
        return "langmem", "LangGraph store items (namespace, key, value)"
    return None


def _json_shape(path: Path) -> str | None:
    """The tool a JSON file's shape names, if any."""
    guess = _from_object(_json_head(path), _head(path)) or _from_head(_head(path))
    return guess[0] if guess else None


_GENERIC = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".db", ".sqlite", ".sqlite3")


def detect(path: Path) -> tuple[str, str]:
    """``(format, reason)`` for ``path``."""
    if not path.exists():
        raise RowError(f"{path} does not exist")
    if path.is_dir():
        if (path / "manifest.json").exists():
            return "cognee", "a directory with a COGX manifest.json"
        if any(p.suffix in (".db", ".sqlite") and _has_history_table(p) for p in path.iterdir()):
            return "mem0", "a directory with a Mem0 history database"
        exports = sorted(p for p in path.glob("*.json") if p.is_file())
        if exports and all(_json_shape(p) == "mem0" for p in exports):
            # get_all files of several users, without their history: still Mem0, so each
            # memory keeps its owner (the generic reader would not know user_id).
            return "mem0", "a directory of Mem0 get_all exports"
        if any(p.suffix.lower() in _GENERIC for p in path.iterdir()):
            return "generic", "a directory of JSON/JSONL/CSV/SQLite files (one split export)"
        raise RowError(f"{path}: cannot tell the format of this directory; pass --format")
    name = path.name.lower()
    if name.endswith((".cogx.tar.gz", ".cogx.tgz")):
        return "cognee", "a packed COGX archive"
    if name.endswith(".af"):
        return "letta", "a Letta agent file (.af)"
    if path.suffix in (".db", ".sqlite", ".sqlite3"):
        if _has_history_table(path):
            return "mem0", "a SQLite database with a Mem0 'history' table"
        return "generic", "a SQLite database"
    head = _head(path)
    first_line = head.split("\n", 1)[0]
    if '"ai-memory.bundle"' in first_line:
        return "bundle", "an ai-memory bundle header"
    if path.suffix in (".ndjson", ".jsonl"):
        try:
            first = json.loads(first_line)
        except (json.JSONDecodeError, RecursionError):
            first = None
        if isinstance(first, dict) and "namespace" in first and "key" in first:
            return "langmem", "NDJSON LangGraph store items"
        if isinstance(first, dict) and first.get("kind") in ("record", "tombstone"):
            return "bundle", "NDJSON bundle lines"
        return "generic", "NDJSON rows"
    guess = _from_object(_json_head(path), head) or _from_head(head)
    if guess is not None:
        return guess
    return "generic", "no tool-specific shape recognised"
