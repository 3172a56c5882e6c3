"""The Faust agent's body without a broker: batching by partition, retries, dead letters."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ai_memory.core.errors import PermanentError, Unavailable
from ai_memory.core.events import LoggedEvent
from ai_memory.core.positions import pack
from ai_memory.projector.faust_app import ProjectorWorker
from ai_memory.serialization import AvroEventSerializer
from tests.factories import record, written

SERIALIZER = AvroEventSerializer()


class RecordingSink:
    """Records what it was asked to apply; can fail on command."""

    name = "records"

    def __init__(self, *, fail_times: int = 0, poison: str | None = None) -> None:
        self.applied: list[tuple[int, list[int]]] = []
        self.fail_times = fail_times
        self.poison = poison

    def checkpoint(self, partition: int = 0) -> int:
        return 0

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        if self.fail_times:
            self.fail_times -= 1
            raise Unavailable("store down", retry_after=0.01)
        for e in events:
            if getattr(e.event, "memory_id", None) == self.poison:
                raise PermanentError("cannot project this", code="bad_event")
        self.applied.append((partition, [e.position for e in events]))

    def reset(self) -> None: ...

    def skip_to(self, position: int, partition: int = 0) -> None: ...

    def idle(self) -> None: ...


class DeadLetters:
    def __init__(self) -> None:
        self.sent: list[tuple[bytes, str, int]] = []

    async def __call__(self, raw: bytes, reason: str, position: int) -> None:
        self.sent.append((raw, reason, position))


def message(partition: int, offset: int, memory_id: str) -> tuple[int, int, bytes]:
    return partition, offset, SERIALIZER.encode(written(record(memory_id)))


def run(worker: ProjectorWorker, messages: list[tuple[int, int, bytes]]) -> None:
    asyncio.run(worker.handle(messages))
    worker.close()


def test_batches_are_applied_per_partition_in_offset_order() -> None:
    sink, dlq = RecordingSink(), DeadLetters()
    worker = ProjectorWorker(sink, SERIALIZER, dlq)
    run(worker, [message(0, 5, "a"), message(1, 0, "b"), message(0, 6, "c")])
    assert sink.applied == [(0, [pack(0, 5), pack(0, 6)]), (1, [pack(1, 0)])]
    assert dlq.sent == []


def test_undecodable_events_are_dead_lettered_and_the_rest_applied() -> None:
    sink, dlq = RecordingSink(), DeadLetters()
    run(
        ProjectorWorker(sink, SERIALIZER, dlq),
        [(0, 0, b"this is not an avro frame at all"), message(0, 1, "a")],
    )
    assert sink.applied == [(0, [pack(0, 1)])]
    ((raw, reason, position),) = dlq.sent
    assert raw.startswith(b"this is not") and reason == "bad_magic" and position == pack(0, 0)


def test_retryable_failures_are_retried_until_applied() -> None:
    sink, dlq = RecordingSink(fail_times=2), DeadLetters()
    worker = ProjectorWorker(sink, SERIALIZER, dlq)
    run(worker, [message(2, 9, "a")])
    assert sink.applied == [(2, [pack(2, 9)])]
    assert worker.failures == 2


def test_a_permanently_rejected_event_is_isolated_and_dead_lettered() -> None:
    sink, dlq = RecordingSink(poison="bad"), DeadLetters()
    run(
        ProjectorWorker(sink, SERIALIZER, dlq),
        [message(0, 0, "a"), message(0, 1, "bad"), message(0, 2, "c")],
    )
    assert sink.applied == [(0, [pack(0, 0)]), (0, [pack(0, 2)])]
    assert [(reason, pos) for _, reason, pos in dlq.sent] == [("projection:bad_event", pack(0, 1))]
