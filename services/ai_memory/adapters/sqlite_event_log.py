"""SqliteEventLog: the embedded log of record.

An append-only table of Avro-encoded events in a WAL-mode SQLite file. ``position`` is an
AUTOINCREMENT rowid, so positions are strictly increasing and never reused, even after
the newest rows are lost. ``event_id`` is unique: a retried append of the same event
returns its original position instead of writing it twice.

The ``heads`` table is the write model: for each (tenant, memory id) the latest write or
delete, updated in the same transaction as the append. Commands are decided against it,
so decisions never depend on how far the projections have caught up.

The ``events_by_tenant`` index serves the audit trail (``read_tenant``: one tenant's events
in position order without reading the others'). It costs one more B-tree insert per
append; a log file from before it gets it when first opened (one pass over the table).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ai_memory.core.errors import InvalidInput, UndecodableEvent
from ai_memory.core.events import (
    DomainEvent,
    Head,
    LoggedEvent,
    MemoryDeleted,
    MemoryWritten,
    TenantPage,
)
from ai_memory.core.ports import (
    CHANGE_EVENT_TYPES,
    EncodedEvent,
    EventSerializer,
    decode_all,
    encode_events,
)
from ai_memory.core.timeparse import to_micros

from .sqlite_util import Connections, head_from_row, rows_for_ids, translate_errors
from .tenant_reads import decoded_skipping_poison

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position      INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id      TEXT NOT NULL UNIQUE,
    tenant        TEXT NOT NULL,
    partition_key TEXT NOT NULL,
    event_type    TEXT NOT NULL,
    appended_at   REAL NOT NULL,
    payload       BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS heads (
    tenant         TEXT NOT NULL,
    memory_id      TEXT NOT NULL,
    scope          TEXT NOT NULL,
    version        INTEGER NOT NULL,
    content_sha256 TEXT NOT NULL,
    deleted        INTEGER NOT NULL,
    position       INTEGER NOT NULL,
    created_at_us  INTEGER,
    PRIMARY KEY (tenant, memory_id)
) WITHOUT ROWID;
-- The audit trail reads one tenant's events in position order without a scan.
CREATE INDEX IF NOT EXISTS events_by_tenant ON events (tenant, position);
"""

# Readers in other processes are not notified; they re-check at this interval.
_POLL_SECONDS = 0.05


class SqliteEventLog:
    def __init__(self, path: Path | str, serializer: EventSerializer) -> None:
        self._db = Connections(path)
        self._serializer = serializer
        self._appended = threading.Condition()
        with self._db.transaction() as conn:
            for statement in _statements():
                conn.execute(statement)

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        # Encoded first: an unencodable event fails before the transaction begins.
        return self.append_encoded(encode_events(self._serializer, events))

    def append_encoded(self, events: Sequence[EncodedEvent]) -> list[int]:
        if not events:
            return []
        positions: list[int] = []
        now = time.time()
        with self._db.transaction() as conn:
            for encoded in events:
                event, payload, event_type = encoded.event, encoded.frame, encoded.event_type
                cur = conn.execute(
                    "INSERT OR IGNORE INTO events"
                    " (event_id, tenant, partition_key, event_type, appended_at, payload)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        event.header.event_id,
                        event.header.tenant,
                        event.partition_key,
                        event_type,
                        now,
                        payload,
                    ),
                )
                if cur.rowcount == 0:  # a retried append: report where it already is
                    row = conn.execute(
                        "SELECT position FROM events WHERE event_id = ?", (event.header.event_id,)
                    ).fetchone()
                    positions.append(int(row[0]))
                    continue
                position = int(cur.lastrowid or 0)
                positions.append(position)
                _update_head(conn, event, position)
        with self._appended:
            self._appended.notify_all()
        return positions

    def partitions(self) -> list[int]:
        return [0]

    def read(self, *, after: int, limit: int, partition: int = 0) -> list[LoggedEvent]:
        _single_partition(partition)
        with translate_errors():
            rows = (
                self._db.reader()
                .execute(
                    "SELECT position, payload FROM events WHERE position > ?"
                    " ORDER BY position LIMIT ?",
                    (after, limit),
                )
                .fetchall()
            )
        events: list[LoggedEvent] = []
        # The page at once: its sealed events' keys in one vault read (a replay's cost).
        decoded = decode_all(self._serializer, [bytes(payload) for _, payload in rows])
        for (pos, payload), event in zip(rows, decoded, strict=True):
            if isinstance(event, UndecodableEvent):
                if events:
                    break  # return the good prefix; the next read starts at the bad row
                raise UndecodableRow(event, position=int(pos), raw=bytes(payload)) from event
            if isinstance(event, Exception):
                raise event
            events.append(LoggedEvent(int(pos), event))
        return events

    def read_tenant(
        self, tenant: str, *, after: int, limit: int, scan: int, partition: int = 0
    ) -> TenantPage:
        """Through the ``(tenant, position)`` index: only the tenant's rows are touched,
        so ``scan`` is not needed. Bounded by the head read first: positions commit in
        order (one writer), so every event up to it is visible and ``scanned_to`` may
        jump to it when the page is not full."""
        _single_partition(partition)
        with translate_errors():
            reader = self._db.reader()
            head = int(reader.execute("SELECT MAX(position) FROM events").fetchone()[0] or 0)
            rows = reader.execute(
                "SELECT position, payload FROM events WHERE tenant = ? AND position > ?"
                " AND position <= ? ORDER BY position LIMIT ?",
                (tenant, after, head, max(limit, 0)),
            ).fetchall()
        events = decoded_skipping_poison(
            [(int(pos), bytes(payload)) for pos, payload in rows], self._serializer
        )
        if limit > 0 and len(rows) >= limit:
            return TenantPage(events, int(rows[-1][0]), False)
        return TenantPage(events, max(head, after), True)

    def read_changes(
        self,
        tenant: str,
        scopes: Sequence[str] | None,
        *,
        after: int,
        limit: int,
        scan: int,
        partition: int = 0,
    ) -> TenantPage:
        """``read_tenant`` with the scopes (the partition key) and the change types in
        the query: rows of other scopes and recalls are never decoded."""
        _single_partition(partition)
        where = ["tenant = ?", "position > ?", "position <= ?"]
        types = ", ".join("?" * len(CHANGE_EVENT_TYPES))
        where.append(f"event_type IN ({types})")
        keys = [f"{tenant}/{s}" for s in dict.fromkeys(scopes or ())]
        if scopes is not None:
            where.append(f"partition_key IN ({', '.join('?' * len(keys))})" if keys else "0")
        with translate_errors():
            reader = self._db.reader()
            head = int(reader.execute("SELECT MAX(position) FROM events").fetchone()[0] or 0)
            rows = reader.execute(
                f"SELECT position, payload FROM events WHERE {' AND '.join(where)}"
                " ORDER BY position LIMIT ?",
                (tenant, after, head, *CHANGE_EVENT_TYPES, *keys, max(limit, 0)),
            ).fetchall()
        events = decoded_skipping_poison(
            [(int(pos), bytes(payload)) for pos, payload in rows], self._serializer
        )
        if limit > 0 and len(rows) >= limit:
            return TenantPage(events, int(rows[-1][0]), False)
        return TenantPage(events, max(head, after), True)

    def last_position(self, partition: int = 0) -> int:
        _single_partition(partition)
        with translate_errors():
            row = self._db.reader().execute("SELECT MAX(position) FROM events").fetchone()
        return int(row[0] or 0)

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if self.last_position() > after:
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            with self._appended:
                self._appended.wait(min(remaining, _POLL_SECONDS))

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        rows = rows_for_ids(
            self._db.reader(),
            "SELECT memory_id, scope, version, content_sha256, deleted, position,"
            " created_at_us FROM heads WHERE tenant = ? AND memory_id IN",
            tenant,
            memory_ids,
        )
        return {row[0]: head_from_row(row) for row in rows}

    def writers(self) -> dict[str, Any]:
        return {}  # every appender of this process writes the file directly

    def close(self) -> None:
        self._db.close()


class UndecodableRow(UndecodableEvent):
    """An ``UndecodableEvent`` that knows its position and holds its bytes, so a projector
    can dead-letter it and continue after it (the Kafka log's ``UndecodableRecord``)."""

    def __init__(self, cause: UndecodableEvent, *, position: int, raw: bytes) -> None:
        super().__init__(
            cause.reason,
            f"undecodable event at position {position}: {cause.message}",
            fingerprint=cause.fingerprint,
        )
        self.position = position
        self.partition = 0
        self.raw = raw


def _single_partition(partition: int) -> None:
    if partition != 0:
        raise InvalidInput("partition", "range", "the embedded log has one partition, 0")


def _statements() -> list[str]:
    return [s.strip() for s in _SCHEMA.split(";") if s.strip()]


def _update_head(conn: sqlite3.Connection, event: DomainEvent, position: int) -> None:
    if isinstance(event, MemoryWritten):
        conn.execute(
            "INSERT INTO heads (tenant, memory_id, scope, version, content_sha256, deleted,"
            " position, created_at_us) VALUES (?, ?, ?, ?, ?, 0, ?, ?)"
            " ON CONFLICT (tenant, memory_id) DO UPDATE SET scope = excluded.scope,"
            " version = excluded.version, content_sha256 = excluded.content_sha256,"
            " deleted = 0, position = excluded.position, created_at_us = excluded.created_at_us",
            (
                event.header.tenant,
                event.record.id,
                event.record.scope,
                event.version,
                event.content_sha256,
                position,
                to_micros(event.record.created_at),
            ),
        )
    elif isinstance(event, MemoryDeleted):
        conn.execute(
            "INSERT INTO heads (tenant, memory_id, scope, version, content_sha256, deleted,"
            " position, created_at_us) VALUES (?, ?, ?, ?, '', 1, ?, NULL)"
            " ON CONFLICT (tenant, memory_id) DO UPDATE SET deleted = 1,"
            " position = excluded.position",
            (event.header.tenant, event.memory_id, event.scope, event.version, position),
        )
