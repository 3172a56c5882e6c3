"""Row ↔ domain conversions and the bucket function shared by the Cassandra adapters.

Kept apart from the statements so the record store reads as the projection logic only.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from ai_memory.core.record import MemoryRecord, MemoryState, MemoryType, StoredRecord, Tombstone
from ai_memory.core.timeparse import from_micros, to_micros

# Fixed by migration 0001 (see its comments): changing them needs a rebuilding migration.
TENANT_BUCKETS = 32
SCOPE_BUCKETS = 8

RECORD_COLUMNS = (
    "memory_id, scope, type, content, source_agent, created_at_us, ttl, tags, meta,"
    " schema_version, version, state, content_sha256, updated_at_us, position, read_count,"
    " last_read_at_us"
)
TOMBSTONE_COLUMNS = "memory_id, scope, deleted_at_us, reason, actor, position"


def tenant_bucket(memory_id: str) -> int:
    """Stable across processes and versions (unlike ``hash``)."""
    return zlib.crc32(memory_id.encode("utf-8")) % TENANT_BUCKETS


def scope_bucket(memory_id: str) -> int:
    return zlib.crc32(memory_id.encode("utf-8")) % SCOPE_BUCKETS


def record_values(s: StoredRecord) -> tuple[Any, ...]:
    """Values for the record columns a PutRecord writes (after tenant, memory_id)."""
    r = s.record
    return (
        r.scope,
        r.type.value,
        r.content,
        r.source_agent,
        to_micros(r.created_at),
        r.ttl,
        json.dumps(list(r.tags), ensure_ascii=False),
        json.dumps(dict(r.meta), ensure_ascii=False, sort_keys=True),
        r.schema_version,
        s.version,
        s.state.value,
        s.content_sha256,
        to_micros(s.updated_at),
        s.position,
    )


def is_live(row: Any) -> bool:
    """A row holds a record only when a PutRecord wrote it: a SetState arriving for a
    deleted or unknown id writes state cells alone, which must read as absent."""
    return row is not None and row.content is not None and row.type is not None


def to_stored(tenant: str, row: Any) -> StoredRecord:
    return StoredRecord(
        tenant=tenant,
        record=MemoryRecord(
            id=row.memory_id,
            type=MemoryType(row.type),
            content=row.content,
            scope=row.scope,
            source_agent=row.source_agent,
            created_at=from_micros(int(row.created_at_us)),
            ttl=row.ttl,
            tags=tuple(json.loads(row.tags)),
            meta=json.loads(row.meta),
            schema_version=int(row.schema_version),
        ),
        version=int(row.version),
        state=MemoryState(row.state),
        content_sha256=row.content_sha256,
        updated_at=from_micros(int(row.updated_at_us)),
        position=int(row.position),
        read_count=int(row.read_count or 0),
        last_read_at=None if row.last_read_at_us is None else from_micros(row.last_read_at_us),
    )


def to_tombstone(tenant: str, row: Any) -> Tombstone:
    return Tombstone(
        tenant=tenant,
        memory_id=row.memory_id,
        scope=row.scope,
        deleted_at=from_micros(int(row.deleted_at_us)),
        reason=row.reason,
        actor=row.actor,
        position=int(row.position),
    )


def tombstone_values(t: Tombstone) -> tuple[Any, ...]:
    return (t.scope, to_micros(t.deleted_at), t.reason, t.actor, t.position)
