"""CassandraRecordStore: the distributed ``records`` projection.

Order-safety and idempotence come from ``USING TIMESTAMP <log position>`` on every
projection write: Cassandra keeps, per cell, the value with the highest timestamp, and a
delete at position p shadows every write below p. Positions are only comparable within
one log partition, and all events of a memory share a partition, so per-memory
comparisons are always meaningful. Consequences:

* PutRecord writes all record cells at p; a newer PutRecord overwrites them, an older one
  replayed later loses cell by cell — including against a newer SetState's ``state``.
* RemoveRecord deletes the record partition and its index keys at p; a replayed older
  PutRecord is shadowed. Because Cassandra purges delete markers after gc_grace_seconds,
  a PutRecord is also checked against the ``tombstones`` table (read before write, like
  the embedded store's ``NOT EXISTS`` guard), so a forgotten memory stays forgotten even
  when a months-old event is replayed onto a live store. Only a PutRecord whose event is
  older than half the records tables' smallest ``gc_grace_seconds`` is checked: a
  tombstone of it comes later in the log, so its delete marker was written after the
  event and is younger still — not purged, it shadows the write by timestamp. That
  spares the live projection a read per new memory; the margin covers clock skew between
  the writer and the nodes.
* Read counts (``AddReads``): counters are not idempotent, and per-event rows would grow
  without bound for popular memories. Instead each memory keeps ``read_count`` and
  ``last_read_position``; the projector reads them, adds the recall events with a
  position above ``last_read_position``, and writes the result at timestamp = the last
  counted position. The value written at position p is a deterministic function of the
  events up to p, so a duplicate delivery — even two consumers racing during a group
  rebalance — writes the same value at the same timestamp: idempotent without a
  lightweight transaction (requires R + W > RF, see session.py). What the projector last
  read or wrote of a memory's count is remembered per log partition and stands in for the
  read while nothing else can have changed it (read_count_cache.py).
* The checkpoint of each log partition is written once per batch, after the batch's
  writes succeeded, at ``USING TIMESTAMP <position>`` like everything else: the highest
  position wins, so it never moves backwards and needs no lightweight transaction
  (migration 0007). Replaying a batch whose checkpoint was lost is harmless.

Writes go out as unlogged batches grouped by the replicas of their partitions
(``CassandraSession.write_grouped``), the batches concurrently; reads fan out with
``execute_concurrent``.
"""

from __future__ import annotations

import heapq
import itertools
import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from ai_memory.adapters.record_rows import json_text
from ai_memory.core.errors import AiMemoryError
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
from ai_memory.core.record import StoredRecord, Tombstone
from ai_memory.core.timeparse import from_micros, to_micros

from . import cql as q
from .migrations import migrate
from .read_count_cache import Count, ReadCountCache
from .rows import (
    SCOPE_BUCKETS,
    TENANT_BUCKETS,
    is_live,
    record_values,
    scope_bucket,
    tenant_bucket,
    to_stored,
    to_tombstone,
    tombstone_values,
)
from .session import CassandraSession, translate_errors

PROJECTION = "records"
Item = tuple[Any, Sequence[Any]]
_IN_CHUNK = 100
# Keys one listing page examines at most, and how many records it reads per round.
LIST_SCAN_KEYS = 5000
_LIST_CHUNK = 500
# The tables whose delete markers shadow a replayed PutRecord (``_remove``).
_SHADOWING = ("records", "records_by_scope", "records_by_tenant")
_GC_GRACE = (
    "SELECT table_name, gc_grace_seconds FROM system_schema.tables"
    " WHERE keyspace_name = ? AND table_name IN ?"
)
_GC_GRACE_REFRESH_S = 300.0  # an ALTER TABLE of gc_grace_seconds is seen within this


class CassandraRecordStore:
    """The RecordStore port on Cassandra. ``session`` must be migrated (``migrate``)."""

    def __init__(
        self,
        session: CassandraSession,
        *,
        owns_session: bool = False,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._s = session
        self._owns = owns_session
        self._clock = clock
        self._grace: tuple[float, timedelta] | None = None  # (read at, horizon)
        self._grace_lock = threading.Lock()
        self.read_counts = ReadCountCache()

    @classmethod
    def from_url(cls, url: str) -> CassandraRecordStore:
        """Connect, apply pending migrations, and own the connection."""
        session = CassandraSession.from_url(url)
        migrate(session)
        return cls(session, owns_session=True)

    # --- projection side ---------------------------------------------------------------
    def apply(
        self, mutations: Sequence[RecordMutation], *, checkpoint: int, partition: int = 0
    ) -> None:
        try:
            self._apply(mutations, checkpoint, partition)
        except BaseException:
            # Some of the batch's writes may have landed: what the partition's counts are
            # is read from the rows again.
            self.read_counts.forget_partition(partition)
            raise
        self.read_counts.wrote(partition, checkpoint)

    def _apply(self, mutations: Sequence[RecordMutation], checkpoint: int, partition: int) -> None:
        skip = self._stale_puts(mutations)
        scopes = self._removed_scopes(mutations)
        writes: list[Item] = []
        reads: dict[tuple[str, str], list[tuple[int, datetime]]] = defaultdict(list)
        for i, m in enumerate(mutations):
            match m:
                case PutRecord(stored=s) if i not in skip:
                    self._put(s, writes)
                case RemoveRecord(tenant=tenant, memory_id=mid, position=pos):
                    self._remove(tenant, mid, pos, scopes.get((tenant, mid)), writes)
                case PutTombstone(tombstone=t):
                    self._tombstone(t, writes)
                case SetState(tenant=tenant, memory_id=mid, state=state, at=at, position=pos):
                    params = (pos, state.value, to_micros(at), pos, tenant, mid)
                    writes.append((self._s.prepare(q.SET_STATE), params))
                case PutLineage(entry=e):
                    detail = json_text(e.detail, sort_keys=True)
                    lineage_params = (
                        e.tenant,
                        e.memory_id,
                        e.position,
                        e.kind,
                        to_micros(e.at),
                        detail,
                        e.position,
                    )
                    writes.append((self._s.prepare(q.PUT_LINEAGE), lineage_params))
                case AddReads(tenant=tenant, memory_ids=ids, at=at, position=pos):
                    for mid in dict.fromkeys(ids):
                        reads[(tenant, mid)].append((pos, at))
        # What else the batch does to a memory may change whether it is live: its count
        # is read from the row again.
        touched = {key for m in mutations if (key := _memory_of(m)) is not None}
        self.read_counts.drop(partition, touched)
        self._s.write_grouped(writes)
        # A memory's first version starts its count at zero: every recall of it comes
        # later in this partition, so this worker, which reads on from here, folds them
        # all (a replay from an earlier checkpoint too: what it writes then is the fold
        # the row already holds, or loses to it by timestamp).
        self.read_counts.remember(partition, dict.fromkeys(_born(mutations, skip), (0, 0)))
        # Read counts after the writes: whether a memory is live depends on them.
        self._add_reads(reads, partition)
        self._advance(partition, checkpoint)

    def lineage(self, tenant: str, memory_id: str) -> list[LineageEntry]:
        rows = self._s.execute(self._s.prepare(q.GET_LINEAGE), (tenant, memory_id))
        return [
            LineageEntry(
                tenant,
                memory_id,
                int(r.position),
                from_micros(int(r.at_us)),
                r.kind,
                json.loads(r.detail),
            )
            for r in rows
        ]

    def checkpoint(self, partition: int = 0) -> int:
        row = self._s.execute(self._s.prepare(q.CP_GET), (partition,)).one()
        if row is None:  # not advanced since migration 0007: where it was before
            row = self._s.execute(
                self._s.prepare(q.CP_GET_BEFORE_0007), (PROJECTION, partition)
            ).one()
        stored = 0 if row is None else int(row.position)
        # A worker reads it before it projects the partition again (after a rebalance):
        # moved by someone else, the counts this process remembers may be behind.
        self.read_counts.read(partition, stored)
        return stored

    def reset(self) -> None:
        self.read_counts.clear()
        for table in q.TABLES:
            self._s.execute(f"TRUNCATE {table}")
        # Checkpoints from before migration 0007 (projection_progress, shared with nothing
        # else but advanced by lightweight transactions): row by row, as lightweight
        # transactions too, since a plain delete's client timestamp could shadow Paxos writes.
        rows = self._s.execute(
            "SELECT log_partition FROM projection_progress WHERE projection = %s", (PROJECTION,)
        )
        for row in list(rows):
            self._s.execute(
                "DELETE FROM projection_progress WHERE projection = %s AND log_partition = %s"
                " IF EXISTS",
                (PROJECTION, row.log_partition),
            )

    # --- query side --------------------------------------------------------------------
    def get(self, tenant: str, memory_id: str) -> StoredRecord | Tombstone | None:
        row = self._s.execute(self._s.prepare(q.GET), (tenant, memory_id)).one()
        if is_live(row):
            return to_stored(tenant, row)
        trow = self._s.execute(self._s.prepare(q.GET_TOMB), (tenant, memory_id)).one()
        return None if trow is None else to_tombstone(tenant, trow)

    def get_many(
        self, tenant: str, memory_ids: Sequence[str], *, sealed: bool = False
    ) -> dict[str, StoredRecord]:
        return {s.record.id: s for s in self._fetch(tenant, list(dict.fromkeys(memory_ids)))}

    def unseal(self, tenant: str, records: Sequence[StoredRecord]) -> list[StoredRecord]:
        return list(records)  # nothing sealed here (``SealedRecordStore`` seals)

    def tombstoned(self, tenant: str, memory_ids: Sequence[str]) -> set[str]:
        return {mid for _, mid in self._rows(q.IN_TOMB_POS, [(tenant, m) for m in memory_ids])}

    def scan_records(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[StoredRecord]:
        if scopes:
            stmt = self._s.prepare(q.SCAN_SCOPE_KEYS)
            wanted: set[str] | None = set(scopes)
            params: list[tuple[Any, ...]] = [
                (tenant, sc, b) for sc in set(scopes) for b in range(SCOPE_BUCKETS)
            ]
        else:
            stmt = self._s.prepare(q.SCAN_TENANT_KEYS)
            wanted = None
            params = [(tenant, b) for b in range(TENANT_BUCKETS)]
        keys = (row.memory_id for row in self._merged(stmt, params, batch))
        chunk: list[str] = []
        for key in keys:
            chunk.append(key)
            if len(chunk) >= batch:
                yield from self._chunk(tenant, chunk, wanted)
                chunk = []
        yield from self._chunk(tenant, chunk, wanted)

    def scan_tombstones(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[Tombstone]:
        if scopes:
            stmt = self._s.prepare(q.SCAN_SCOPE_TOMBS)
            params: list[tuple[Any, ...]] = [
                (tenant, sc, b) for sc in set(scopes) for b in range(SCOPE_BUCKETS)
            ]
        else:
            stmt = self._s.prepare(q.SCAN_TENANT_TOMBS)
            params = [(tenant, b) for b in range(TENANT_BUCKETS)]
        for row in self._merged(stmt, params, batch):
            yield to_tombstone(tenant, row)

    def count(self, tenant: str) -> int:
        stmt = self._s.prepare(q.COUNT_BUCKET)
        results = self._s.execute_many([(stmt, (tenant, b)) for b in range(TENANT_BUCKETS)])
        return sum(int(rs.one()[0]) for rs in results)

    def list_records(self, query: ListQuery) -> RecordPage:
        """Keys after the cursor from the scope index (the key's scopes: other scopes'
        partitions are never read) or the tenant index, merged in id order; the records
        are then read by key and judged by type, state, tag and expiry. Those filters
        have no index, so a page examines at most ``LIST_SCAN_KEYS`` keys and may end
        short, with a cursor, instead of scanning a large tenant in one request."""
        budget = max(LIST_SCAN_KEYS, query.limit + 1)
        tenant, after = query.tenant, query.after
        if query.scopes is not None:
            scopes = sorted(set(query.scopes))
            stmt = self._s.prepare(q.LIST_SCOPE_KEYS)
            params: list[tuple[Any, ...]] = [
                (tenant, sc, b, after, budget) for sc in scopes for b in range(SCOPE_BUCKETS)
            ]
        else:
            stmt = self._s.prepare(q.LIST_TENANT_KEYS)
            params = [(tenant, b, after, budget) for b in range(TENANT_BUCKETS)]
        if not params:
            return RecordPage()
        # Each partition holds about 1/n of the page: fetch twice that per round trip.
        fetch = min(5000, max(32, 2 * (query.limit + 1) // len(params) + 1))
        keys = (row.memory_id for row in self._merged(stmt, params, fetch))
        wanted = None if query.scopes is None else set(query.scopes)
        found: list[StoredRecord] = []
        examined, last = 0, None
        while len(found) <= query.limit and examined < budget:
            chunk = list(itertools.islice(keys, min(budget - examined, _LIST_CHUNK)))
            if not chunk:
                return RecordPage(found)  # every key after the cursor was examined
            examined, last = examined + len(chunk), chunk[-1]
            found += [s for s in self._fetch(tenant, chunk, wanted) if query.matches(s)]
        if len(found) > query.limit:
            page = found[: query.limit]
            return RecordPage(page, page[-1].record.id)
        return RecordPage(found, last)  # the budget ran out: continue after the last key

    def close(self) -> None:
        if self._owns:
            self._s.close()

    # --- helpers -----------------------------------------------------------------------
    def _put(self, s: StoredRecord, writes: list[Item]) -> None:
        mid, pos = s.record.id, s.position
        writes.append((self._s.prepare(q.PUT), (s.tenant, mid, *record_values(s), pos)))
        tb, sb = tenant_bucket(mid), scope_bucket(mid)
        writes.append((self._s.prepare(q.PUT_TENANT_KEY), (s.tenant, tb, mid, pos)))
        writes.append((self._s.prepare(q.PUT_SCOPE_KEY), (s.tenant, s.record.scope, sb, mid, pos)))

    def _remove(
        self,
        tenant: str,
        mid: str,
        pos: int,
        scope: str | None,
        writes: list[Item],
    ) -> None:
        writes.append((self._s.prepare(q.DEL), (pos, tenant, mid)))
        tb = tenant_bucket(mid)
        writes.append((self._s.prepare(q.DEL_TENANT_KEY), (pos, tenant, tb, mid)))
        if scope is not None:
            sb = scope_bucket(mid)
            writes.append((self._s.prepare(q.DEL_SCOPE_KEY), (pos, tenant, scope, sb, mid)))

    def _tombstone(self, t: Tombstone, writes: list[Item]) -> None:
        vals = tombstone_values(t)
        mid, pos = t.memory_id, t.position
        writes.append((self._s.prepare(q.PUT_TOMB), (t.tenant, mid, *vals, pos)))
        writes.append(
            (self._s.prepare(q.PUT_TOMB_TENANT), (t.tenant, tenant_bucket(mid), mid, *vals, pos))
        )
        writes.append(
            (self._s.prepare(q.PUT_TOMB_SCOPE), (t.tenant, scope_bucket(mid), mid, *vals, pos))
        )

    def _stale_puts(self, mutations: Sequence[RecordMutation]) -> set[int]:
        """Indexes of PutRecords older than a tombstone of their id (stored or in batch)."""
        puts = [(i, m.stored) for i, m in enumerate(mutations) if isinstance(m, PutRecord)]
        if not puts:
            return set()
        newest: dict[tuple[str, str], int] = {}
        for m in mutations:
            if isinstance(m, PutTombstone):
                key = (m.tombstone.tenant, m.tombstone.memory_id)
                newest[key] = max(newest.get(key, 0), m.tombstone.position)
        horizon = self._clock() - self._unshadowed_after()
        old = [(s.tenant, s.record.id) for _, s in puts if s.updated_at <= horizon]
        stored = self._rows(q.IN_TOMB_POS, old) if old else {}
        for key, row in stored.items():
            newest[key] = max(newest.get(key, 0), int(row.position))
        return {i for i, s in puts if newest.get((s.tenant, s.record.id), 0) > s.position}

    def _unshadowed_after(self) -> timedelta:
        """How old a PutRecord's event must be before a tombstone of it may have lost its
        delete marker: half the smallest ``gc_grace_seconds`` of the shadowing tables
        (zero, so every put is checked, when it cannot be read)."""
        now = time.monotonic()
        with self._grace_lock:
            if self._grace is not None and now - self._grace[0] < _GC_GRACE_REFRESH_S:
                return self._grace[1]
        try:
            rows = self._s.execute(self._s.prepare(_GC_GRACE), (self._s.keyspace, list(_SHADOWING)))
            graces = [int(r.gc_grace_seconds) for r in rows]
        except AiMemoryError:  # unknown: check every put, never skip one
            graces = []
        horizon = timedelta(seconds=min(graces) / 2) if len(graces) == 3 else timedelta(0)
        with self._grace_lock:
            self._grace = (now, horizon)
        return horizon

    def _removed_scopes(self, mutations: Sequence[RecordMutation]) -> dict[tuple[str, str], str]:
        """The scope of every removed id: from the batch, else from the stored record."""
        known: dict[tuple[str, str], str] = {}
        for m in mutations:
            if isinstance(m, PutTombstone):
                known[(m.tombstone.tenant, m.tombstone.memory_id)] = m.tombstone.scope
            elif isinstance(m, PutRecord):
                known[(m.stored.tenant, m.stored.record.id)] = m.stored.record.scope
        missing = list(
            dict.fromkeys(
                (m.tenant, m.memory_id)
                for m in mutations
                if isinstance(m, RemoveRecord) and (m.tenant, m.memory_id) not in known
            )
        )
        for key, row in self._rows(q.IN_SCOPE, missing).items():
            if row.scope is not None:
                known[key] = row.scope
        return known

    def _add_reads(
        self, reads: dict[tuple[str, str], list[tuple[int, datetime]]], partition: int
    ) -> None:
        if not reads:
            return
        known = self.read_counts.known(partition, reads)
        missing = [key for key in reads if key not in known]
        rows = self._rows(q.IN_READS, missing) if missing else {}
        writes: list[Item] = []
        counted: dict[tuple[str, str], Count] = {}
        for key in reads:
            if key in known:
                count, last = known[key]
            else:
                row: Any = rows.get(key)
                if not is_live(row):
                    continue  # like the embedded store: reads of absent records are dropped
                count, last = int(row.read_count or 0), int(row.last_read_position or 0)
            last_at: datetime | None = None
            for pos, at in sorted(reads[key], key=lambda r: r[0]):
                if pos > last:
                    count, last, last_at = count + 1, pos, at
            if last_at is not None:
                params = (last, count, to_micros(last_at), last, *key)
                writes.append((self._s.prepare(q.SET_READS), params))
            counted[key] = (count, last)
        self._s.write_grouped(writes)
        self.read_counts.remember(partition, counted)

    def _advance(self, partition: int, checkpoint: int) -> None:
        # Timestamp = position: an older checkpoint arriving later (a worker that lost
        # the partition in a rebalance) loses to the newer one already stored.
        self._s.execute(self._s.prepare(q.CP_PUT), (partition, checkpoint, checkpoint))

    def _fetch(
        self, tenant: str, ids: Sequence[str], scopes: set[str] | None = None
    ) -> list[StoredRecord]:
        rows = self._rows(q.IN_GET, [(tenant, mid) for mid in ids])
        found: list[StoredRecord] = []
        for mid in ids:
            row: Any = rows.get((tenant, mid))
            if is_live(row) and (scopes is None or row.scope in scopes):
                found.append(to_stored(tenant, row))
        return found

    def _rows(self, cql: str, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Any]:
        """Rows of ``(tenant, memory_id)`` keys (those that exist), ≤100 ids a request."""
        by_tenant: dict[str, list[str]] = defaultdict(list)
        for tenant, mid in dict.fromkeys(keys):
            by_tenant[tenant].append(mid)
        stmt = self._s.prepare(cql)
        items: list[tuple[str, list[str]]] = [
            (tenant, ids[i : i + _IN_CHUNK])
            for tenant, ids in by_tenant.items()
            for i in range(0, len(ids), _IN_CHUNK)
        ]
        results = self._s.execute_many([(stmt, item) for item in items])
        found: dict[tuple[str, str], Any] = {}
        for (tenant, _), rs in zip(items, results, strict=True):
            for row in rs:
                found[(tenant, row.memory_id)] = row
        return found

    def _chunk(
        self, tenant: str, ids: list[str], scopes: set[str] | None
    ) -> Iterator[StoredRecord]:
        if ids:
            yield from self._fetch(tenant, ids, scopes)

    def _merged(self, stmt: Any, params: Iterable[tuple[Any, ...]], page: int) -> Iterator[Any]:
        """Rows of several id-ordered partitions, merged into one id-ordered stream.

        First pages are requested concurrently; later pages are fetched as each stream
        is consumed, so memory stays at one page per partition."""
        with translate_errors():
            futures = []
            for p in params:
                bound = stmt.bind(p)
                bound.fetch_size = max(1, min(page, 5000))
                futures.append(self._s.session.execute_async(bound))
            streams = [_translated(f.result()) for f in futures]
        return heapq.merge(*streams, key=lambda row: row.memory_id)


def _born(mutations: Sequence[RecordMutation], skip: set[int]) -> set[tuple[str, str]]:
    """Memories whose first version a batch puts, and that nothing else in it changes
    (a newer version, a state change, a removal: their counts are read from the row)."""
    first: set[tuple[str, str]] = set()
    other: set[tuple[str, str]] = set()
    for i, m in enumerate(mutations):
        key = _memory_of(m)
        if key is None:
            continue
        if isinstance(m, PutRecord) and m.stored.version == 1 and i not in skip:
            first.add(key)
        else:
            other.add(key)
    return first - other


def _memory_of(m: RecordMutation) -> tuple[str, str] | None:
    """The memory a mutation other than a recall changes."""
    match m:
        case PutRecord(stored=s):
            return (s.tenant, s.record.id)
        case RemoveRecord(tenant=tenant, memory_id=mid) | SetState(tenant=tenant, memory_id=mid):
            return (tenant, mid)
        case PutTombstone(tombstone=t):
            return (t.tenant, t.memory_id)
    return None  # recalls and lineage


def _translated(rows: Iterable[Any]) -> Iterator[Any]:
    with translate_errors():
        yield from rows
