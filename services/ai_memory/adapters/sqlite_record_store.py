"""SqliteRecordStore: the embedded ``records`` projection.

Every row carries the log position it reflects, and every statement is guarded by it
(``WHERE excluded.position > records.position``) — the SQLite equivalent of Cassandra's
``USING TIMESTAMP``: a duplicate or stale mutation is a no-op. Mutations and the
checkpoint commit in one transaction, so the view and its position never disagree.

``shred=True`` (crypto-shredding on): a forgotten record must leave no bytes behind, so
the writer zeroes freed space (``secure_delete``) and a batch that removed records ends
with ``wal_checkpoint(TRUNCATE)``, which cuts the WAL holding its old page images to
zero bytes. Only forgets pay for the checkpoint.

It is also the embedded deployment's ``UsageSource`` (``usage``, ``tenants``): the
records it holds are what usage counts, so it is counted where it is — also when its
rows are sealed at rest (``adapters.sealed_record_store``: a sealed value names the size
of its content).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ai_memory.core.listing import ListQuery, RecordPage
from ai_memory.core.projection import (
    AddReads,
    LineageEntry,
    PutLineage,
    PutRecord,
    PutTombstone,
    RecordMutation,
    RemoveRecord,
    SetState,
)
from ai_memory.core.record import (
    StoredRecord,
    Tombstone,
)
from ai_memory.core.timeparse import from_micros, to_micros
from ai_memory.core.usage import TenantUsage
from ai_memory.core.view_sealing import PREFIX

from .record_rows import (
    RECORD_COLUMNS,
    json_text,
    record_values,
    to_stored,
    to_tombstone,
)
from .sqlite_util import Connections, rows_for_ids, translate_errors

PROJECTION = "records"

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS records (
        tenant TEXT NOT NULL, memory_id TEXT NOT NULL, scope TEXT NOT NULL,
        type TEXT NOT NULL, content TEXT NOT NULL, source_agent TEXT NOT NULL,
        created_at_us INTEGER NOT NULL, ttl INTEGER, tags TEXT NOT NULL, meta TEXT NOT NULL,
        schema_version INTEGER NOT NULL, version INTEGER NOT NULL, state TEXT NOT NULL,
        content_sha256 TEXT NOT NULL, updated_at_us INTEGER NOT NULL, position INTEGER NOT NULL,
        read_count INTEGER NOT NULL DEFAULT 0, last_read_at_us INTEGER,
        last_read_position INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, memory_id)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS records_by_scope ON records (tenant, scope, memory_id)",
    """CREATE TABLE IF NOT EXISTS tombstones (
        tenant TEXT NOT NULL, memory_id TEXT NOT NULL, scope TEXT NOT NULL,
        deleted_at_us INTEGER NOT NULL, reason TEXT NOT NULL, actor TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (tenant, memory_id)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS tombstones_by_scope ON tombstones (tenant, scope, memory_id)",
    """CREATE TABLE IF NOT EXISTS lineage (
        tenant TEXT NOT NULL, memory_id TEXT NOT NULL, position INTEGER NOT NULL,
        kind TEXT NOT NULL, at_us INTEGER NOT NULL, detail TEXT NOT NULL,
        PRIMARY KEY (tenant, memory_id, position, kind)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS checkpoints (
        projection TEXT PRIMARY KEY, position INTEGER NOT NULL)""",
]


class SqliteRecordStore:
    def __init__(self, path: Path | str, *, shred: bool = False) -> None:
        self._db = Connections(path)
        self._shred = shred
        if shred:
            self._db.writer.execute("PRAGMA secure_delete = ON")
        with self._db.transaction() as conn:
            for statement in _SCHEMA:
                conn.execute(statement)

    # --- projection side ---------------------------------------------------------------
    def apply(
        self, mutations: Sequence[RecordMutation], *, checkpoint: int, partition: int = 0
    ) -> None:
        with self._db.transaction() as conn:
            for mutation in mutations:
                _apply_one(conn, mutation)
            conn.execute(
                "INSERT INTO checkpoints (projection, position) VALUES (?, ?)"
                " ON CONFLICT (projection) DO UPDATE SET position = excluded.position"
                " WHERE excluded.position > checkpoints.position",
                (_checkpoint_key(partition), checkpoint),
            )
        if self._shred and any(isinstance(m, RemoveRecord) for m in mutations):
            with self._db.write_lock, translate_errors():
                self._db.writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    def checkpoint(self, partition: int = 0) -> int:
        with translate_errors():
            row = (
                self._db.reader()
                .execute(
                    "SELECT position FROM checkpoints WHERE projection = ?",
                    (_checkpoint_key(partition),),
                )
                .fetchone()
            )
        return int(row[0]) if row else 0

    def reset(self) -> None:
        with self._db.transaction() as conn:
            for table in ("records", "tombstones", "lineage", "checkpoints"):
                conn.execute(f"DELETE FROM {table}")

    # --- query side --------------------------------------------------------------------
    def get(self, tenant: str, memory_id: str) -> StoredRecord | Tombstone | None:
        conn = self._db.reader()
        with translate_errors():
            row = conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records WHERE tenant = ? AND memory_id = ?",
                (tenant, memory_id),
            ).fetchone()
            if row:
                return to_stored(tenant, row)
            trow = conn.execute(
                "SELECT memory_id, scope, deleted_at_us, reason, actor, position"
                " FROM tombstones WHERE tenant = ? AND memory_id = ?",
                (tenant, memory_id),
            ).fetchone()
        return to_tombstone(tenant, trow) if trow else None

    def get_many(
        self, tenant: str, memory_ids: Sequence[str], *, sealed: bool = False
    ) -> dict[str, StoredRecord]:
        result: dict[str, StoredRecord] = {}
        for row in rows_for_ids(
            self._db.reader(),
            f"SELECT {RECORD_COLUMNS} FROM records WHERE tenant = ? AND memory_id IN",
            tenant,
            memory_ids,
        ):
            result[row[0]] = to_stored(tenant, row)
        return result

    def unseal(self, tenant: str, records: Sequence[StoredRecord]) -> list[StoredRecord]:
        return list(records)  # nothing sealed here (``SealedRecordStore`` seals)

    def tombstoned(self, tenant: str, memory_ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for row in rows_for_ids(
            self._db.reader(),
            "SELECT memory_id FROM tombstones WHERE tenant = ? AND memory_id IN",
            tenant,
            memory_ids,
        ):
            found.add(row[0])
        return found

    def scan_records(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[StoredRecord]:
        for row in self._scan("records", RECORD_COLUMNS, tenant, scopes, batch):
            yield to_stored(tenant, row)

    def scan_tombstones(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[Tombstone]:
        columns = "memory_id, scope, deleted_at_us, reason, actor, position"
        for row in self._scan("tombstones", columns, tenant, scopes, batch):
            yield to_tombstone(tenant, row)

    def count(self, tenant: str) -> int:
        with translate_errors():
            row = (
                self._db.reader()
                .execute("SELECT COUNT(*) FROM records WHERE tenant = ?", (tenant,))
                .fetchone()
            )
        return int(row[0])

    # --- usage (the UsageSource port) --------------------------------------------------
    def usage(self, tenant: str) -> TenantUsage:
        """Counted in SQL: one pass over the tenant's rows (about a microsecond a
        memory). The count, the bytes and the checkpoints are read in one snapshot, so
        the positions say exactly what the sums reflect."""
        conn = self._db.reader()
        with translate_errors():
            conn.execute("BEGIN")
            try:
                memories, size = conn.execute(
                    f"SELECT COUNT(*), COALESCE(SUM({_CONTENT_BYTES}), 0)"
                    " FROM records WHERE tenant = ?",
                    (SEALED_PREFIX, tenant),
                ).fetchone()
                marks = conn.execute("SELECT projection, position FROM checkpoints").fetchall()
            finally:
                conn.execute("COMMIT")
        positions = {_partition_of_key(key): int(pos) for key, pos in marks if pos}
        return TenantUsage(int(memories), int(size), positions)

    def tenants(self) -> list[str]:
        """Tenants with records or tombstones, found by skipping from one tenant to the
        next on the primary keys (a few index seeks per tenant, not a scan)."""
        found: set[str] = set()
        with translate_errors():
            for table in ("records", "tombstones"):
                rows = (
                    self._db.reader()
                    .execute(
                        f"WITH RECURSIVE t(tenant) AS (SELECT MIN(tenant) FROM {table}"
                        f" UNION ALL SELECT (SELECT MIN(tenant) FROM {table}"
                        " WHERE tenant > t.tenant) FROM t WHERE t.tenant IS NOT NULL)"
                        " SELECT tenant FROM t WHERE tenant IS NOT NULL"
                    )
                    .fetchall()
                )
                found.update(row[0] for row in rows)
        return sorted(found)

    def list_records(self, query: ListQuery) -> RecordPage:
        # One more row than the page: whether a next page exists, without an empty one.
        sql, params = listing_sql(query)
        with translate_errors():
            rows = self._db.reader().execute(sql, params).fetchall()
        items = [to_stored(query.tenant, row) for row in rows[: query.limit]]
        more = len(rows) > query.limit
        return RecordPage(items, items[-1].record.id if more else None)

    def lineage(self, tenant: str, memory_id: str) -> list[LineageEntry]:
        with translate_errors():
            rows = (
                self._db.reader()
                .execute(
                    "SELECT position, kind, at_us, detail FROM lineage"
                    " WHERE tenant = ? AND memory_id = ? ORDER BY position, kind",
                    (tenant, memory_id),
                )
                .fetchall()
            )
        return [
            LineageEntry(tenant, memory_id, int(pos), from_micros(int(at)), kind, json.loads(d))
            for pos, kind, at, d in rows
        ]

    def close(self) -> None:
        self._db.close()

    # --- helpers -----------------------------------------------------------------------
    def _scan(
        self, table: str, columns: str, tenant: str, scopes: Sequence[str] | None, batch: int
    ) -> Iterator[Any]:
        """Keyset pagination by id so a long export never holds one giant cursor."""
        conn = self._db.reader()
        scope_list = list(scopes) if scopes else None
        scope_sql = ""
        if scope_list:
            scope_sql = f" AND scope IN ({','.join('?' * len(scope_list))})"
        after = ""
        while True:
            params: list[Any] = [tenant, after, *(scope_list or [])]
            with translate_errors():
                rows = conn.execute(
                    f"SELECT {columns} FROM {table} WHERE tenant = ? AND memory_id > ?"
                    f"{scope_sql} ORDER BY memory_id LIMIT {int(batch)}",
                    params,
                ).fetchall()
            yield from rows
            if len(rows) < batch:
                return
            after = rows[-1][0]


def listing_sql(query: ListQuery) -> tuple[str, list[Any]]:
    """The SQLite query of one listing page (``limit + 1`` rows), every filter in SQL.

    Without scopes it walks the primary key ``(tenant, memory_id)`` from the cursor. With
    scopes, each scope walks its own range of the ``(tenant, scope, memory_id)`` index
    from the cursor and the ranges are merged: the rows of scopes a key may not read are
    never visited, so a key of one small scope pages as fast in a large tenant."""
    rows = int(query.limit) + 1
    filters: list[str] = []
    values: list[Any] = []
    for column, wanted in (
        ("type", None if query.types is None else [t.value for t in query.types]),
        ("state", [s.value for s in query.states]),
    ):
        if wanted is not None:
            # An empty list matches nothing: ``IN ()`` is not SQL, a false condition is.
            filters.append(f"{column} IN ({','.join('?' * len(wanted))})" if wanted else "0")
            values += wanted
    if query.tag is not None:
        filters.append("EXISTS (SELECT 1 FROM json_each(records.tags) WHERE value = ?)")
        values.append(query.tag)
    if query.now is not None:
        filters.append("(ttl IS NULL OR created_at_us + ttl * 1000000 > ?)")
        values.append(to_micros(query.now))
    rest = "".join(f" AND {f}" for f in filters)
    if query.scopes is None:
        sql = (
            f"SELECT {RECORD_COLUMNS} FROM records WHERE tenant = ? AND memory_id > ?{rest}"
            f" ORDER BY memory_id LIMIT {rows}"
        )
        return sql, [query.tenant, query.after, *values]
    scopes = sorted(set(query.scopes))
    if not scopes:
        return f"SELECT {RECORD_COLUMNS} FROM records WHERE 0", []
    one = (
        f"SELECT * FROM (SELECT {RECORD_COLUMNS} FROM records INDEXED BY records_by_scope"
        f" WHERE tenant = ? AND scope = ? AND memory_id > ?{rest}"
        f" ORDER BY memory_id LIMIT {rows})"
    )
    params: list[Any] = []
    for scope in scopes:
        params += [query.tenant, scope, query.after, *values]
    sql = (
        f"SELECT * FROM ({' UNION ALL '.join([one] * len(scopes))}) ORDER BY memory_id LIMIT {rows}"
    )
    return sql, params


# The UTF-8 size of a record's content: its length, or — a row sealed at rest
# (``core.view_sealing``) — the size its sealed value names after the prefix. Compared and
# cut as bytes: SQLite's text functions stop at the prefix's NUL.
SEALED_PREFIX = PREFIX.encode("utf-8")
_CONTENT_BYTES = (
    f"CASE WHEN substr(CAST(content AS BLOB), 1, {len(SEALED_PREFIX)}) = ?"
    f" THEN CAST(CAST(substr(CAST(content AS BLOB), {len(SEALED_PREFIX) + 1}, 20) AS TEXT)"
    " AS INTEGER) ELSE length(CAST(content AS BLOB)) END"
)


def _checkpoint_key(partition: int) -> str:
    return PROJECTION if partition == 0 else f"{PROJECTION}/{partition}"


def _partition_of_key(key: str) -> int:
    return 0 if key == PROJECTION else int(key.rsplit("/", 1)[1])


def _apply_one(conn: sqlite3.Connection, mutation: RecordMutation) -> None:
    match mutation:
        case PutRecord(stored=s):
            # A write older than a tombstone of the same id must not resurrect it.
            r = s.record
            conn.execute(
                "INSERT INTO records (tenant, memory_id, scope, type, content, source_agent,"
                " created_at_us, ttl, tags, meta, schema_version, version, state,"
                " content_sha256, updated_at_us, position)"
                " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
                " WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE tenant = ? AND memory_id = ?"
                " AND position > ?)"
                " ON CONFLICT (tenant, memory_id) DO UPDATE SET scope = excluded.scope,"
                " type = excluded.type, content = excluded.content,"
                " source_agent = excluded.source_agent, created_at_us = excluded.created_at_us,"
                " ttl = excluded.ttl, tags = excluded.tags, meta = excluded.meta,"
                " schema_version = excluded.schema_version, version = excluded.version,"
                " state = excluded.state, content_sha256 = excluded.content_sha256,"
                " updated_at_us = excluded.updated_at_us, position = excluded.position"
                " WHERE excluded.position > records.position",
                (s.tenant, r.id, *record_values(s), s.tenant, r.id, s.position),
            )
        case RemoveRecord(tenant=tenant, memory_id=mid, position=pos):
            conn.execute(
                "DELETE FROM records WHERE tenant = ? AND memory_id = ? AND position < ?",
                (tenant, mid, pos),
            )
        case PutTombstone(tombstone=t):
            conn.execute(
                "INSERT INTO tombstones (tenant, memory_id, scope, deleted_at_us, reason, actor,"
                " position) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (tenant, memory_id) DO UPDATE SET scope = excluded.scope,"
                " deleted_at_us = excluded.deleted_at_us, reason = excluded.reason,"
                " actor = excluded.actor, position = excluded.position"
                " WHERE excluded.position > tombstones.position",
                (
                    t.tenant,
                    t.memory_id,
                    t.scope,
                    to_micros(t.deleted_at),
                    t.reason,
                    t.actor,
                    t.position,
                ),
            )
        case SetState(tenant=tenant, memory_id=mid, state=state, at=at, position=pos):
            conn.execute(
                "UPDATE records SET state = ?, updated_at_us = ?, position = ?"
                " WHERE tenant = ? AND memory_id = ? AND position < ?",
                (state.value, to_micros(at), pos, tenant, mid, pos),
            )
        case PutLineage(entry=e):
            # Keyed by position: re-applying the same event is a no-op.
            conn.execute(
                "INSERT OR IGNORE INTO lineage (tenant, memory_id, position, kind, at_us, detail)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    e.tenant,
                    e.memory_id,
                    e.position,
                    e.kind,
                    to_micros(e.at),
                    json_text(e.detail, sort_keys=True),
                ),
            )
        case AddReads(tenant=tenant, memory_ids=ids, at=at, position=pos):
            # Guarded by last_read_position so a re-delivered recall event counts once.
            for mid in dict.fromkeys(ids):
                conn.execute(
                    "UPDATE records SET read_count = read_count + 1, last_read_at_us = ?,"
                    " last_read_position = ? WHERE tenant = ? AND memory_id = ?"
                    " AND last_read_position < ?",
                    (to_micros(at), pos, tenant, mid, pos),
                )
