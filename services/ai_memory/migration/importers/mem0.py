"""Mem0: the ``get_all`` / export JSON and the SQLite ``history`` table.

Shapes (see ``tests/fixtures/migration/mem0/README.md`` for the sources):

* export JSON — ``{"results": [{"id", "memory", "hash", "metadata", "created_at",
  "updated_at", "user_id", "agent_id", "run_id", ...}]}`` (``Memory.get_all`` and the
  platform's ``GET /v1/memories``), also a bare list or ``{"memories": [...]}``
* ``history.db`` — ``history(id, memory_id, old_memory, new_memory, event, created_at,
  updated_at, is_deleted, actor_id, role)`` written by ``mem0/memory/storage.py``

Mapping: a memory becomes a record (``user_id`` → ``user:<id>``, else ``agent_id`` →
``agent:<id>``, else ``run_id`` → ``session:<id>``); its type comes from
``metadata.type`` / ``memory_type`` / categories (``preference`` when the text states a
preference, ``fact`` otherwise). History rows are a change log: a memory whose last
event is ``DELETE`` becomes a tombstone stamped with the DELETE row's ``updated_at`` (the
deletion time; its ``created_at`` is the memory's creation); every other history row is
accounted as ``system_log``.

The history names no owner, so it is safe only with its companions, the ``get_all``
files: a surviving memory only the history knows is refused (the whole history when no
``get_all`` file came with it, that row otherwise) unless ``--scope-map
mem0:unknown-owner=user:<id>`` names the owner. Tombstones of memories whose owner no
file names go to ``mem0:unknown-owner``: they carry no content, only the promise that
the id never comes back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ai_memory.migration import Converted, Unimported, record_line, tombstone_line

from . import (
    PREFERENCE_TEXT,
    ImportOptions,
    RowError,
    guarded,
    iso,
    load_json,
    make_scope,
    safe_id,
    vectors_in,
)

SOURCE = "mem0"
# The scope of what only the history knows: Mem0 writes no owner into history.db. Never
# used for a memory unless the user maps it (--scope-map mem0:unknown-owner=user:<id>).
UNKNOWN_OWNER = "mem0:unknown-owner"
_TYPES = {"fact", "task", "preference", "skill", "interaction"}


def convert(path: Path, options: ImportOptions) -> Iterator[Converted]:
    """Convert a Mem0 export file, a ``history.db``, or a directory holding both."""
    exports: list[Path] = []
    history: Path | None = None
    if path.is_dir():
        exports = sorted(p for p in path.glob("*.json"))
        dbs = sorted(p for p in path.iterdir() if p.suffix in (".db", ".sqlite", ".sqlite3"))
        history = dbs[0] if dbs else None
    elif path.suffix in (".db", ".sqlite", ".sqlite3"):
        history = path
    else:
        exports = [path]
    known: dict[str, str] = {}
    for export in exports:
        yield from _convert_export(export, options, known)
    if history is not None:
        yield from _convert_history(history, options, known, companions=bool(exports))


def memories_of(data: Any) -> list[Any]:
    """The memory list of an export document (``results`` / ``memories`` / a bare list)."""
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        for key in ("results", "memories"):
            if isinstance(data.get(key), list):
                return list(data[key])
    raise RowError("not a Mem0 export: expected a list or an object with a 'results' list")


def _convert_export(
    path: Path, options: ImportOptions, known: dict[str, str]
) -> Iterator[Converted]:
    for index, row in enumerate(memories_of(load_json(path))):
        ref = f"{path.name}:results[{index}]"
        yield from guarded(ref, _memory, row, ref, options, known)


def _owner_scope(row: Mapping[str, Any], options: ImportOptions) -> str:
    for key, kind in (("user_id", "user"), ("agent_id", "agent"), ("run_id", "session")):
        if row.get(key):
            return make_scope(kind, row[key], options)
    return options.scope(options.default_scope)


def _memory_type(row: Mapping[str, Any], content: str) -> str:
    metadata = row.get("metadata") or {}
    declared = metadata.get("type") if isinstance(metadata, Mapping) else None
    if isinstance(declared, str) and declared in _TYPES:
        return declared
    kind = row.get("memory_type") or (
        metadata.get("memory_type") if isinstance(metadata, Mapping) else None
    )
    if kind == "procedural_memory":
        return "skill"
    categories = row.get("categories") or []
    if any("prefer" in str(c).lower() for c in categories) or PREFERENCE_TEXT.search(content):
        return "preference"
    return "fact"


def _memory(
    row: Any, ref: str, options: ImportOptions, known: dict[str, str]
) -> Iterator[Converted]:
    if not isinstance(row, Mapping):
        raise RowError("a memory must be a JSON object")
    content = row.get("memory")
    if not isinstance(content, str) or not content.strip():
        raise RowError("'memory' (the memory text) is missing or empty")
    memory_id = safe_id(row["id"])
    scope = _owner_scope(row, options)
    metadata = row.get("metadata") if isinstance(row.get("metadata"), Mapping) else {}
    meta: dict[str, Any] = {"source": SOURCE, "source_id": str(row["id"])}
    for key in ("hash", "updated_at", "agent_id", "run_id", "app_id", "categories"):
        if row.get(key):
            meta[key] = row[key]
    if metadata:
        meta["metadata"] = {k: v for k, v in metadata.items() if k not in ("embedding",)}
    tags = [str(c) for c in row.get("categories") or [] if isinstance(c, str)]
    known[memory_id] = scope
    yield from vectors_in(row, ref)
    yield record_line(
        {
            "id": memory_id,
            "type": _memory_type(row, content),
            "content": content.strip(),
            "scope": scope,
            "source_agent": str(row.get("agent_id") or options.source_agent or SOURCE),
            "created_at": iso(row.get("created_at")),
            "tags": tags,
            "meta": meta,
        }
    )


def _history_rows(path: Path) -> list[dict[str, Any]]:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise RowError(f"{path.name}: cannot open SQLite database: {e}") from e
    try:
        con.row_factory = sqlite3.Row
        cols = {r[1] for r in con.execute("PRAGMA table_info(history)")}
        if not cols:
            raise RowError(f"{path.name} has no 'history' table (not a Mem0 history.db)")
        # Old Mem0 versions named the columns prev_value/new_value/timestamp.
        old = "old_memory" if "old_memory" in cols else "prev_value"
        new = "new_memory" if "new_memory" in cols else "new_value"
        at = "created_at" if "created_at" in cols else "timestamp"
        changed = "updated_at" if "updated_at" in cols else "NULL"
        # Insertion order, not time order: Mem0 2.x writes the *memory's* creation time
        # into created_at of every row (UPDATE and DELETE too), so it cannot order events.
        sql = (
            f"SELECT rowid AS _row, id, memory_id, {old} AS old_memory, {new} AS new_memory, "
            f"event, {at} AS created_at, {changed} AS updated_at FROM history ORDER BY rowid"
        )
        return [dict(r) for r in con.execute(sql)]
    except sqlite3.DatabaseError as e:
        raise RowError(f"{path.name}: {e}") from e
    finally:
        con.close()


def _convert_history(
    path: Path, options: ImportOptions, known: dict[str, str], *, companions: bool
) -> Iterator[Converted]:
    by_memory: dict[str, list[dict[str, Any]]] = {}
    for row in _history_rows(path):
        ref = f"{path.name}:history:{row['_row']}"
        event = str(row.get("event") or "").upper()
        problem = (
            "no memory_id"
            if not row.get("memory_id")
            else f"event {row.get('event')!r} is not ADD, UPDATE, DELETE or NONE"
        )
        if not row.get("memory_id") or event not in ("ADD", "UPDATE", "DELETE", "NONE"):
            yield Unimported(ref, "rejected", f"malformed history row: {problem}")
            continue
        row["_ref"], row["event"] = ref, event
        by_memory.setdefault(str(row["memory_id"]), []).append(row)
    ownerless = [
        memory_id
        for memory_id, rows in by_memory.items()
        if rows[-1]["event"] != "DELETE" and _safe(memory_id) not in known
    ]
    if ownerless and not companions and not _owner_mapped(options):
        raise RowError(missing_owner_message(path.name, len(ownerless)))
    for memory_id, rows in by_memory.items():
        yield from guarded(rows[-1]["_ref"], _history_of, memory_id, rows, options, known)


def _safe(memory_id: str) -> str:
    try:
        return safe_id(memory_id)
    except RowError:
        return memory_id


def _owner_mapped(options: ImportOptions) -> bool:
    return options.scope(UNKNOWN_OWNER) != UNKNOWN_OWNER


def missing_owner_message(name: str, count: int) -> str:
    """Why a history without its ``get_all`` companions is refused, and what to do."""
    return (
        f"{name} names no owners (Mem0 keeps user_id/agent_id/run_id only in its vector "
        f"store), so the {count} memories it holds would land in no user's scope. Migrate "
        f"it together with its companions, the Mem0 get_all JSON files of its users (one "
        f"directory holding {name} and the get_all_<user>.json files), or name their owner "
        f"with --scope-map {UNKNOWN_OWNER}=user:<id>"
    )


def _deleted_at(row: Mapping[str, Any]) -> str:
    """The deletion time of a DELETE row: Mem0 2.x stamps it in ``updated_at``
    (``created_at`` repeats the memory's creation); older versions had only a per-row
    ``timestamp``, read as ``created_at``."""
    deleted_at = iso(row.get("updated_at"), "updated_at") or iso(
        row.get("created_at"), "deleted_at"
    )
    if deleted_at is None:
        raise RowError("DELETE event without a timestamp")
    return deleted_at


def _history_of(
    memory_id: str, rows: list[dict[str, Any]], options: ImportOptions, known: dict[str, str]
) -> Iterator[Converted]:
    last = rows[-1]
    rid = safe_id(memory_id)
    if last["event"] == "DELETE":
        # A deleted memory is in no get_all file; its tombstone keeps the id forgotten
        # forever, in its known owner's scope or, failing that, the scope that says the
        # owner is unknown (a tombstone holds no content, so no memory is misplaced).
        scope = known.pop(rid, None) or options.scope(UNKNOWN_OWNER)
        for row in rows[:-1]:
            yield Unimported(row["_ref"], "system_log", f"change-log row of forgotten memory {rid}")
        yield tombstone_line(rid, scope, _deleted_at(last), "mem0_delete")
        return
    if rid in known:
        for row in rows:
            yield Unimported(
                row["_ref"],
                "system_log",
                f"change-log row of memory {rid}; its text comes from the export",
            )
        return
    if not _owner_mapped(options):
        raise RowError(
            f"memory {rid} is in the history but in none of the get_all files given, and "
            f"the history names no owner: add the get_all export of its user, or name the "
            f"owner with --scope-map {UNKNOWN_OWNER}=user:<id>"
        )
    text = next((r["new_memory"] for r in reversed(rows) if r.get("new_memory")), None)
    if not isinstance(text, str) or not text.strip():
        raise RowError(f"memory {rid} has no text in its history")
    first = rows[0]
    for row in rows[:-1]:
        yield Unimported(row["_ref"], "system_log", f"earlier change-log row of memory {rid}")
    scope = options.scope(UNKNOWN_OWNER)
    known[rid] = scope
    meta: dict[str, Any] = {"source": SOURCE, "source_id": memory_id, "from": "history"}
    if last.get("updated_at"):
        meta["updated_at"] = last["updated_at"]
    yield record_line(
        {
            "id": rid,
            "type": "preference" if PREFERENCE_TEXT.search(text) else "fact",
            "content": text.strip(),
            "scope": scope,
            "source_agent": options.source_agent or SOURCE,
            "created_at": iso(first.get("created_at")),
            "meta": meta,
        }
    )
