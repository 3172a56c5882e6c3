"""CassandraHeadStore: the write model of a Kafka log, as lightweight transactions.

Each (tenant, memory id) has one head row changed only by Paxos (``IF NOT EXISTS`` /
``IF version = ? AND deleted = ?`` / ``IF event_id = ?``), so two gateways deciding
on the same version can never both advance it: exactly one CAS wins, the other sees the
head that beat it. The head remembers the event id that set it, so a retried append of
the same event (the CAS applied but the caller never heard back) is recognised instead
of reported as a conflict. Every write to this table is an LWT — mixing plain writes
with Paxos writes on the same cells is unsafe — and no write uses ``USING TIMESTAMP``.

An LWT timing out (``WriteTimeout`` with write type CAS) has an unknown outcome: it
surfaces as ``Unavailable`` and the retry recognises its own event id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ai_memory.core.events import Head
from ai_memory.core.heads import HeadUpdate, PositionUpdate
from ai_memory.core.timeparse import from_micros, to_micros

from .migrations import migrate
from .session import CassandraSession

_COLS = "scope, version, content_sha256, deleted, position, created_at_us, event_id"
_KEY = "tenant = ? AND memory_id = ?"
_GET = f"SELECT memory_id, {_COLS} FROM heads WHERE {_KEY}"
_CREATE = (
    f"INSERT INTO heads (tenant, memory_id, {_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " IF NOT EXISTS"
)
_SET = (
    "UPDATE heads SET scope = ?, version = ?, content_sha256 = ?, deleted = ?, position = ?,"
    f" created_at_us = ?, event_id = ? WHERE {_KEY}"
)
_ADVANCE = f"{_SET} IF version = ? AND deleted = ?"
_POSITION = f"UPDATE heads SET position = ? WHERE {_KEY} IF event_id = ?"
_REVERT = f"{_SET} IF event_id = ?"
_DROP = f"DELETE FROM heads WHERE {_KEY} IF event_id = ?"


class CassandraHeadStore:
    """The HeadStore port on Cassandra. ``session`` must be migrated (``migrate``)."""

    def __init__(self, session: CassandraSession, *, owns_session: bool = False) -> None:
        self._s = session
        self._owns = owns_session

    @classmethod
    def from_url(cls, url: str) -> CassandraHeadStore:
        session = CassandraSession.from_url(url)
        migrate(session)
        return cls(session, owns_session=True)

    def get_many(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        ids = list(dict.fromkeys(memory_ids))
        stmt = self._s.prepare(_GET)
        result: dict[str, Head] = {}
        for rs in self._s.execute_many([(stmt, (tenant, mid)) for mid in ids]):
            row = rs.one()
            if row is not None:
                result[row.memory_id] = _to_head(row)
        return result

    def compare_and_set(self, update: HeadUpdate) -> tuple[bool, str | None]:
        return self.compare_and_set_many([update])[0]

    def compare_and_set_many(self, updates: Sequence[HeadUpdate]) -> list[tuple[bool, str | None]]:
        # Distinct memories are distinct Paxos partitions: their rounds run concurrently.
        results = self._s.execute_many([self._cas_statement(u) for u in updates])
        return [self._outcome(u, rs) for u, rs in zip(updates, results, strict=True)]

    def _cas_statement(self, update: HeadUpdate) -> tuple[Any, Sequence[Any]]:
        h = update.head
        values = _values(h, update.event_id)
        if update.expected_version == 0:  # the memory must not have a head yet
            return self._s.prepare(_CREATE), (update.tenant, h.memory_id, *values)
        return self._s.prepare(_ADVANCE), (
            *values,
            update.tenant,
            h.memory_id,
            update.expected_version,
            not update.expect_live,
        )

    def _outcome(self, update: HeadUpdate, rs: Any) -> tuple[bool, str | None]:
        h = update.head
        if rs.was_applied:
            return True, update.event_id
        # Not applied: a failed IF NOT EXISTS returns the whole current row; a failed
        # IF version = ... returns only the condition columns (or nothing, no row).
        row = rs.one()
        if "event_id" in getattr(row, "_fields", ()):
            return False, None if row.event_id is None else str(row.event_id)
        return False, self._event_id(update.tenant, h.memory_id)

    def set_position(self, tenant: str, memory_id: str, event_id: str, position: int) -> None:
        self.set_positions([PositionUpdate(tenant, memory_id, event_id, position)])

    def set_positions(self, items: Sequence[PositionUpdate]) -> None:
        stmt = self._s.prepare(_POSITION)
        self._s.execute_many(
            [(stmt, (i.position, i.tenant, i.memory_id, i.event_id)) for i in items]
        )

    def revert(self, update: HeadUpdate, previous: Head | None) -> None:
        key = (update.tenant, update.head.memory_id)
        if previous is None:
            self._s.execute(self._s.prepare(_DROP), (*key, update.event_id))
            return
        # The event id that set ``previous`` is not known here: a later retry of that
        # older event is then reported as a conflict rather than recognised (rare: it
        # needs a failed append, a revert and a retry of the previous write).
        self._s.execute(self._s.prepare(_REVERT), (*_values(previous, None), *key, update.event_id))

    def close(self) -> None:
        if self._owns:
            self._s.close()

    def _event_id(self, tenant: str, memory_id: str) -> str | None:
        # SERIAL read: sees the outcome of any Paxos round in progress for this head.
        row = self._s.execute(self._s.prepare(_GET), (tenant, memory_id), serial=True).one()
        return None if row is None or row.event_id is None else str(row.event_id)


def _values(h: Head, event_id: str | None) -> tuple[Any, ...]:
    created = None if h.created_at is None else to_micros(h.created_at)
    return (h.scope, h.version, h.content_sha256, h.deleted, h.position, created, event_id)


def _to_head(row: Any) -> Head:
    return Head(
        memory_id=row.memory_id,
        scope=row.scope,
        version=int(row.version),
        content_sha256=row.content_sha256 or "",
        deleted=bool(row.deleted),
        position=int(row.position or 0),
        created_at=None if row.created_at_us is None else from_micros(int(row.created_at_us)),
    )
