"""The append pipeline: its steps run in order — keys made before sealing, every event
encoded once and proven before anything is appended, a forget's keys destroyed only once
its tombstone is on the log."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from ai_memory.adapters.memory import MemoryEventLog, MemoryRecordStore
from ai_memory.adapters.projectability import ProjectabilityCheck
from ai_memory.bootstrap import build
from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.core.errors import InvalidInput, Unavailable
from ai_memory.core.events import DomainEvent, LoggedEvent
from ai_memory.core.governance.interactions import extracted_memory_id
from ai_memory.core.ports import Embedder, EncodedEvent, EventSerializer
from ai_memory.core.projection import project_records
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.append_pipeline import AppendPipeline, source_interaction_keys
from ai_memory.settings import Settings
from tests.factories import FixedClock, deleted, record, written
from tests.service.conftest import MEMORY


class FailingLog(MemoryEventLog):
    def append_encoded(self, events: Sequence[EncodedEvent]) -> list[int]:
        raise Unavailable("the log is down")


class Keys:
    """``DataKeys`` that record each call, with how far the log was when it came."""

    def __init__(self, log: MemoryEventLog, calls: list[tuple[str, object]]) -> None:
        self._log = log
        self._calls = calls

    def prepare(self, events: Sequence[DomainEvent]) -> None:
        self._calls.append(("prepare", (len(events), self._log.last_position())))

    def forget(self, tenant: str, key_id: str) -> None:
        self._calls.append(("destroy", (tenant, key_id, self._log.last_position())))


class CountingSerializer(AvroEventSerializer):
    def __init__(self) -> None:
        super().__init__()
        self.encoded = 0

    def encode(self, event: DomainEvent) -> bytes:
        self.encoded += 1
        return super().encode(event)


def pipeline_over(
    log: MemoryEventLog, calls: list[tuple[str, object]], serializer: EventSerializer | None = None
) -> AppendPipeline:
    serializer = serializer or AvroEventSerializer()
    return AppendPipeline(log, serializer, ProjectabilityCheck(serializer), keys=Keys(log, calls))


def test_keys_are_made_first_and_destroyed_after_the_append_only_for_tombstones() -> None:
    log = MemoryEventLog(AvroEventSerializer())
    calls: list[tuple[str, object]] = []
    pipeline_over(log, calls).append([written(), deleted("m1"), deleted("m2", tenant="globex")])
    assert calls == [
        ("prepare", (3, 0)),  # before anything is sealed or appended
        # The tombstones are on the log (position 3) when each key goes.
        ("destroy", ("default", memory_key_id("m1"), 3)),
        ("destroy", ("globex", memory_key_id("m2"), 3)),
    ]


def test_every_event_is_encoded_once_and_the_log_writes_that_frame() -> None:
    serializer = CountingSerializer()
    log = MemoryEventLog(AvroEventSerializer())
    events = [written(record(f"m{i}")) for i in range(4)]
    pipeline_over(log, [], serializer).append(events)
    assert serializer.encoded == 4  # proven and written from the same frames
    assert [e.event for e in log.read(after=0, limit=10)] == events


def test_a_failed_append_destroys_nothing() -> None:
    calls: list[tuple[str, object]] = []
    with pytest.raises(Unavailable):
        pipeline_over(FailingLog(AvroEventSerializer()), calls).append([deleted("m1")])
    assert [c[0] for c in calls] == ["prepare"]


def test_a_refused_batch_destroys_and_appends_nothing() -> None:
    log = MemoryEventLog(AvroEventSerializer())
    calls: list[tuple[str, object]] = []
    unprojectable = written(record("m2", ttl=2**62))  # its expiry overflows every datetime
    with pytest.raises(InvalidInput):
        pipeline_over(log, calls).append([deleted("m1"), unprojectable])
    assert log.last_position() == 0
    assert [c[0] for c in calls] == ["prepare"]


def test_a_memory_extracted_from_a_turn_takes_the_turn_s_key_with_it() -> None:
    store = MemoryRecordStore()
    extracted = extracted_memory_id("turn-1", 0)
    source = {"source": {"interaction_id": "turn-1"}}
    # A client's memory naming the same turn in its meta does not reach the turn's key.
    events = [
        written(record(extracted, meta=source)),
        written(record("client-made", meta=source)),
    ]
    store.apply(
        [m for i, e in enumerate(events, 1) for m in project_records(LoggedEvent(i, e))],
        checkpoint=2,
    )
    related = source_interaction_keys(store)
    assert related("default", extracted) == [interaction_key_id("turn-1")]
    assert related("default", "client-made") == []
    assert related("default", "unknown") == []
    log = MemoryEventLog(AvroEventSerializer())
    calls: list[tuple[str, object]] = []
    serializer = AvroEventSerializer()
    AppendPipeline(
        log, serializer, ProjectabilityCheck(serializer), keys=Keys(log, calls), related=related
    ).append([deleted(extracted)])
    assert [c[1] for c in calls if c[0] == "destroy"] == [
        ("default", memory_key_id(extracted), 1),
        ("default", interaction_key_id("turn-1"), 1),
    ]


def test_an_in_memory_container_with_encryption_on_writes_nothing_to_disk(
    tmp_path: Path, clock: FixedClock, embedder: Embedder
) -> None:
    settings = Settings(
        data_dir=tmp_path, event_log_url=MEMORY, record_store_url=MEMORY, index_url=MEMORY
    )
    c = build(settings.model_copy(update={"encryption": "on"}), clock=clock, embedder=embedder)
    c.start()
    try:
        body = {"type": "fact", "content": "x", "scope": "user:a", "source_agent": "a"}
        written_ = c.service.write("acme", body, memory_id="m1", wait=True)
        c.service.delete("acme", "m1", actor="a", wait=True)
        assert c.sealer is not None and c.sealer.vault.destroyed("acme", memory_key_id("m1"))
        assert written_.version == 1
    finally:
        c.close()
    assert list(tmp_path.iterdir()) == []  # not even a root key: nothing outlives the process
