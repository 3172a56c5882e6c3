"""The record-store contract against a real Cassandra (one fresh keyspace per test),
plus the adapter's own guarantees: URL parsing, driver-error translation, and the
Cassandra-specific replay cases (tombstones beyond gc_grace, concurrent consumers)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import cassandra
import pytest
from cassandra.cluster import NoHostAvailable
from cassandra.query import BatchStatement

from ai_memory.adapters.cassandra import (
    CassandraRecordStore,
    CassandraSession,
    migrate,
    parse_url,
)
from ai_memory.adapters.cassandra import session as session_module
from ai_memory.adapters.cassandra.cql import IN_READS, IN_TOMB_POS
from ai_memory.adapters.cassandra.session import is_idempotent, translate, translate_errors
from ai_memory.adapters.record_scan_usage import RecordScanUsage
from ai_memory.core.errors import InvalidInput, PermanentError, Unavailable
from ai_memory.core.ports import RecordStore
from ai_memory.core.positions import pack
from ai_memory.core.projection import (
    AddReads,
    PutRecord,
    PutTombstone,
    RecordMutation,
    RemoveRecord,
    SetState,
)
from ai_memory.core.record import MemoryState, StoredRecord, Tombstone
from tests.contract.record_store_contract import RecordStoreContract, stored, tombstone
from tests.contract.sealed_view_contract import SealedViewContract
from tests.contract.usage_source_contract import Stack, UsageSourceContract
from tests.factories import T0


@pytest.fixture
def session(cassandra_contact: str) -> Iterator[CassandraSession]:
    s = CassandraSession.from_url(f"cassandra://{cassandra_contact}/rec_{uuid.uuid4().hex[:16]}")
    migrate(s)
    yield s
    s.execute(f"DROP KEYSPACE IF EXISTS {s.keyspace}")
    s.close()


def _count_reads(
    store: CassandraRecordStore, monkeypatch: pytest.MonkeyPatch, cql: str = IN_READS
) -> list[int]:
    """How many ids each multi-partition read of ``cql`` (by default: of read counts)
    asks Cassandra for, in order."""
    asked: list[int] = []
    rows = store._rows

    def spy(query: str, keys: Sequence[tuple[str, str]]) -> Any:
        if query == cql:
            asked.append(len(keys))
        return rows(query, keys)

    monkeypatch.setattr(store, "_rows", spy)
    return asked


class TestCassandraRecordStore(RecordStoreContract):
    @pytest.fixture
    def store(self, session: CassandraSession) -> Iterator[RecordStore]:
        store = CassandraRecordStore(session)
        yield store
        store.close()


class TestSealedCassandraRecordStore(SealedViewContract):
    @pytest.fixture
    def inner(self, session: CassandraSession) -> Iterator[RecordStore]:
        store = CassandraRecordStore(session)
        yield store
        store.close()


class TestCassandraScanUsage(UsageSourceContract):
    """Cassandra sums no content where it keeps it: usage is counted by a scan
    (``RecordScanUsage``) until the distributed deployment reads the usage fold."""

    lists_tenants = False

    @pytest.fixture
    def stack(self, session: CassandraSession) -> Iterator[Stack]:
        store = CassandraRecordStore(session)
        yield Stack(store, RecordScanUsage(store, lambda: [0, 3]))
        store.close()


def test_old_write_stays_dead_after_the_delete_marker_is_purged(
    session: CassandraSession,
) -> None:
    """Cassandra drops delete markers after gc_grace_seconds; the tombstones table
    still keeps a replayed old write from resurrecting the memory."""
    store = CassandraRecordStore(session)
    store.apply([PutTombstone(tombstone(position=5))], checkpoint=5)  # no records delete
    store.apply([PutRecord(stored(position=2))], checkpoint=5)
    assert isinstance(store.get("default", "m1"), Tombstone)
    assert store.count("default") == 0
    store.apply([PutRecord(stored(position=9, version=2))], checkpoint=9)  # newer: allowed
    assert isinstance(store.get("default", "m1"), StoredRecord)


def test_only_writes_older_than_half_the_grace_period_are_checked_against_tombstones(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tombstone comes after the write it forgets, so while the write's event is younger
    than gc_grace_seconds the delete marker still shadows it: no read is needed. Past
    half the grace period (default: 5 of 10 days) the tombstones table is read again."""
    now = [T0 + timedelta(hours=1)]
    store = CassandraRecordStore(session, clock=lambda: now[0])
    asked = _count_reads(store, monkeypatch, IN_TOMB_POS)  # ids looked up in tombstones
    store.apply([PutRecord(stored(position=1))], checkpoint=1)
    store.apply(
        [RemoveRecord("default", "m1", 5), PutTombstone(tombstone(position=5))], checkpoint=5
    )
    asked.clear()
    store.apply([PutRecord(stored(position=2))], checkpoint=5)  # a redelivery, an hour on
    assert asked == []  # the marker did the work
    assert isinstance(store.get("default", "m1"), Tombstone)
    assert store.count("default") == 0

    now[0] = T0 + timedelta(days=5, minutes=1)
    store.apply([PutRecord(stored(position=2))], checkpoint=5)
    assert asked == [1]  # old enough that the marker may be gone: the table is asked
    assert isinstance(store.get("default", "m1"), Tombstone)


def test_delete_without_a_tombstone_in_the_batch_clears_the_scope_index(
    session: CassandraSession,
) -> None:
    store = CassandraRecordStore(session)
    store.apply([PutRecord(stored(position=1))], checkpoint=1)
    store.apply([RemoveRecord("default", "m1", 2)], checkpoint=2)
    rows = session.execute("SELECT memory_id FROM records_by_scope").all()
    assert rows == []
    assert list(store.scan_records("default", scopes=["user:alice"])) == []


def test_two_consumers_delivering_the_same_recalls_count_them_once(
    session: CassandraSession,
) -> None:
    a, b = CassandraRecordStore(session), CassandraRecordStore(session)
    a.apply([PutRecord(stored(position=1))], checkpoint=1)
    recalls = [AddReads("default", ("m1",), T0, p) for p in (2, 3, 4)]
    a.apply(recalls[:2], checkpoint=3)
    b.apply(recalls, checkpoint=4)  # a rebalance re-delivers 2 and 3
    a.apply(recalls, checkpoint=4)
    got = a.get("default", "m1")
    assert isinstance(got, StoredRecord) and got.read_count == 3


def test_read_counts_are_dropped_with_the_record(session: CassandraSession) -> None:
    store = CassandraRecordStore(session)
    store.apply([PutRecord(stored(position=1)), AddReads("default", ("m1",), T0, 2)], checkpoint=2)
    store.apply([RemoveRecord("default", "m1", 3)], checkpoint=3)
    store.apply([AddReads("default", ("m1",), T0, 4)], checkpoint=4)  # read of a gone id
    assert store.get("default", "m1") is None


def _stored_reads(session: CassandraSession, memory_id: str) -> list[Any]:
    rows = session.execute(
        "SELECT read_count, last_read_position FROM records WHERE tenant = %s AND memory_id = %s",
        ("default", memory_id),
    )
    return [(r.read_count, r.last_read_position) for r in rows]


def test_read_counts_this_projector_wrote_are_not_read_again(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = CassandraRecordStore(session)
    asked = _count_reads(store, monkeypatch)
    # Later versions: memories whose first this projector never saw (counts in the row).
    puts = [PutRecord(stored(m, position=p, version=2)) for m, p in (("m1", 1), ("m2", 2))]
    store.apply(puts, checkpoint=2)
    store.apply([AddReads("default", ("m1", "m2"), T0, 3)], checkpoint=3)
    assert asked == [2]
    store.apply([AddReads("default", ("m1",), T0, 4)], checkpoint=4)
    store.apply([AddReads("default", ("m1", "m2"), T0, 5)], checkpoint=5)
    assert asked == [2]  # both remembered
    store.apply([AddReads("default", ("m1", "m3"), T0, 6)], checkpoint=6)
    assert asked == [2, 1]  # only the one never counted here
    assert _stored_reads(session, "m1") == [(4, 6)]
    assert _stored_reads(session, "m2") == [(2, 5)]
    assert _stored_reads(session, "m3") == []  # absent: its recall is dropped


def test_a_first_version_starts_its_count_without_a_read(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every recall of a memory comes after its first version: a projector that put it
    counts from zero. Replayed from an earlier checkpoint by a fresh process, the fold
    from zero is the one the row holds."""
    store = CassandraRecordStore(session)
    asked = _count_reads(store, monkeypatch)
    store.apply([PutRecord(stored(position=1))], checkpoint=1)
    store.apply([AddReads("default", ("m1",), T0, 2)], checkpoint=2)
    store.apply(
        [PutRecord(stored("m2", position=3)), AddReads("default", ("m2",), T0, 4)], checkpoint=4
    )
    assert asked == []
    assert _stored_reads(session, "m1") == [(1, 2)]
    assert _stored_reads(session, "m2") == [(1, 4)]
    store.apply([AddReads("default", ("m1", "m2"), T0, 5)], checkpoint=5)

    replay = CassandraRecordStore(session)  # the view's checkpoint lost: from 0 again
    again = _count_reads(replay, monkeypatch)
    replay.apply([PutRecord(stored(position=1))], checkpoint=1)
    replay.apply([AddReads("default", ("m1",), T0, 2)], checkpoint=2)
    assert _stored_reads(session, "m1") == [(2, 5)]  # the partial fold lost by timestamp
    replay.apply(
        [PutRecord(stored("m2", position=3)), AddReads("default", ("m2",), T0, 4)], checkpoint=4
    )
    replay.apply([AddReads("default", ("m1", "m2"), T0, p) for p in (5, 6)], checkpoint=6)
    assert again == []
    assert _stored_reads(session, "m1") == [(3, 6)]
    assert _stored_reads(session, "m2") == [(3, 6)]


def test_a_first_version_refused_by_its_tombstone_is_not_counted(
    session: CassandraSession,
) -> None:
    """A redelivered first version older than the memory's tombstone is not put; its
    recalls then find no record, as they would reading the row."""
    store = CassandraRecordStore(session)
    store.apply([PutTombstone(tombstone(position=5))], checkpoint=5)  # no records delete
    store.apply([PutRecord(stored(position=2)), AddReads("default", ("m1",), T0, 6)], checkpoint=6)
    assert _stored_reads(session, "m1") == []


@pytest.mark.parametrize("then", ["version 2", "state", "removed"])
def test_a_first_version_changed_in_the_same_batch_is_read_from_the_row(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch, then: str
) -> None:
    store = CassandraRecordStore(session)
    asked = _count_reads(store, monkeypatch)
    changes: dict[str, list[RecordMutation]] = {
        "version 2": [PutRecord(stored(position=2, version=2))],
        "state": [SetState("default", "m1", MemoryState.HISTORICAL, T0, 2)],
        "removed": [RemoveRecord("default", "m1", 2), PutTombstone(tombstone(position=2))],
    }
    store.apply(
        [PutRecord(stored(position=1)), *changes[then], AddReads("default", ("m1",), T0, 3)],
        checkpoint=3,
    )
    assert asked == [1]
    assert _stored_reads(session, "m1") == ([] if then == "removed" else [(1, 3)])


def test_counts_are_read_again_after_another_projector_moved_the_partition(
    session: CassandraSession,
) -> None:
    """A rebalance takes partition 0 from A to B and gives it back: B counted recalls A
    never saw. A reads the checkpoint before projecting again, finds it moved, and counts
    on from the row, not from what it remembers."""
    a, b = CassandraRecordStore(session), CassandraRecordStore(session)
    a.apply([PutRecord(stored(position=1)), AddReads("default", ("m1",), T0, 2)], checkpoint=2)
    assert b.checkpoint(0) == 2  # B resumes
    b.apply([AddReads("default", ("m1",), T0, 3)], checkpoint=3)
    assert a.checkpoint(0) == 3  # A resumes
    a.apply([AddReads("default", ("m1",), T0, 4)], checkpoint=4)
    assert _stored_reads(session, "m1") == [(3, 4)]


def test_a_projector_that_died_before_its_checkpoint_is_counted_once(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B counts a recall and dies before moving the checkpoint; A resumes where it left
    the checkpoint itself, so it counts that recall again from what it remembers — to the
    very value B wrote."""
    a, b = CassandraRecordStore(session), CassandraRecordStore(session)
    a.apply([PutRecord(stored(position=1)), AddReads("default", ("m1",), T0, 2)], checkpoint=2)
    assert b.checkpoint(0) == 2

    def died(*_: Any) -> None:
        raise Unavailable("killed before its checkpoint")

    monkeypatch.setattr(b, "_advance", died)
    with pytest.raises(Unavailable):
        b.apply([AddReads("default", ("m1",), T0, 3)], checkpoint=3)
    assert _stored_reads(session, "m1") == [(2, 3)]  # its count landed
    assert a.checkpoint(0) == 2
    a.apply([AddReads("default", ("m1",), T0, p) for p in (3, 4)], checkpoint=4)
    assert _stored_reads(session, "m1") == [(3, 4)]


@pytest.mark.parametrize("same_batch", [True, False])
def test_a_removed_memory_is_not_counted_from_memory(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch, same_batch: bool
) -> None:
    store = CassandraRecordStore(session)
    store.apply([PutRecord(stored(position=1)), AddReads("default", ("m1",), T0, 2)], checkpoint=2)
    remove: list[RecordMutation] = [
        RemoveRecord("default", "m1", 3),
        PutTombstone(tombstone(position=3)),
    ]
    later: list[RecordMutation] = [AddReads("default", ("m1",), T0, 4)]
    if same_batch:
        store.apply([*remove, *later], checkpoint=4)
    else:
        store.apply(remove, checkpoint=3)
        store.apply(later, checkpoint=4)
    assert _stored_reads(session, "m1") == []  # no row of read counts alone
    assert isinstance(store.get("default", "m1"), Tombstone)


def test_a_batch_that_fails_forgets_the_partitions_counts(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = CassandraRecordStore(session)
    store.apply([PutRecord(stored(position=1)), AddReads("default", ("m1",), T0, 2)], checkpoint=2)
    assert len(store.read_counts) == 1

    def down(*_: Any) -> None:
        raise Unavailable("cassandra is down")

    monkeypatch.setattr(store, "_advance", down)
    with pytest.raises(Unavailable):
        store.apply([AddReads("default", ("m1",), T0, 3)], checkpoint=3)
    assert len(store.read_counts) == 0
    monkeypatch.undo()
    store.apply([AddReads("default", ("m1",), T0, 3)], checkpoint=3)  # the retry
    assert _stored_reads(session, "m1") == [(2, 3)]


# --- no server needed ------------------------------------------------------------------


def test_url_parameters() -> None:
    s = parse_url(
        "cassandra://u:p%40ss@h1:9142,h2/ks_1?replication_factor=3&datacenter=dc1"
        "&consistency=quorum&serial_consistency=SERIAL&request_timeout=2.5"
    )
    assert s.hosts == (("h1", 9142), ("h2", 9042))
    assert (s.keyspace, s.replication_factor, s.datacenter) == ("ks_1", 3, "dc1")
    assert (s.consistency, s.serial_consistency, s.request_timeout) == ("QUORUM", "SERIAL", 2.5)
    assert (s.username, s.password) == ("u", "p@ss")
    assert "NetworkTopologyStrategy" in s.replication()
    defaults = parse_url("cassandra://127.0.0.1/ai_memory")
    assert defaults.consistency == "LOCAL_QUORUM" and defaults.replication_factor == 1
    assert defaults.speculative_delay == 0.5
    assert parse_url("cassandra://h/ks?speculative_delay=0").speculative_delay == 0


@pytest.mark.parametrize(
    ("cql", "twice_is_once"),
    [
        ("SELECT wrapped FROM data_keys WHERE tenant = ? AND key_id = ?", True),
        ("INSERT INTO records (tenant, memory_id) VALUES (?, ?) USING TIMESTAMP ?", True),
        ("DELETE FROM records USING TIMESTAMP ? WHERE tenant = ? AND memory_id = ?", True),
        (
            "INSERT INTO tenant_keks (tenant, version, wrapped) VALUES (?, ?, ?) IF NOT EXISTS",
            False,
        ),
        ("UPDATE api_keys SET revoked_at_us = ? WHERE key_id = ? if revoked_at_us = null", False),
        ("DELETE FROM projection_progress WHERE projection = ? IF EXISTS", False),
        ("UPDATE read_counts SET n = n + ? WHERE tenant = ?", False),
    ],
)
def test_only_statements_safe_to_run_twice_are_sent_twice(cql: str, twice_is_once: bool) -> None:
    """Speculative execution and retries elsewhere only for idempotent statements:
    never a lightweight transaction or a counter update."""
    assert is_idempotent(cql) is twice_is_once


def test_every_prepared_statement_says_whether_it_may_run_twice(
    session: CassandraSession,
) -> None:
    store = CassandraRecordStore(session)
    store.apply([PutRecord(stored("a"))], checkpoint=1)
    store.get("default", "a")
    prepared = dict(session._prepared)
    assert prepared, "nothing was prepared"
    for cql, stmt in prepared.items():
        assert stmt.is_idempotent is is_idempotent(cql), cql
        assert stmt.bind([None] * len(stmt.column_metadata)).is_idempotent is stmt.is_idempotent


@pytest.mark.parametrize(
    "url",
    [
        "kafka://h/ks",
        "cassandra://h/",
        "cassandra://h/bad-keyspace",
        "cassandra://h/ks?consistency=SOMETIMES",
        "cassandra://h/ks?replication_factor=0",
        "cassandra://h/ks?colour=blue",
        "cassandra://h/ks?speculative_delay=-1",
        "cassandra://h/ks?speculative_delay=10",
        "cassandra://h:port/ks",
    ],
)
def test_bad_urls_are_invalid_input(url: str) -> None:
    with pytest.raises(InvalidInput):
        parse_url(url)


@pytest.mark.parametrize(
    ("error", "expected", "retry_after"),
    [
        (NoHostAvailable("down", {}), Unavailable, 5.0),
        (cassandra.OperationTimedOut("slow"), Unavailable, 1.0),
        (cassandra.Unavailable("2 of 3 down"), Unavailable, 2.0),
        (cassandra.WriteTimeout("w", write_type=cassandra.WriteType.CAS), Unavailable, 1.0),
        (cassandra.ReadTimeout("r"), Unavailable, 1.0),
        (cassandra.InvalidRequest("unknown table"), PermanentError, None),
        (cassandra.Unauthorized("no grant"), PermanentError, None),
    ],
)
def test_driver_errors_are_translated(
    error: Exception, expected: type[Exception], retry_after: float | None
) -> None:
    mapped = translate(error)
    assert isinstance(mapped, expected)
    if retry_after is not None:
        assert isinstance(mapped, Unavailable) and mapped.retry_after == retry_after
    else:
        assert not isinstance(mapped, Unavailable)
    with pytest.raises(expected) as raised, translate_errors():
        raise error
    assert raised.value.__cause__ is error


def test_unrelated_errors_pass_through() -> None:
    assert translate(KeyError("x")) is None
    with pytest.raises(KeyError), translate_errors():
        raise KeyError("x")


def test_a_listing_page_examines_a_bounded_number_of_keys(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Type, state and tag have no index: a page stops after its key budget, short (even
    empty) but with a cursor, and following the cursors still visits every match once."""
    from ai_memory.adapters.cassandra import record_store as module
    from ai_memory.core.listing import ListQuery
    from tests.contract.record_listing_contract import flat, item, put, walk

    monkeypatch.setattr(module, "LIST_SCAN_KEYS", 4)
    store = CassandraRecordStore(session)
    put(store, *(item(f"m{i:02d}", tags=("rare",) if i % 7 == 0 else ()) for i in range(30)))
    first = store.list_records(ListQuery("default", tag="rare", limit=1))
    assert [s.record.id for s in first.items] == ["m00"]
    second = store.list_records(ListQuery("default", tag="rare", limit=1, after="m00"))
    assert second.items == [] and second.next_after == "m04"  # budget spent, cursor moves
    pages = walk(store, ListQuery("default", tag="rare", limit=1))
    assert flat(pages) == ["m00", "m07", "m14", "m21", "m28"]


def test_racing_workers_leave_the_newest_checkpoint_whatever_order_they_land_in(
    session: CassandraSession,
) -> None:
    """Two workers holding one partition through a rebalance advance its checkpoint
    concurrently and out of order; the highest position stays (no Paxos round needed)."""
    import random
    import threading

    store = CassandraRecordStore(session)
    positions = [pack(3, offset) for offset in range(200)]
    halves = [positions[0::2], positions[1::2]]
    for half in halves:
        random.Random(len(half)).shuffle(half)

    def advance(mine: list[int]) -> None:
        for position in mine:
            store.apply([], checkpoint=position, partition=3)

    threads = [threading.Thread(target=advance, args=(half,)) for half in halves]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.checkpoint(3) == max(positions)


def test_a_checkpoint_from_before_migration_0007_is_where_the_view_resumes(
    session: CassandraSession,
) -> None:
    """A view last advanced by the lightweight-transaction checkpoint resumes there; the
    first advance after the upgrade takes over, and a reset clears both."""
    session.execute(
        "INSERT INTO projection_progress (projection, log_partition, position)"
        " VALUES ('records', 1, 5121) IF NOT EXISTS"
    )
    store = CassandraRecordStore(session)
    assert store.checkpoint(1) == 5121
    store.apply([], checkpoint=pack(1, 9), partition=1)
    assert store.checkpoint(1) == pack(1, 9)
    store.reset()
    assert store.checkpoint(1) == 0


def test_a_batch_of_memories_at_the_size_limits_is_applied(session: CassandraSession) -> None:
    """Grouped writes stay under Cassandra's batch_size_fail_threshold (50 KiB by
    default): 120 memories each at the 16 KiB content limit, in non-ASCII text, with tags
    and meta, land in one apply, as do small ones mixed in."""
    from dataclasses import replace

    store = CassandraRecordStore(session)
    big = "é" * 8_192  # 16 KiB of UTF-8
    mutations = []
    for n in range(120):
        s = stored(f"m{n}", content=big if n % 2 else f"small {n}", position=n + 1)
        record = replace(s.record, tags=("alpha", "beta", "ünïcode"), meta={"k": "v" * 500})
        mutations.append(PutRecord(replace(s, record=record)))
    store.apply(mutations, checkpoint=120)
    got = store.get_many("default", [f"m{n}" for n in range(120)])
    assert len(got) == 120
    assert got["m1"].record.content == big and got["m2"].record.content == "small 2"
    assert store.count("default") == 120


def test_grouped_writes_land_whatever_their_partitions_and_sizes(
    session: CassandraSession,
) -> None:
    """write_grouped: many partitions, one statement alone over the batch size limit, and
    nothing at all."""
    session.use_keyspace()
    session.execute("CREATE TABLE IF NOT EXISTS grouped (k text PRIMARY KEY, v text)")
    stmt = session.prepare("INSERT INTO grouped (k, v) VALUES (?, ?)")
    session.write_grouped([])
    items = [(stmt, (f"k{n}", f"v{n}")) for n in range(1_000)]
    items.append((stmt, ("huge", "x" * 60_000)))
    session.write_grouped(items)
    rows = {r.k: r.v for r in session.execute("SELECT k, v FROM grouped")}
    assert len(rows) == 1_001
    assert rows["k999"] == "v999" and len(rows["huge"]) == 60_000


def test_grouped_writes_put_a_partitions_rows_in_as_few_batches_as_they_fit(
    session: CassandraSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows of five partitions, given interleaved (as a projection batch gives its scan
    index rows), leave sorted by partition: Cassandra applies a batch's rows of one
    partition as one mutation. Interleaved, every batch of 100 would carry all five."""
    session.use_keyspace()
    session.execute(
        "CREATE TABLE IF NOT EXISTS grouped_rows (k text, c int, v text, PRIMARY KEY (k, c))"
    )
    stmt = session.prepare("INSERT INTO grouped_rows (k, c, v) VALUES (?, ?, ?)")
    sent: list[list[bytes | None]] = []

    class Recording(BatchStatement):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            sent.append([])

        def add(self, statement: Any, parameters: Any = None) -> Any:
            sent[-1].append(statement.routing_key)
            return super().add(statement, parameters)

    monkeypatch.setattr(session_module, "BatchStatement", Recording)
    items = [(stmt, (f"p{n % 5}", n, "v")) for n in range(300)]
    session.write_grouped(items)
    assert sum(len(batch) for batch in sent) == 300
    # 60 rows a partition, 100 statements a batch: each partition in one or two batches.
    spans = [sum(1 for batch in sent if key in batch) for key in {k for b in sent for k in b}]
    assert len(spans) == 5 and max(spans) <= 2 and sum(spans) <= 5 + len(sent) - 1
    landed = session.execute("SELECT k, c FROM grouped_rows")
    assert sorted((r.k, r.c) for r in landed) == sorted((f"p{n % 5}", n) for n in range(300))
