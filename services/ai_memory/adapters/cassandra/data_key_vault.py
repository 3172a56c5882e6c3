"""The data-key vault on Cassandra: every gateway and projector shares it.

Tables from migrations ``0005_data_keys`` and ``0006_data_key_listing``. Creating a KEK or
a data key is a lightweight transaction (``IF NOT EXISTS``), and the loser reads the
winner at the serial level, so two gateways creating the first version of one memory at
once seal it under one key. A destroy writes ``destroyed_at_us`` and nulls the wrapped
cell in one statement at the session's consistency (LOCAL_QUORUM by default): a reader
that sees ``destroyed_at_us`` treats the key as gone even if a replica still holds the
cell, until compaction purges it.

Rotation adds: a re-wrap is a lightweight transaction ``IF kek_version = ? AND
destroyed_at_us = null``, so it never resurrects a destroyed key; and since a plain write
(the destroy) and a Paxos round order by timestamp, not by arrival, a destroy reads the
row back at the serial level (which completes a re-wrap in flight) and nulls the cell
again above its write time if a re-wrap's bytes won. A destroyed KEK version keeps its
row with a null ``wrapped``, so its number is never used again. A tenant's keys are
listed through ``data_key_listing`` (64 buckets), written before each key's row; keys
stored before that table existed are listed by one scan of ``data_keys``, made at the
first listing a process asks for unless ``vault_state`` says it ran.

**Issued keys** (migration ``0008_data_keys_by_subject``): the write path asks for keys
with ``issue_many``, and every key it gets has an id of its own, ``<subject>/~<suffix>``,
stored with a plain write (no two writers ever write one row), all of a subject's keys in
one partition. Destroying a subject writes its ``data_keys`` row as before (a subject not
hinted new is refused a key by that row), marks the partition (``subject_destroyed_at_us``,
static: a key written into it afterwards reads as destroyed at once) and nulls every key
of the partition. A key issued after the destroy read the partition leaves wrapped bytes
behind until ``ai-memory vault reconcile`` destroys the subject again; it never opens.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any

from ai_memory.adapters.key_wrapping import KekRow, KeyRow, WrappedVault
from ai_memory.core.data_keys import KEY_ID_SEPARATOR, KeyPage, issued_key_id, subject_of
from ai_memory.core.errors import Unavailable

from .migrations import migrate
from .session import CassandraSession, was_applied

BUCKETS = 64
_KEKS = "SELECT version, wrapped FROM tenant_keks WHERE tenant = ?"
_ADD_KEK = "INSERT INTO tenant_keks (tenant, version, wrapped) VALUES (?, ?, ?) IF NOT EXISTS"
_DESTROY_KEK = "UPDATE tenant_keks SET wrapped = null WHERE tenant = ? AND version = ? IF EXISTS"
_KEY = "SELECT wrapped, kek_version, destroyed_at_us FROM data_keys WHERE tenant = ? AND key_id = ?"
_ADD_KEY = (
    "INSERT INTO data_keys (tenant, key_id, wrapped, kek_version) VALUES (?, ?, ?, ?) IF NOT EXISTS"
)
_LIST = "INSERT INTO data_key_listing (tenant, bucket, key_id) VALUES (?, ?, ?)"
_LISTED = (
    "SELECT key_id FROM data_key_listing WHERE tenant = ? AND bucket = ? AND key_id > ? LIMIT ?"
)
_REWRAP = (
    "UPDATE data_keys SET wrapped = ?, kek_version = ? WHERE tenant = ? AND key_id = ?"
    " IF kek_version = ? AND destroyed_at_us = null"
)
_DESTROY = (
    "UPDATE data_keys SET destroyed_at_us = ?, wrapped = null WHERE tenant = ? AND key_id = ?"
)
_WRAPPED_AT = (
    "SELECT wrapped, writetime(wrapped) AS at FROM data_keys WHERE tenant = ? AND key_id = ?"
)
_ISSUED_COLS = "wrapped, kek_version, destroyed_at_us, subject_destroyed_at_us"
_ISSUED_KEY = (
    f"SELECT {_ISSUED_COLS} FROM data_keys_by_subject"
    " WHERE tenant = ? AND subject = ? AND suffix = ?"
)
_ISSUED_SOME = (
    f"SELECT suffix, {_ISSUED_COLS} FROM data_keys_by_subject"
    " WHERE tenant = ? AND subject = ? LIMIT 8"
)
# Every key of each subject named (a subject has one key, or a few when creators raced).
_ISSUED_IN = (
    f"SELECT subject, suffix, {_ISSUED_COLS} FROM data_keys_by_subject"
    " WHERE tenant = ? AND subject IN ?"
)
_IN_SUBJECTS = 100
_ADD_ISSUED = (
    "INSERT INTO data_keys_by_subject (tenant, subject, suffix, wrapped, kek_version)"
    " VALUES (?, ?, ?, ?, ?)"
)
_REWRAP_ISSUED = (
    "UPDATE data_keys_by_subject SET wrapped = ?, kek_version = ?"
    " WHERE tenant = ? AND subject = ? AND suffix = ?"
    " IF kek_version = ? AND destroyed_at_us = null AND subject_destroyed_at_us = null"
)
_DESTROY_ISSUED = (
    "UPDATE data_keys_by_subject SET destroyed_at_us = ?, wrapped = null"
    " WHERE tenant = ? AND subject = ? AND suffix = ?"
)
_MARK_SUBJECT = (
    "UPDATE data_keys_by_subject SET subject_destroyed_at_us = ? WHERE tenant = ? AND subject = ?"
)
_ISSUED_OF = (
    "SELECT suffix, wrapped, writetime(wrapped) AS at FROM data_keys_by_subject"
    " WHERE tenant = ? AND subject = ?"
)
_NULL_ISSUED_ABOVE = (
    "UPDATE data_keys_by_subject USING TIMESTAMP ? SET wrapped = null"
    " WHERE tenant = ? AND subject = ? AND suffix = ?"
)
_BACKFILLED = "SELECT done_at_us FROM vault_state WHERE name = 'data_key_listing'"
_MARK_BACKFILLED = "INSERT INTO vault_state (name, done_at_us) VALUES ('data_key_listing', ?)"
_NULL_ABOVE = (
    "UPDATE data_keys USING TIMESTAMP ? SET wrapped = null WHERE tenant = ? AND key_id = ?"
)


def bucket_of(key_id: str) -> int:
    return int.from_bytes(hashlib.sha256(key_id.encode("utf-8")).digest()[:4], "big") % BUCKETS


def _issued(key_id: str) -> tuple[str, str] | None:
    """(subject, suffix) of an issued key id; None for a key id that is its subject."""
    subject = subject_of(key_id)
    return None if subject == key_id else (subject, key_id[len(subject) + len(KEY_ID_SEPARATOR) :])


class CassandraVaultRows:
    issues_own_ids = True

    def __init__(self, session: CassandraSession, *, owns_session: bool = False) -> None:
        self._s = session
        self._owns = owns_session
        self._listed_all = False

    def _run(self, cql: str, params: Sequence[Any], *, serial: bool = False) -> Any:
        return self._s.execute(self._s.prepare(cql), params, serial=serial)

    def keks(self, tenant: str) -> list[KekRow]:
        return [
            KekRow(int(r.version), None if r.wrapped is None else bytes(r.wrapped))
            for r in self._run(_KEKS, (tenant,))
        ]

    def add_kek(self, tenant: str, version: int, wrapped: bytes) -> bool:
        return was_applied(self._run(_ADD_KEK, (tenant, version, wrapped)))

    def destroy_kek(self, tenant: str, version: int, at_us: int) -> None:
        self._run(_DESTROY_KEK, (tenant, version))

    def key(self, tenant: str, key_id: str) -> KeyRow | None:
        issued = _issued(key_id)
        if issued is not None:
            return _issued_row(self._run(_ISSUED_KEY, (tenant, *issued)).one())
        return _row(self._run(_KEY, (tenant, key_id)).one())

    def _list(self, tenant: str, key_ids: Sequence[str]) -> None:
        # Listed before the row is written: a rotation must never miss a stored key.
        stmt = self._s.prepare(_LIST)
        self._s.write_grouped([(stmt, (tenant, bucket_of(k), k)) for k in key_ids])

    def add_key(self, tenant: str, key_id: str, wrapped: bytes, kek_version: int) -> KeyRow:
        self._list(tenant, [key_id])
        return self._add_key(tenant, key_id, wrapped, kek_version)

    def _add_key(self, tenant: str, key_id: str, wrapped: bytes, kek_version: int) -> KeyRow:
        return self._stored(
            key_id,
            wrapped,
            kek_version,
            self._run(_ADD_KEY, (tenant, key_id, wrapped, kek_version)),
        )

    @staticmethod
    def _stored(key_id: str, wrapped: bytes, kek_version: int, result: Any) -> KeyRow:
        """The row a creation ends with. Applied: ours. Not applied: a failed
        ``IF NOT EXISTS`` answers with the row that won, read inside the same Paxos round
        (linearizable), so no second, serial read is needed to learn it."""
        if was_applied(result):
            return KeyRow(wrapped, kek_version, False, None)
        row = _row(result.one())
        if row is None:
            raise Unavailable(f"data key {key_id!r} was not stored")
        return row

    def keys(self, tenant: str, key_ids: Sequence[str]) -> dict[str, KeyRow]:
        """Issued ids are read by their subjects' partitions, ``_IN_SUBJECTS`` partitions
        per request: a projector's batch of new memories costs a few requests, not one
        each (a request per key was a quarter of a records worker's CPU, and more of
        Cassandra's). Ids from before issued ids, one request each."""
        wanted: dict[str, set[str]] = {}
        plain: list[str] = []
        for k in key_ids:
            parts = _issued(k)
            if parts is None:
                plain.append(k)
            else:
                wanted.setdefault(parts[0], set()).add(parts[1])
        one, issued = self._s.prepare(_KEY), self._s.prepare(_ISSUED_IN)
        subjects = list(wanted)
        asks: list[tuple[Any, Sequence[Any]]] = [(one, (tenant, k)) for k in plain]
        asks += [
            (issued, (tenant, subjects[i : i + _IN_SUBJECTS]))
            for i in range(0, len(subjects), _IN_SUBJECTS)
        ]
        results = self._s.execute_many(asks)
        found: dict[str, KeyRow] = {}
        for k, rs in zip(plain, results, strict=False):
            if (row := _row(rs.one())) is not None:
                found[k] = row
        for rs in results[len(plain) :]:
            for r in rs:
                if r.suffix in wanted.get(r.subject, ()) and (row := _issued_row(r)) is not None:
                    found[issued_key_id(r.subject, r.suffix)] = row
        return found

    def issued_for(
        self, tenant: str, subjects: Sequence[str]
    ) -> dict[str, list[tuple[str, KeyRow]]]:
        stmt = self._s.prepare(_ISSUED_SOME)
        results = self._s.execute_many([(stmt, (tenant, subject)) for subject in subjects])
        found: dict[str, list[tuple[str, KeyRow]]] = {}
        for subject, rs in zip(subjects, results, strict=True):
            for r in rs:
                row = _issued_row(r)
                if r.suffix is not None and row is not None:
                    found.setdefault(subject, []).append((issued_key_id(subject, r.suffix), row))
        return found

    def add_issued(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> None:
        self._list(tenant, [k for k, _, _ in new])
        # Plain writes: the id is this creator's own, nobody else ever writes the row.
        # Grouped per partition like the projection's writes (one request per group).
        stmt = self._s.prepare(_ADD_ISSUED)
        rows = []
        for key_id, wrapped, version in new:
            parts = _issued(key_id)
            if parts is None:
                raise ValueError(f"{key_id!r} is not an issued key id")
            rows.append((stmt, (tenant, *parts, wrapped, version)))
        self._s.write_grouped(rows)

    def add_keys(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> dict[str, KeyRow]:
        self._list(tenant, [k for k, _, _ in new])
        # One lightweight transaction per key (a conditional batch spans one partition
        # only), all of them in flight at once: each is its own partition's Paxos round.
        stmt = self._s.prepare(_ADD_KEY)
        results = self._s.execute_many([(stmt, (tenant, k, w, v)) for k, w, v in new])
        return {k: self._stored(k, w, v, rs) for (k, w, v), rs in zip(new, results, strict=True)}

    def _list_older_keys(self) -> None:
        """List every key stored before migration 0006 (once per keyspace: a full scan
        of ``data_keys``, paged by the driver), so a rotation cannot miss one."""
        if self._listed_all or self._run(_BACKFILLED, ()).one() is not None:
            self._listed_all = True
            return
        stmt = self._s.prepare(_LIST)
        batch: list[tuple[Any, tuple[str, int, str]]] = []
        for row in self._s.execute("SELECT tenant, key_id FROM data_keys"):
            batch.append((stmt, (row.tenant, bucket_of(row.key_id), row.key_id)))
            if len(batch) >= 500:
                self._s.execute_many(batch)
                batch = []
        self._s.execute_many(batch)
        self._run(_MARK_BACKFILLED, (time.time_ns() // 1000,))
        self._listed_all = True

    def keys_below(self, tenant: str, version: int, cursor: str | None, limit: int) -> KeyPage:
        if cursor is None:
            self._list_older_keys()
        bucket, after = (0, "") if cursor is None else _parse_cursor(cursor)
        listed: list[str] = []
        while bucket < BUCKETS and len(listed) < limit:
            want = limit - len(listed)
            ids = [str(r.key_id) for r in self._run(_LISTED, (tenant, bucket, after, want))]
            listed += ids
            if len(ids) < want:
                bucket, after = bucket + 1, ""
            else:
                after = ids[-1]
        rows = self.keys(tenant, listed)
        below = tuple(
            k
            for k in listed
            if (row := rows.get(k)) is not None
            and row.wrapped is not None
            and row.kek_version < version
        )
        return KeyPage(below, None if bucket >= BUCKETS else f"{bucket}:{after}")

    def rewrap(
        self, tenant: str, key_id: str, old_version: int, wrapped: bytes, new_version: int
    ) -> bool:
        issued = _issued(key_id)
        if issued is not None:
            done = self._run(_REWRAP_ISSUED, (wrapped, new_version, tenant, *issued, old_version))
        else:
            done = self._run(_REWRAP, (wrapped, new_version, tenant, key_id, old_version))
        return was_applied(done)

    def destroy(self, tenant: str, key_id: str, at_us: int) -> None:
        issued = _issued(key_id)
        if issued is not None:  # one issued key (its KEK went): the subject is untouched
            old_issued = self.key(tenant, key_id)
            first_issued = old_issued.destroyed_at_us if old_issued else None
            self._run(_DESTROY_ISSUED, (first_issued or at_us, tenant, *issued))
            return
        first = self._destroy_one(tenant, key_id, at_us)
        self._destroy_issued(tenant, key_id, first)

    def _destroy_issued(self, tenant: str, subject: str, at_us: int) -> None:
        """Every key issued for ``subject``: the partition is marked first (a key written
        into it from now on reads as destroyed), then every row found is nulled; a
        serial read then completes a re-wrap in flight and nulls its bytes above it."""
        self._run(_MARK_SUBJECT, (at_us, tenant, subject))
        null = self._s.prepare(_DESTROY_ISSUED)
        # A partition holding only its static mark answers one row with a null suffix.
        found = [r for r in self._run(_ISSUED_OF, (tenant, subject)) if r.suffix is not None]
        self._s.write_grouped([(null, (at_us, tenant, subject, r.suffix)) for r in found])
        if not found:
            return
        above = self._s.prepare(_NULL_ISSUED_ABOVE)
        back = self._run(_ISSUED_OF, (tenant, subject), serial=True)
        self._s.write_grouped(
            [
                (above, (int(r.at) + 1, tenant, subject, r.suffix))
                for r in back
                if r.suffix is not None and r.wrapped is not None
            ]
        )

    def _destroy_one(self, tenant: str, key_id: str, at_us: int) -> int:
        """The subject's own row (created if it never had one); its first destroy time."""
        old = self.key(tenant, key_id)
        first = old.destroyed_at_us if old is not None and old.destroyed_at_us else at_us
        self._run(_DESTROY, (first, tenant, key_id))
        # A re-wrap in flight may carry a later timestamp than this plain write: the
        # serial read completes it, and its bytes are nulled above their write time.
        back = self._run(_WRAPPED_AT, (tenant, key_id), serial=True).one()
        if back is not None and back.wrapped is not None:
            self._run(_NULL_ABOVE, (int(back.at) + 1, tenant, key_id))
        return first

    def close(self) -> None:
        if self._owns:
            self._s.close()


def _parse_cursor(cursor: str) -> tuple[int, str]:
    bucket, _, after = cursor.partition(":")
    return int(bucket), after


def _row(row: Any) -> KeyRow | None:
    if row is None:
        return None
    at = None if row.destroyed_at_us is None else int(row.destroyed_at_us)
    wrapped = None if at is not None or row.wrapped is None else bytes(row.wrapped)
    return KeyRow(wrapped, int(row.kek_version or 0), at is not None, at)


def _issued_row(row: Any) -> KeyRow | None:
    if row is None:
        return None
    own, subject = row.destroyed_at_us, row.subject_destroyed_at_us
    at = next((int(t) for t in (own, subject) if t is not None), None)
    wrapped = None if at is not None or row.wrapped is None else bytes(row.wrapped)
    return KeyRow(wrapped, int(row.kek_version or 0), at is not None, at)


def cassandra_vault(session: CassandraSession, root_key: bytes) -> WrappedVault:
    """A vault on a migrated session (``migrate``)."""
    return WrappedVault(CassandraVaultRows(session), root_key)


def cassandra_vault_from_url(url: str, root_key: bytes) -> WrappedVault:
    session = CassandraSession.from_url(url)
    migrate(session)
    return WrappedVault(CassandraVaultRows(session, owns_session=True), root_key)
