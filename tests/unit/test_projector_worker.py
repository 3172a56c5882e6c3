"""The Faust agent's body without a broker: batching by partition, the shared
apply/retry/dead-letter policy, dead letters through the port, and its metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from ai_memory.adapters.sqlite_dead_letters import SqliteDeadLetters
from ai_memory.core.errors import PermanentError, Unavailable
from ai_memory.core.events import LoggedEvent, MemoryWritten
from ai_memory.core.positions import pack
from ai_memory.projector.faust_app import ProjectorWorker
from ai_memory.projector.policy import Backoff
from ai_memory.serialization import AvroEventSerializer
from tests.factories import record, written

SERIALIZER = AvroEventSerializer()
FAST = Backoff(0.001, 0.002)


class RecordingSink:
    """Records what it was asked to apply and where its checkpoint is; can fail."""

    name = "records"

    def __init__(self, *, fail_times: int = 0, poison: str | None = None) -> None:
        self.applied: list[tuple[int, list[int]]] = []
        self.skipped: list[int] = []
        self.fail_times = fail_times
        self.poison = poison

    def checkpoint(self, partition: int = 0) -> int:
        return 0

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        if self.fail_times:
            self.fail_times -= 1
            raise Unavailable("store down", retry_after=0.01)
        for e in events:
            if isinstance(e.event, MemoryWritten) and e.event.record.id == self.poison:
                raise PermanentError("cannot project this", code="bad_event")
        self.applied.append((partition, [e.position for e in events]))

    def reset(self) -> None: ...

    def skip_to(self, position: int, partition: int = 0) -> None:
        self.skipped.append(position)

    def idle(self) -> None: ...


@pytest.fixture
def dlq(tmp_path: Path) -> Iterator[SqliteDeadLetters]:
    store = SqliteDeadLetters(tmp_path / "dlq.db")
    yield store
    store.close()


def message(partition: int, offset: int, memory_id: str) -> tuple[int, int, bytes]:
    return partition, offset, SERIALIZER.encode(written(record(memory_id)))


def run(worker: ProjectorWorker, messages: list[tuple[int, int, bytes]]) -> str:
    asyncio.run(worker.handle(messages))
    metrics = generate_latest(worker.metrics.registry).decode()
    worker.executor.shutdown(wait=True)
    return metrics


def test_batches_are_applied_per_partition_in_offset_order(dlq: SqliteDeadLetters) -> None:
    sink = RecordingSink()
    run(
        ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST),
        [message(0, 5, "a"), message(1, 0, "b"), message(0, 6, "c")],
    )
    assert sink.applied == [(0, [pack(0, 5), pack(0, 6)]), (1, [pack(1, 0)])]
    assert dlq.entries() == []


def test_undecodable_events_are_dead_lettered_in_order_and_the_rest_applied(
    dlq: SqliteDeadLetters,
) -> None:
    sink = RecordingSink()
    junk = b"this is not an avro frame at all"
    metrics = run(
        ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST),
        [message(0, 0, "a"), (0, 1, junk), message(0, 2, "b")],
    )
    # What precedes the bad bytes is applied before the checkpoint skips past them.
    assert sink.applied == [(0, [pack(0, 0)]), (0, [pack(0, 2)])]
    assert sink.skipped == [pack(0, 1)]
    (entry,) = dlq.entries()
    assert entry.raw == junk and entry.reason == "bad_magic" and entry.position == pack(0, 1)
    assert entry.projection == "records" and entry.partition == 0
    assert 'aimem_dead_lettered_events_total{projection="records",reason="bad_magic"} 1.0' in (
        metrics
    )


def test_retryable_failures_are_retried_until_applied_and_never_dead_lettered(
    dlq: SqliteDeadLetters,
) -> None:
    sink = RecordingSink(fail_times=5)
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)
    metrics = run(worker, [message(2, 9, "a")])
    assert sink.applied == [(2, [pack(2, 9)])]
    assert worker.failures == 5 and dlq.entries() == []
    assert 'aimem_projection_stuck{partition="2",projection="records"} 0.0' in metrics


def test_a_poison_event_is_isolated_dead_lettered_with_its_bytes_and_skipped(
    dlq: SqliteDeadLetters,
) -> None:
    sink = RecordingSink(poison="bad")
    bad = message(0, 1, "bad")
    run(
        ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST),
        [message(0, 0, "a"), bad, message(0, 2, "c")],
    )
    assert [p for _, batch in sink.applied for p in batch] == [pack(0, 0), pack(0, 2)]
    assert sink.skipped == [pack(0, 1)]
    (entry,) = dlq.entries()
    assert (entry.reason, entry.position, entry.raw) == ("projection:bad_event", pack(0, 1), bad[2])
    assert "cannot project this" in entry.error


def test_a_stuck_worker_reports_it_and_stops_when_closed(dlq: SqliteDeadLetters) -> None:
    sink = RecordingSink(fail_times=10**9)
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)

    async def scenario() -> str:
        task = asyncio.ensure_future(worker.handle([message(3, 0, "a")]))
        while worker.policy.stuck is None:
            await asyncio.sleep(0.01)
        metrics = generate_latest(worker.metrics.registry).decode()
        worker._stopping.set()  # what close() does first
        with pytest.raises(Exception, match="stopping"):
            await task
        return metrics

    metrics = asyncio.run(scenario())
    worker.close()
    assert 'aimem_projection_stuck{partition="3",projection="records"} 1.0' in metrics
    assert sink.applied == [] and dlq.entries() == []
