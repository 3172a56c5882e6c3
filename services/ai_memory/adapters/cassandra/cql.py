"""CQL text of the records projection, kept apart from the projection logic.

Every write carries ``USING TIMESTAMP ?`` (the log position, bound first for deletes and
updates, last for inserts); see record_store.py for why.
"""

from __future__ import annotations

from .rows import RECORD_COLUMNS, TOMBSTONE_COLUMNS

KEY = "tenant = ? AND memory_id = ?"
PUT = (
    "INSERT INTO records (tenant, memory_id, scope, type, content, source_agent, created_at_us,"
    " ttl, tags, meta, schema_version, version, state, content_sha256, updated_at_us, position)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?"
)
PUT_TENANT_KEY = (
    "INSERT INTO records_by_tenant (tenant, bucket, memory_id) VALUES (?, ?, ?) USING TIMESTAMP ?"
)
PUT_SCOPE_KEY = (
    "INSERT INTO records_by_scope (tenant, scope, bucket, memory_id) VALUES (?, ?, ?, ?)"
    " USING TIMESTAMP ?"
)
DEL = f"DELETE FROM records USING TIMESTAMP ? WHERE {KEY}"
DEL_TENANT_KEY = (
    "DELETE FROM records_by_tenant USING TIMESTAMP ? WHERE tenant = ? AND bucket = ?"
    " AND memory_id = ?"
)
DEL_SCOPE_KEY = (
    "DELETE FROM records_by_scope USING TIMESTAMP ? WHERE tenant = ? AND scope = ?"
    " AND bucket = ? AND memory_id = ?"
)
TOMB_COLS = "scope, deleted_at_us, reason, actor, position"
PUT_TOMB = (
    f"INSERT INTO tombstones (tenant, memory_id, {TOMB_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
    " USING TIMESTAMP ?"
)
PUT_TOMB_TENANT = (
    f"INSERT INTO tombstones_by_tenant (tenant, bucket, memory_id, {TOMB_COLS})"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?"
)
PUT_TOMB_SCOPE = (
    "INSERT INTO tombstones_by_scope (tenant, bucket, memory_id, scope, deleted_at_us, reason,"
    " actor, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?"
)
SET_STATE = (
    f"UPDATE records USING TIMESTAMP ? SET state = ?, updated_at_us = ?, position = ? WHERE {KEY}"
)
SET_READS = (
    "UPDATE records USING TIMESTAMP ? SET read_count = ?, last_read_at_us = ?,"
    f" last_read_position = ? WHERE {KEY}"
)
GET = f"SELECT {RECORD_COLUMNS} FROM records WHERE {KEY}"
GET_TOMB = f"SELECT {TOMBSTONE_COLUMNS} FROM tombstones WHERE {KEY}"
# Multi-partition reads: one request per ≤100 ids instead of one per id. The coordinator
# fans out to the replicas; the client saves the per-request overhead that dominates.
IN_KEYS = "tenant = ? AND memory_id IN ?"
IN_GET = f"SELECT {RECORD_COLUMNS} FROM records WHERE {IN_KEYS}"
IN_TOMB_POS = f"SELECT memory_id, position FROM tombstones WHERE {IN_KEYS}"
IN_SCOPE = f"SELECT memory_id, scope FROM records WHERE {IN_KEYS}"
IN_READS = (
    f"SELECT memory_id, content, type, read_count, last_read_position FROM records WHERE {IN_KEYS}"
)
# The checkpoint: written at timestamp = position, so the newest position wins (0007).
CP_GET = "SELECT position FROM records_checkpoints WHERE log_partition = ?"
CP_PUT = "INSERT INTO records_checkpoints (log_partition, position) VALUES (?, ?) USING TIMESTAMP ?"
# Where a view advanced before migration 0007 keeps its checkpoint (read only).
CP_GET_BEFORE_0007 = (
    "SELECT position FROM projection_progress WHERE projection = ? AND log_partition = ?"
)
PUT_LINEAGE = (
    "INSERT INTO lineage (tenant, memory_id, position, kind, at_us, detail)"
    " VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?"
)
GET_LINEAGE = "SELECT position, kind, at_us, detail FROM lineage WHERE tenant = ? AND memory_id = ?"
TABLES = (
    "records_checkpoints",
    "lineage",
    "records",
    "records_by_tenant",
    "records_by_scope",
    "tombstones",
    "tombstones_by_tenant",
    "tombstones_by_scope",
)
SCAN_SCOPE_KEYS = (
    "SELECT memory_id FROM records_by_scope WHERE tenant = ? AND scope = ? AND bucket = ?"
)
SCAN_TENANT_KEYS = "SELECT memory_id FROM records_by_tenant WHERE tenant = ? AND bucket = ?"
SCAN_SCOPE_TOMBS = (
    f"SELECT {TOMBSTONE_COLUMNS} FROM tombstones_by_scope WHERE tenant = ? AND scope = ?"
    " AND bucket = ?"
)
SCAN_TENANT_TOMBS = (
    f"SELECT {TOMBSTONE_COLUMNS} FROM tombstones_by_tenant WHERE tenant = ? AND bucket = ?"
)
# A listing page: the keys after the cursor, in id order, at most ``LIMIT`` per partition.
LIST_SCOPE_KEYS = (
    "SELECT memory_id FROM records_by_scope WHERE tenant = ? AND scope = ? AND bucket = ?"
    " AND memory_id > ? LIMIT ?"
)
LIST_TENANT_KEYS = (
    "SELECT memory_id FROM records_by_tenant WHERE tenant = ? AND bucket = ? AND memory_id > ?"
    " LIMIT ?"
)
COUNT_BUCKET = "SELECT COUNT(*) FROM records_by_tenant WHERE tenant = ? AND bucket = ?"
