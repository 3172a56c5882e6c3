"""The in-process projection's linger: writes that trickle in share batches, the first
after a quiet spell is applied at once, and a reader waiting for a position never waits
out the linger."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.core.events import LoggedEvent
from ai_memory.projector.sinks import RecordsSink
from ai_memory.projector.tailer import ProjectionTailer
from ai_memory.serialization import AvroEventSerializer
from tests.factories import record, written

# Far longer than any step here: whatever is applied before it ends was not waited for.
LINGER = 30.0


class CountingSink(RecordsSink):
    """The records sink, remembering how many events each batch carried."""

    def __init__(self, store: SqliteRecordStore) -> None:
        super().__init__(store)
        self.batches: list[int] = []

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        super().apply(events, partition)
        self.batches.append(len(events))


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[SqliteEventLog, CountingSink]]:
    log = SqliteEventLog(tmp_path / "events.db", AvroEventSerializer())
    store = SqliteRecordStore(tmp_path / "records.db")
    yield log, CountingSink(store)
    log.close()
    store.close()


def until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def reached(tailer: ProjectionTailer, position: int) -> Callable[[], bool]:
    return lambda: tailer.position == position


def lingering(log: SqliteEventLog, sink: CountingSink) -> tuple[ProjectionTailer, int]:
    """A running tailer that applied one write at once and now lingers."""
    tailer = ProjectionTailer(log, sink, dead_letters=None, linger=LINGER)
    (first,) = log.append([written(record("first"))])
    tailer.start()
    assert until(reached(tailer, first)), "the first write waited for the linger"
    return tailer, first


def test_writes_behind_the_first_share_one_batch_and_a_waiter_ends_the_linger(
    parts: tuple[SqliteEventLog, CountingSink],
) -> None:
    log, sink = parts
    tailer, first = lingering(log, sink)
    try:
        last = 0
        for n in range(5):
            (last,) = log.append([written(record(f"behind-{n}"))])
        time.sleep(0.3)
        assert tailer.position == first  # lingering: nothing read yet
        began = time.monotonic()
        assert tailer.wait(last, timeout=LINGER / 2)
        assert time.monotonic() - began < LINGER / 2
        assert sink.batches == [1, 5]
    finally:
        stopping = time.monotonic()
        tailer.stop()
        assert time.monotonic() - stopping < LINGER / 2  # a stop ends a linger too


def test_an_async_waiter_ends_the_linger(parts: tuple[SqliteEventLog, CountingSink]) -> None:
    log, sink = parts
    tailer, _ = lingering(log, sink)
    try:
        (last,) = log.append([written(record("behind"))])
        time.sleep(0.3)
        began = time.monotonic()
        assert asyncio.run(tailer.wait_async(last, timeout=LINGER / 2))
        assert time.monotonic() - began < LINGER / 2
        assert tailer.position == last
    finally:
        tailer.stop()


def test_without_a_linger_each_write_is_applied_as_it_comes(
    parts: tuple[SqliteEventLog, CountingSink],
) -> None:
    log, sink = parts
    tailer = ProjectionTailer(log, sink, dead_letters=None)
    tailer.start()
    try:
        for n in range(3):
            (position,) = log.append([written(record(f"alone-{n}"))])
            assert until(reached(tailer, position))  # no reader waits: no hurry
        assert sink.batches == [1, 1, 1]
    finally:
        tailer.stop()


def test_a_stop_just_before_the_linger_begins_is_not_waited_out(
    parts: tuple[SqliteEventLog, CountingSink],
) -> None:
    """``stop`` sets the hurry event, which the linger clears as it begins: a stop in
    between must still end the linger at once (here the stop is set before the linger
    starts, the worst order for the clear)."""
    log, sink = parts
    tailer = ProjectionTailer(log, sink, dead_letters=None, linger=LINGER)
    tailer._stop.set()
    tailer._hurry.set()
    began = time.monotonic()
    assert tailer._lingered() is False
    assert time.monotonic() - began < LINGER / 10
