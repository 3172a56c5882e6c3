"""Row helpers of the Cassandra adapters: the bucket functions and liveness of a row.

The row ↔ domain conversions are the records projection's shared layout
(``ai_memory.adapters.record_rows``), re-exported here for the Cassandra modules.
"""

from __future__ import annotations

import zlib
from typing import Any

from ai_memory.adapters.record_rows import (
    RECORD_COLUMNS,
    TOMBSTONE_COLUMNS,
    record_values,
    to_stored,
    to_tombstone,
    tombstone_values,
)

__all__ = [
    "RECORD_COLUMNS",
    "TOMBSTONE_COLUMNS",
    "is_live",
    "record_values",
    "scope_bucket",
    "tenant_bucket",
    "to_stored",
    "to_tombstone",
    "tombstone_values",
]

# Fixed by migration 0001 (see its comments): changing them needs a rebuilding migration.
TENANT_BUCKETS = 32
SCOPE_BUCKETS = 8


def tenant_bucket(memory_id: str) -> int:
    """Stable across processes and versions (unlike ``hash``)."""
    return zlib.crc32(memory_id.encode("utf-8")) % TENANT_BUCKETS


def scope_bucket(memory_id: str) -> int:
    return zlib.crc32(memory_id.encode("utf-8")) % SCOPE_BUCKETS


def is_live(row: Any) -> bool:
    """A row holds a record only when a PutRecord wrote it: a SetState arriving for a
    deleted or unknown id writes state cells alone, which must read as absent."""
    return row is not None and row.content is not None and row.type is not None
