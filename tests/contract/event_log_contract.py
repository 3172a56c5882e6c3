"""The EventLog contract: every adapter (embedded SQLite, Kafka) must pass this suite.

A log may have several partitions. Positions of one partition increase; positions of
different partitions are not ordered, so tests read through the helpers below instead of
assuming everything is in partition 0.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from ai_memory.core.events import DomainEvent, LoggedEvent, MemoryDeleted, MemoryWritten
from ai_memory.core.ports import EventLog, encode_events
from ai_memory.core.positions import partition_of
from ai_memory.serialization import AvroEventSerializer
from tests.factories import deleted, record, written


def partition_holding(log: EventLog, position: int) -> int:
    """The partition a position belongs to (a single-partition log uses plain integers)."""
    partitions = log.partitions()
    return partitions[0] if len(partitions) == 1 else partition_of(position)


def read_partition(
    log: EventLog, partition: int, *, after: int = 0, page: int = 7
) -> list[LoggedEvent]:
    """Every event of one partition after ``after``, fetched in small pages."""
    out: list[LoggedEvent] = []
    while batch := log.read(after=after, limit=page, partition=partition):
        out.extend(batch)
        after = batch[-1].position
    return out


def read_all(log: EventLog) -> list[LoggedEvent]:
    """Every event of every partition, partition after partition."""
    return [e for p in log.partitions() for e in read_partition(log, p)]


class EventLogContract:
    #: A stack that crypto-shreds (encryption on): a forgotten memory's writes read back
    #: sealed, everything else as it was appended.
    shreds = False

    @pytest.fixture
    def log(self) -> Iterator[EventLog]:
        raise NotImplementedError  # subclasses provide the adapter

    def test_empty_log(self, log: EventLog) -> None:
        assert log.partitions() and 0 in log.partitions()
        for partition in log.partitions():
            assert log.last_position(partition) == 0
            assert log.read(after=0, limit=10, partition=partition) == []

    def test_append_returns_increasing_positions_and_reads_back_in_order(
        self, log: EventLog
    ) -> None:
        events = [written(record(f"m{i}", f"memory number {i}")) for i in range(5)]
        positions = log.append(events)
        assert positions == sorted(positions) and len(set(positions)) == 5
        assert all(p > 0 for p in positions)
        partition = partition_holding(log, positions[0])  # one scope: one partition
        assert log.last_position(partition) == positions[-1]
        read = log.read(after=0, limit=100, partition=partition)
        assert [e.position for e in read] == positions
        assert [e.event for e in read] == events
        assert read_all(log) == read

    def test_read_after_and_limit(self, log: EventLog) -> None:
        positions = log.append([written(record(f"m{i}")) for i in range(6)])
        partition = partition_holding(log, positions[0])
        page = log.read(after=positions[1], limit=3, partition=partition)
        assert [e.position for e in page] == positions[2:5]
        assert log.read(after=positions[-1], limit=3, partition=partition) == []

    def test_paging_through_a_partition_sees_every_event_once(self, log: EventLog) -> None:
        positions = log.append([written(record(f"m{i}")) for i in range(20)])
        partition = partition_holding(log, positions[0])
        for page in (1, 3, 20, 50):
            assert [e.position for e in read_partition(log, partition, page=page)] == positions
        tail = read_partition(log, partition, after=positions[9], page=4)
        assert [e.position for e in tail] == positions[10:]

    def test_each_scope_keeps_its_append_order(self, log: EventLog) -> None:
        scopes = [f"user:{name}" for name in ("ann", "bob", "cy", "dee", "eve", "fay")]
        events = [
            written(record(f"{scope}-{i}", scope=scope))
            for i in range(4)
            for scope in scopes  # interleaved: a, b, c, …, a, b, c, …
        ]
        positions = log.append(events)
        assert len(set(positions)) == len(events)
        everything = read_all(log)
        assert sorted(e.position for e in everything) == sorted(positions)
        for scope in scopes:
            mine = [e for e in everything if e.event.partition_key == f"default/{scope}"]
            assert [e.event.record.id for e in mine if isinstance(e.event, MemoryWritten)] == [
                f"{scope}-{i}" for i in range(4)
            ]
            assert len({partition_holding(log, e.position) for e in mine}) == 1

    def test_retried_append_is_not_duplicated(self, log: EventLog) -> None:
        event = written()
        first = log.append([event])
        again = log.append([event])
        assert first == again
        assert len(read_all(log)) == 1

    def test_retried_batch_returns_the_original_positions(self, log: EventLog) -> None:
        batch = [written(record(f"m{i}")) for i in range(3)] + [deleted("gone", version=0)]
        first = log.append(batch)
        assert log.append(batch) == first
        assert len(read_all(log)) == 4

    def test_heads_track_latest_write_and_delete(self, log: EventLog) -> None:
        v1 = written(record("m1", "first"))
        v2 = written(record("m1", "second"), version=2)
        log.append([v1, v2, written(record("m2", "other"))])
        heads = log.heads("default", ["m1", "m2", "missing"])
        assert set(heads) == {"m1", "m2"}
        assert heads["m1"].version == 2 and heads["m1"].content_sha256 == v2.content_sha256
        assert not heads["m1"].deleted
        (pos,) = log.append([deleted("m1", version=2)])
        head = log.heads("default", ["m1"])["m1"]
        assert head.deleted and head.position == pos

    def test_heads_are_per_tenant(self, log: EventLog) -> None:
        log.append([written(record("shared-id"), tenant="acme")])
        assert log.heads("default", ["shared-id"]) == {}
        assert "shared-id" in log.heads("acme", ["shared-id"])

    def test_events_round_trip_every_type(self, log: EventLog) -> None:
        events: list[DomainEvent] = [written(), deleted()]
        log.append(events)
        read = [e.event for e in read_all(log)]
        assert isinstance(read[0], MemoryWritten) and isinstance(read[1], MemoryDeleted)
        assert read[1] == events[1]
        if self.shreds:  # forgotten means unreadable: the write stays, its content does not
            assert read[0].sealed and read[0].record.content != events[0].record.content
            assert (read[0].header, read[0].record.id) == (events[0].header, "m1")
        else:
            assert read[0] == events[0]

    def test_encoded_frames_are_written_as_they_are(self, log: EventLog) -> None:
        events = [written(record(f"m{i}", f"memory number {i}")) for i in range(3)]
        frames = encode_events(AvroEventSerializer(), events)
        positions = log.append_encoded(frames)
        assert len(set(positions)) == 3 and positions == sorted(positions)
        assert [e.event for e in read_all(log)] == events
        assert log.append_encoded(frames) == positions  # a retry is recognised by event id
        assert log.heads("default", ["m0", "m1", "m2"]).keys() == {"m0", "m1", "m2"}

    def test_read_changes_keeps_the_changes_of_the_scopes_asked(self, log: EventLog) -> None:
        log.append(
            [
                written(record("a1", scope="user:alice")),
                written(record("b1", scope="user:bob")),
                written(record("g1", scope="user:alice"), tenant="globex"),
                deleted("b1", scope="user:bob"),
            ]
        )

        def changes(scopes: list[str] | None) -> list[tuple[str, str]]:
            found = []
            for p in log.partitions():
                page = log.read_changes(
                    "default", scopes, after=0, limit=100, scan=1000, partition=p
                )
                found += [(type(e.event).__name__, _memory_id(e.event)) for e in page.events]
            return sorted(found)

        assert changes(None) == [
            ("MemoryDeleted", "b1"),
            ("MemoryWritten", "a1"),
            ("MemoryWritten", "b1"),
        ]
        assert changes(["user:alice"]) == [("MemoryWritten", "a1")]
        assert changes(["user:carol"]) == []
        assert isinstance(log.writers(), dict)

    def test_wait_for_events_wakes_on_append(self, log: EventLog) -> None:
        assert log.wait_for_events(after=0, timeout=0.05) is False
        (first,) = log.append([written(record("m1"))])
        partition = partition_holding(log, first)
        assert log.wait_for_events(after=0, timeout=5.0, partition=partition) is True
        assert log.wait_for_events(after=first, timeout=0.05, partition=partition) is False
        timer = threading.Timer(0.1, lambda: log.append([written(record("m2"))]))
        timer.start()
        try:
            assert log.wait_for_events(after=first, timeout=5.0, partition=partition) is True
        finally:
            timer.join()

    def test_concurrent_appends_lose_nothing(self, log: EventLog) -> None:
        def writer(n: int) -> None:
            for i in range(25):
                log.append([written(record(f"w{n}-{i}"))])

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        read = read_all(log)
        assert len(read) == 100
        assert len({e.event.header.event_id for e in read}) == 100

    # --- one tenant's events (the audit trail) ------------------------------------------

    def test_read_tenant_returns_only_that_tenants_events_in_order(self, log: EventLog) -> None:
        # "acme" is a prefix of "acme2" and of "acme/x" (a tenant named in-process is not
        # validated, and a partitioned log's record key is tenant/scope): still apart.
        tenants = ("acme", "acme2", "acme/x", "globex")
        events = [
            written(record(f"{t}-{i}", scope=f"user:u{i % 3}"), tenant=t)
            for i in range(6)
            for t in tenants
        ]
        log.append(events)
        for tenant in tenants:
            mine = [e for p in log.partitions() for e in tenant_events(log, tenant, p, limit=2)]
            assert sorted(e.event.header.event_id for e in mine) == sorted(
                e.header.event_id for e in events if e.header.tenant == tenant
            )
            for p in log.partitions():
                positions = [e.position for e in tenant_events(log, tenant, p, limit=100)]
                assert positions == sorted(positions)

    def test_read_tenant_within_a_small_scan_still_reaches_everything(self, log: EventLog) -> None:
        """A bounded scan may return nothing while it skips other tenants' events, but
        ``scanned_to`` always moves on, so following it reaches every event."""
        log.append([written(record(f"noise-{i}"), tenant="globex") for i in range(12)])
        mine = log.append([written(record("a1"), tenant="acme")])
        log.append([written(record(f"more-{i}"), tenant="globex") for i in range(5)])
        found = [
            e.event.header.tenant
            for p in log.partitions()
            for e in tenant_events(log, "acme", p, limit=10, scan=3)
        ]
        assert found == ["acme"]
        partition = partition_holding(log, mine[0])
        page = log.read_tenant("acme", after=mine[0], limit=10, scan=100, partition=partition)
        assert page.events == [] and page.complete
        assert page.scanned_to >= mine[0]
        empty = log.read_tenant("nobody", after=0, limit=10, scan=100, partition=partition)
        assert empty.events == [] and empty.complete

    def test_read_tenant_stops_at_limit_and_continues_after_it(self, log: EventLog) -> None:
        positions = log.append([written(record(f"m{i}"), tenant="acme") for i in range(5)])
        partition = partition_holding(log, positions[0])
        page = log.read_tenant("acme", after=0, limit=2, scan=100, partition=partition)
        assert [e.position for e in page.events] == positions[:2]
        assert page.scanned_to == positions[1] and not page.complete
        rest = log.read_tenant(
            "acme", after=page.scanned_to, limit=9, scan=100, partition=partition
        )
        assert [e.position for e in rest.events] == positions[2:] and rest.complete


def tenant_events(
    log: EventLog, tenant: str, partition: int, *, limit: int, scan: int = 1000
) -> list[LoggedEvent]:
    """Every event of ``tenant`` in ``partition``, following ``scanned_to``."""
    out: list[LoggedEvent] = []
    after = 0
    for _ in range(1000):
        page = log.read_tenant(tenant, after=after, limit=limit, scan=scan, partition=partition)
        out.extend(page.events)
        assert page.scanned_to >= after
        if page.complete:
            return out
        assert page.scanned_to > after  # progress, or the trail would stall
        after = page.scanned_to
    raise AssertionError("read_tenant never completed")


def _memory_id(event: DomainEvent) -> str:
    return event.record.id if isinstance(event, MemoryWritten) else getattr(event, "memory_id", "")
