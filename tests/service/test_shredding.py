"""ShreddingLog: a forget destroys keys only once its tombstone is on the log."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from ai_memory.adapters.memory import MemoryEventLog, MemoryRecordStore
from ai_memory.bootstrap import build
from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.core.errors import Unavailable
from ai_memory.core.events import DomainEvent, LoggedEvent
from ai_memory.core.governance.interactions import extracted_memory_id
from ai_memory.core.ports import Embedder
from ai_memory.core.projection import project_records
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.shredding import ShreddingLog, source_interaction_keys
from ai_memory.settings import Settings
from tests.factories import FixedClock, deleted, record, written
from tests.service.conftest import MEMORY


class FailingLog(MemoryEventLog):
    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        raise Unavailable("the log is down")


def test_keys_are_destroyed_after_the_append_and_only_for_tombstones() -> None:
    log = MemoryEventLog(AvroEventSerializer())
    calls: list[tuple[str, object]] = []

    def destroy(tenant: str, key_id: str) -> None:
        calls.append(("destroy", (tenant, key_id, log.last_position())))

    shredding = ShreddingLog(
        log, destroy=destroy, prepare=lambda events: calls.append(("prepare", len(events)))
    )
    shredding.append([written(), deleted("m1"), deleted("m2", tenant="globex")])
    assert calls == [
        ("prepare", 3),
        # The tombstones are on the log (position 3) when each key goes.
        ("destroy", ("default", memory_key_id("m1"), 3)),
        ("destroy", ("globex", memory_key_id("m2"), 3)),
    ]


def test_a_failed_append_destroys_nothing() -> None:
    destroyed: list[str] = []
    shredding = ShreddingLog(
        FailingLog(AvroEventSerializer()), destroy=lambda t, k: destroyed.append(k)
    )
    with pytest.raises(Unavailable):
        shredding.append([deleted("m1")])
    assert destroyed == []


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
    destroyed: list[str] = []
    shredding = ShreddingLog(
        MemoryEventLog(AvroEventSerializer()),
        destroy=lambda t, k: destroyed.append(k),
        related=related,
    )
    shredding.append([deleted(extracted)])
    assert destroyed == [memory_key_id(extracted), interaction_key_id("turn-1")]


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
