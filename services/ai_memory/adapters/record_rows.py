"""The row layout of the records projection, shared by the SQLite and Cassandra stores.

Both stores keep a record and a tombstone in the same columns, in the same order, with the
same encodings (times as integer microseconds, tags and meta as JSON text with sorted meta
keys), so the conversions live here once. Rows are read positionally in the order of
``RECORD_COLUMNS`` / ``TOMBSTONE_COLUMNS``.

The JSON text is written by orjson (≈ a twentieth of the standard library's CPU for a
memory's meta, and every write pays it, twice with the append's proof): compact, where
rows written before have the standard library's spacing. Nothing compares the text — it
is parsed back with the standard library, and SQLite's tag filter reads it with
``json_each`` — so both read the same. What orjson will not write (an integer beyond 64
bits, nesting deeper than 254) goes through the standard library as before, so no value
a store took before is refused now. orjson does not read it back: it reads an integer
beyond 64 bits as a float.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import orjson

from ai_memory.core.json_array import COMPACT
from ai_memory.core.record import (
    MemoryRecord,
    MemoryState,
    MemoryType,
    StoredRecord,
    Tombstone,
)
from ai_memory.core.timeparse import from_micros, to_micros

RECORD_COLUMNS = (
    "memory_id, scope, type, content, source_agent, created_at_us, ttl, tags, meta,"
    " schema_version, version, state, content_sha256, updated_at_us, position, read_count,"
    " last_read_at_us"
)
TOMBSTONE_COLUMNS = "memory_id, scope, deleted_at_us, reason, actor, position"


def record_values(s: StoredRecord) -> tuple[Any, ...]:
    """Values of the columns a PutRecord writes, from ``scope`` to ``position`` (the
    caller adds the key columns before them)."""
    r = s.record
    return (
        r.scope,
        r.type.value,
        r.content,
        r.source_agent,
        to_micros(r.created_at),
        r.ttl,
        json_text(list(r.tags)),
        json_text(dict(r.meta), sort_keys=True),
        r.schema_version,
        s.version,
        s.state.value,
        s.content_sha256,
        to_micros(s.updated_at),
        s.position,
    )


def json_text(value: Any, *, sort_keys: bool = False) -> str:
    """A column's JSON text (tags, meta, a lineage entry's detail)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys)


def sealed_json(body: dict[str, Any]) -> bytes:
    """A sealed view row's plaintext (``ViewFields.body``) as UTF-8 JSON, by orjson: a
    tenth of the CPU of ``COMPACT``, which sealed rows before. Nothing compares these
    bytes — they are encrypted under a fresh nonce and parsed back with the standard
    library — so only what they parse to must be ``COMPACT``'s. What orjson refuses is
    written by ``COMPACT``, which keeps its refusal: a lone surrogate cannot be UTF-8."""
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        return COMPACT.encode(body).encode("utf-8")


def to_stored(tenant: str, row: Sequence[Any]) -> StoredRecord:
    """A row selected as ``RECORD_COLUMNS``."""
    (mid, scope, type_, content, agent, created_us, ttl, tags, meta, schema_version, version,
     state, sha, updated_us, position, read_count, last_read_us) = row  # fmt: skip
    return StoredRecord(
        tenant=tenant,
        record=MemoryRecord(
            id=mid,
            type=MemoryType(type_),
            content=content,
            scope=scope,
            source_agent=agent,
            created_at=from_micros(int(created_us)),
            ttl=ttl,
            tags=tuple(json.loads(tags)),
            meta=json.loads(meta),
            schema_version=int(schema_version),
        ),
        version=int(version),
        state=MemoryState(state),
        content_sha256=sha,
        updated_at=from_micros(int(updated_us)),
        position=int(position),
        read_count=int(read_count or 0),
        last_read_at=None if last_read_us is None else from_micros(int(last_read_us)),
    )


def tombstone_values(t: Tombstone) -> tuple[Any, ...]:
    """Values of ``TOMBSTONE_COLUMNS`` after ``memory_id``."""
    return (t.scope, to_micros(t.deleted_at), t.reason, t.actor, t.position)


def to_tombstone(tenant: str, row: Sequence[Any]) -> Tombstone:
    """A row selected as ``TOMBSTONE_COLUMNS``."""
    mid, scope, deleted_us, reason, actor, position = row
    return Tombstone(
        tenant=tenant,
        memory_id=mid,
        scope=scope,
        deleted_at=from_micros(int(deleted_us)),
        reason=reason,
        actor=actor,
        position=int(position),
    )
