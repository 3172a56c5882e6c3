"""Poison on a Kafka log: undecodable bytes and an event the sink cannot apply are parked
on the ``.dlq`` topic through the ``DeadLetters`` port by the shared policy, the
projection moves past them, and a re-drive reads the event back at its packed position."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence

import pytest

from ai_memory.adapters.kafka import KafkaEventLog
from ai_memory.adapters.kafka.dead_letters import KafkaDeadLetters
from ai_memory.adapters.kafka.event_log import WriterConfig
from ai_memory.core.events import LoggedEvent, MemoryWritten
from ai_memory.core.positions import partition_of
from ai_memory.projector.policy import Backoff
from ai_memory.projector.redrive import read_at, redrive
from ai_memory.projector.tailer import ProjectionTailer
from ai_memory.serialization import AvroEventSerializer
from tests.contract.test_kafka_event_log import JUNK, produce_raw
from tests.factories import record, written


class ListSink:
    """Remembers applied positions; refuses records whose content says "poison" until
    ``fixed`` (as a sink bug that a later release fixes)."""

    name = "records"

    def __init__(self) -> None:
        self.applied: list[int] = []
        self.at = 0
        self.fixed = False

    def checkpoint(self, partition: int = 0) -> int:
        return self.at

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        for e in events:
            poison = isinstance(e.event, MemoryWritten) and "poison" in e.event.record.content
            if poison and not self.fixed:
                raise ValueError("cannot project this record")
        self.applied += [e.position for e in events]
        self.at = max(self.at, events[-1].position)

    def reset(self) -> None: ...

    def skip_to(self, position: int, partition: int = 0) -> None:
        self.at = max(self.at, position)

    def idle(self) -> None: ...


@pytest.fixture
def kafka_log(kafka_bootstrap: str) -> Iterator[KafkaEventLog]:
    topic = f"poison-{uuid.uuid4().hex[:10]}"
    log = KafkaEventLog(
        kafka_bootstrap,
        topic,
        AvroEventSerializer(),
        partitions=1,
        request_timeout=10.0,
        writer=WriterConfig(),
    )
    yield log
    log.close()


def test_kafka_poison_is_parked_on_the_dlq_topic_and_redriven(kafka_log: KafkaEventLog) -> None:
    config = kafka_log.config
    dead_letters = KafkaDeadLetters(config)
    try:
        (first,) = kafka_log.append([written(record("a", "A good memory."))])
        junk = produce_raw(kafka_log.config.bootstrap, kafka_log.config.topic, b"k", JUNK)
        (bad,) = kafka_log.append([written(record("b", "A poison memory."))])
        (last,) = kafka_log.append([written(record("c", "Another good one."))])
        assert partition_of(junk) == 0 and first < junk < bad

        sink = ListSink()
        serializer = AvroEventSerializer()
        tailer = ProjectionTailer(
            kafka_log,
            sink,
            dead_letters=dead_letters,
            raw_of=lambda e: serializer.encode(e.event),
            backoff=Backoff(0.001, 0.002),
        )
        tailer.catch_up()
        assert sink.applied == [first, last] and sink.checkpoint() == last

        reader = KafkaDeadLetters(config)  # another process listing them
        try:
            parked = {e.position: e for e in reader.entries("records")}
        finally:
            reader.close()
        assert set(parked) == {junk, bad}
        assert parked[junk].reason == "bad_magic" and parked[junk].raw == JUNK
        assert parked[bad].reason == "projection:ValueError" and parked[bad].raw

        # Undecodable bytes stay undecodable: kept, with one more attempt.
        assert read_at(kafka_log, first, packed=True).position == first  # offset 0
        again = redrive(parked[junk], kafka_log, sink, dead_letters, packed=True)
        assert not again.resolved and again.letter.attempts == parked[junk].attempts + 1
        # After the fix the event applies, and the entry is gone.
        sink.fixed = True
        assert redrive(parked[bad], kafka_log, sink, dead_letters, packed=True).resolved
        assert sink.applied[-1] == bad
        assert [e.position for e in dead_letters.entries()] == [junk]
        assert dead_letters.counts() == {"records": 1}
    finally:
        dead_letters.close()
