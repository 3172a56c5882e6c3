"""The EventLog contract: every adapter (embedded SQLite, Kafka) must pass this suite."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from ai_memory.core.events import MemoryDeleted, MemoryWritten
from ai_memory.core.ports import EventLog
from tests.factories import deleted, record, written


class EventLogContract:
    @pytest.fixture
    def log(self) -> Iterator[EventLog]:
        raise NotImplementedError  # subclasses provide the adapter

    def test_empty_log(self, log: EventLog) -> None:
        assert log.last_position() == 0
        assert log.read(after=0, limit=10) == []

    def test_append_returns_increasing_positions_and_reads_back_in_order(
        self, log: EventLog
    ) -> None:
        events = [written(record(f"m{i}", f"memory number {i}")) for i in range(5)]
        positions = log.append(events)
        assert positions == sorted(positions) and len(set(positions)) == 5
        assert log.last_position() == positions[-1]
        read = log.read(after=0, limit=100)
        assert [e.position for e in read] == positions
        assert [e.event for e in read] == events

    def test_read_after_and_limit(self, log: EventLog) -> None:
        positions = log.append([written(record(f"m{i}")) for i in range(6)])
        page = log.read(after=positions[1], limit=3)
        assert [e.position for e in page] == positions[2:5]

    def test_retried_append_is_not_duplicated(self, log: EventLog) -> None:
        event = written()
        first = log.append([event])
        again = log.append([event])
        assert first == again
        assert len(log.read(after=0, limit=10)) == 1

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
        events = [written(), deleted()]
        log.append(events)
        read = [e.event for e in log.read(after=0, limit=10)]
        assert isinstance(read[0], MemoryWritten) and isinstance(read[1], MemoryDeleted)
        assert read == events

    def test_wait_for_events_wakes_on_append(self, log: EventLog) -> None:
        assert log.wait_for_events(after=0, timeout=0.05) is False
        timer = threading.Timer(0.1, lambda: log.append([written()]))
        timer.start()
        try:
            assert log.wait_for_events(after=0, timeout=5.0) is True
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
        read = log.read(after=0, limit=1000)
        assert len(read) == 100
        assert len({e.event.header.event_id for e in read}) == 100
