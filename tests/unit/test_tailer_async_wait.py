"""Waiting on the event loop for an in-process projection: woken by the tailer itself."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.projector.sinks import RecordsSink
from ai_memory.projector.tailer import ProjectionTailer
from ai_memory.serialization import AvroEventSerializer
from tests.factories import record, written


@pytest.fixture
def tailer(tmp_path: Path) -> Iterator[ProjectionTailer]:
    log = SqliteEventLog(tmp_path / "events.db", AvroEventSerializer())
    store = SqliteRecordStore(tmp_path / "records.db")
    t = ProjectionTailer(log, RecordsSink(store), dead_letters=None)
    yield t
    t.stop()
    log.close()
    store.close()


def test_a_waiter_is_woken_when_its_position_is_applied(tailer: ProjectionTailer) -> None:
    (position,) = tailer.log.append([written(record("a"))])

    async def scenario() -> tuple[bool, bool]:
        waiting = asyncio.create_task(tailer.wait_async(position, timeout=30))
        await asyncio.sleep(0.05)
        pending_before = not waiting.done()
        # The projection applies on another thread, as the tailer's own thread does.
        threading.Thread(target=tailer.step).start()
        return pending_before, await waiting

    pending_before, reached = asyncio.run(scenario())
    assert pending_before and reached
    assert tailer.position == position


def test_a_waiter_times_out_and_leaves_nothing_behind(tailer: ProjectionTailer) -> None:
    (position,) = tailer.log.append([written(record("a"))])
    assert asyncio.run(tailer.wait_async(position, timeout=0.05)) is False
    assert tailer._async_waiters == []
    assert asyncio.run(tailer.wait_async(0, timeout=0.05)) is True  # already there
