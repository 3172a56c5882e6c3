"""SqliteHeadStore: the HeadStore port in an embedded SQLite file.

For a log that cannot be queried by key (Kafka) in a deployment without Cassandra —
one host, several processes sharing the file — and as the second implementation the
head-store contract runs against. Each compare-and-set is one ``BEGIN IMMEDIATE``
transaction, which SQLite serialises across threads and processes, so exactly one of
several concurrent writers expecting the same version wins. Semantics match
``CassandraHeadStore`` (lightweight transactions) exactly.

The table is ``cas_heads``, not the embedded log's ``heads``, so the two never collide
even when pointed at the same file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ai_memory.core.events import Head
from ai_memory.core.heads import HeadUpdate, PositionUpdate
from ai_memory.core.timeparse import to_micros

from .sqlite_util import Connections, head_from_row, rows_for_ids

_SCHEMA = """CREATE TABLE IF NOT EXISTS cas_heads (
    tenant TEXT NOT NULL, memory_id TEXT NOT NULL, scope TEXT NOT NULL,
    version INTEGER NOT NULL, content_sha256 TEXT NOT NULL, deleted INTEGER NOT NULL,
    position INTEGER NOT NULL, created_at_us INTEGER, event_id TEXT,
    PRIMARY KEY (tenant, memory_id)) WITHOUT ROWID"""
_COLS = "scope, version, content_sha256, deleted, position, created_at_us, event_id"
_SET = (
    "UPDATE cas_heads SET scope = ?, version = ?, content_sha256 = ?, deleted = ?,"
    " position = ?, created_at_us = ?, event_id = ? WHERE tenant = ? AND memory_id = ?"
)


class SqliteHeadStore:
    def __init__(self, path: Path | str) -> None:
        self._db = Connections(path)
        with self._db.transaction() as conn:
            conn.execute(_SCHEMA)

    def get_many(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        rows = rows_for_ids(
            self._db.reader(),
            f"SELECT memory_id, {_COLS} FROM cas_heads WHERE tenant = ? AND memory_id IN",
            tenant,
            memory_ids,
        )
        return {row[0]: head_from_row(row) for row in rows}

    def compare_and_set(self, update: HeadUpdate) -> tuple[bool, str | None]:
        key = (update.tenant, update.head.memory_id)
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT version, deleted, event_id FROM cas_heads"
                " WHERE tenant = ? AND memory_id = ?",
                key,
            ).fetchone()
            if update.expected_version == 0:
                matches = row is None
            else:
                matches = (
                    row is not None
                    and int(row[0]) == update.expected_version
                    and bool(row[1]) == (not update.expect_live)
                )
            if not matches:
                return False, None if row is None else row[2]
            values = _values(update.head, update.event_id)
            if row is None:
                conn.execute(
                    f"INSERT INTO cas_heads (tenant, memory_id, {_COLS})"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*key, *values),
                )
            else:
                conn.execute(_SET, (*values, *key))
        return True, update.event_id

    def compare_and_set_many(self, updates: Sequence[HeadUpdate]) -> list[tuple[bool, str | None]]:
        return [self.compare_and_set(u) for u in updates]  # local: nothing to overlap

    def set_positions(self, items: Sequence[PositionUpdate]) -> None:
        for i in items:
            self.set_position(i.tenant, i.memory_id, i.event_id, i.position)

    def set_position(self, tenant: str, memory_id: str, event_id: str, position: int) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE cas_heads SET position = ?"
                " WHERE tenant = ? AND memory_id = ? AND event_id = ?",
                (position, tenant, memory_id, event_id),
            )

    def revert(self, update: HeadUpdate, previous: Head | None) -> None:
        key = (update.tenant, update.head.memory_id)
        with self._db.transaction() as conn:
            if previous is None:
                conn.execute(
                    "DELETE FROM cas_heads WHERE tenant = ? AND memory_id = ? AND event_id = ?",
                    (*key, update.event_id),
                )
            else:
                # As in Cassandra: the event id that set ``previous`` is not known.
                conn.execute(
                    f"{_SET} AND event_id = ?", (*_values(previous, None), *key, update.event_id)
                )

    def close(self) -> None:
        self._db.close()


def _values(h: Head, event_id: str | None) -> tuple[Any, ...]:
    created = None if h.created_at is None else to_micros(h.created_at)
    return (h.scope, h.version, h.content_sha256, int(h.deleted), h.position, created, event_id)
